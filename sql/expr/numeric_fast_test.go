package expr

import (
	"math/big"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// TestFastDecAgreesWithApd: on random operands, including ones at the
// edge of int64 and of the 18-digit limit, the fast path either declines
// or gives exactly the general path's text, for +, -, * and comparisons.
func TestFastDecAgreesWithApd(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	operand := func() string {
		var b strings.Builder
		if r.Intn(3) == 0 {
			b.WriteByte('-')
		}
		intDigits := r.Intn(20)
		if intDigits == 0 {
			b.WriteByte('0')
		}
		for k := 0; k < intDigits; k++ {
			b.WriteByte(byte('0' + r.Intn(10)))
		}
		if scale := r.Intn(12); scale > 0 && r.Intn(3) > 0 {
			b.WriteByte('.')
			for k := 0; k < scale; k++ {
				b.WriteByte(byte('0' + r.Intn(10)))
			}
		}
		return b.String()
	}
	fixed := []string{"0", "-0", "0.000", "-0.5", "9223372036854775807", "-9223372036854775808", "999999999999999999", "-999999999999999999",
		"0.000000000000000001", "123456789012345678", "1.5", "0.908", "100", "NaN", "Infinity", "-Infinity", "1e5"}
	ops := []struct {
		name string
		fast func(x, y fastDec) (fastDec, bool)
		slow func(x, y *apd.Decimal) (*apd.Decimal, error)
	}{{"+", fastAdd, numAdd}, {"-", fastSub, numSub}, {"*", fastMul, numMul}}
	check := func(a, b string) {
		x, okx := parseFastDec(a)
		y, oky := parseFastDec(b)
		if !okx || !oky {
			return
		}
		for _, op := range ops {
			got, ok := op.fast(x, y)
			if !ok {
				continue
			}
			want, err := op.slow(mustNumeric(a), mustNumeric(b))
			if err != nil {
				t.Fatalf("%s %s %s: %v", a, op.name, b, err)
			}
			if g, w := string(appendFastDec(nil, got)), formatNumeric(want); g != w {
				t.Errorf("%s %s %s: fast %s, apd %s", a, op.name, b, g, w)
			}
		}
		if c, ok := fastCmp(x, y); ok {
			if w := cmpNumeric(mustNumeric(a), mustNumeric(b)); c != w {
				t.Errorf("cmp(%s, %s): fast %d, apd %d", a, b, c, w)
			}
		}
	}
	for _, a := range fixed {
		for _, b := range fixed {
			check(a, b)
		}
	}
	for i := 0; i < 200000; i++ {
		check(operand(), operand())
	}
	// Text the fast parser takes must print back as numeric_out would.
	for i := 0; i < 20000; i++ {
		s := operand()
		if d, ok := parseFastDec(s); ok {
			if g, w := string(appendFastDec(nil, d)), formatNumeric(mustNumeric(s)); g != w {
				t.Errorf("round trip of %s: %s, want %s", s, g, w)
			}
		}
	}
	for _, bad := range []string{"", "-", ".", "1.2.3", "NaN", "1e5", "12a", "1234567890123456789"} {
		if _, ok := parseFastDec(bad); ok {
			t.Errorf("parseFastDec(%q) accepted", bad)
		}
	}
	if _, ok := parseFastDec(strconv.Itoa(123)); !ok {
		t.Error("parseFastDec(123) declined")
	}
}

// TestInt128MulPow10: the sum accumulator's rescaling agrees with big.Int
// or declines, at the edges of 128 bits too.
func TestInt128MulPow10(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 100000; i++ {
		x := int128{hi: r.Int63n(1<<20) - 1<<19, lo: r.Uint64()}
		if i%7 == 0 {
			x.hi = r.Int63() - 1<<62
		}
		k := int32(r.Intn(19))
		got, ok := x.mulPow10(k)
		want := new(big.Int).Mul(int128Big(x), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil))
		fits := want.BitLen() < 127
		if ok && int128Big(got).Cmp(want) != 0 {
			t.Fatalf("%v × 10^%d = %v, want %v", int128Big(x), k, int128Big(got), want)
		}
		if !ok && fits && want.BitLen() < 126 {
			t.Fatalf("%v × 10^%d declined though %v fits", int128Big(x), k, want)
		}
	}
}

func int128Big(x int128) *big.Int {
	b := new(big.Int).SetInt64(x.hi)
	b.Lsh(b, 64)
	return b.Add(b, new(big.Int).SetUint64(x.lo))
}

// TestFastTypmodAgreesWithApd: casting to numeric(p, s) by the fast path
// gives the general path's text, or declines (then the general path runs,
// with its error when the value overflows).
func TestFastTypmodAgreesWithApd(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for i := 0; i < 200000; i++ {
		coef := r.Int63n(1_000_000_000_000) - 500_000_000_000
		if i%5 == 0 {
			coef = r.Int63() - 1<<62
		}
		d := fastDec{coef, int32(r.Intn(12))}
		p := int32(1 + r.Intn(20))
		s := int32(r.Intn(int(p) + 1))
		typmod := (p<<16 | s) + 4
		text := string(appendFastDec(nil, d))
		got, ok := fastTypmod(d, typmod)
		want, err := applyNumericTypmod(mustNumeric(text), typmod)
		if !ok {
			continue
		}
		if err != nil {
			t.Fatalf("%s::numeric(%d,%d): fast %s, general error %v", text, p, s, appendFastDec(nil, got), err)
		}
		if g, w := string(appendFastDec(nil, got)), formatNumeric(want); g != w {
			t.Fatalf("%s::numeric(%d,%d): fast %s, general %s", text, p, s, g, w)
		}
	}
}
