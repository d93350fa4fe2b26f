package expr

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"

	"github.com/weir-sql/weir/sql/types"
)

// The numeric fast path. Most numerics a query meets (prices, 0.908,
// amounts of numeric(10,2), integers cast to numeric) have at most 18
// digits: they are a coefficient that fits an int64 and a scale. Parsing
// their canonical text into that pair, computing +, -, * and comparisons
// on it (with overflow checks) and printing the result into one buffer
// costs no allocation, where the general path (apd) allocates big.Ints
// per row. Anything else (NaN, infinities, more digits, an overflow) takes
// the general path, so results are the same as before: PostgreSQL's
// exact arithmetic with the result scales of numeric_add / numeric_mul
// (max(s1, s2) and s1 + s2).

// fastDec is the finite numeric coef × 10^-scale.
type fastDec struct {
	coef  int64
	scale int32
}

// maxFastDigits is how many digits a coefficient may have so that it
// surely fits an int64.
const maxFastDigits = 18

var pow10i64 = [...]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// parseFastDec reads plain decimal text ([-]digits[.digits]) of at most
// maxFastDigits digits; ok is false for anything else.
func parseFastDec(s string) (fastDec, bool) {
	i, neg := 0, false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	var coef int64
	digits, scale := 0, int32(-1)
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if scale >= 0 {
				return fastDec{}, false
			}
			scale = 0
			continue
		}
		if c < '0' || c > '9' {
			return fastDec{}, false
		}
		if digits++; digits > maxFastDigits {
			return fastDec{}, false
		}
		coef = coef*10 + int64(c-'0')
		if scale >= 0 {
			scale++
		}
	}
	if digits == 0 {
		return fastDec{}, false
	}
	if scale < 0 {
		scale = 0
	}
	if neg {
		coef = -coef
	}
	return fastDec{coef, scale}, true
}

// appendFastDec prints d as numeric_out does: plain notation, all scale
// digits, no negative zero.
func appendFastDec(buf []byte, d fastDec) []byte {
	if d.scale == 0 {
		return strconv.AppendInt(buf, d.coef, 10)
	}
	u := uint64(d.coef)
	if d.coef < 0 {
		buf = append(buf, '-')
		u = uint64(-d.coef) // MinInt64 wraps to its magnitude
	}
	var tmp [24]byte
	digits := strconv.AppendUint(tmp[:0], u, 10)
	s := int(d.scale)
	if len(digits) <= s {
		buf = append(buf, '0', '.')
		for k := len(digits); k < s; k++ {
			buf = append(buf, '0')
		}
		return append(buf, digits...)
	}
	buf = append(buf, digits[:len(digits)-s]...)
	buf = append(buf, '.')
	return append(buf, digits[len(digits)-s:]...)
}

// rescale returns d's coefficient at scale s >= d.scale; ok is false on
// overflow.
func (d fastDec) rescale(s int32) (int64, bool) {
	diff := s - d.scale
	if diff == 0 {
		return d.coef, true
	}
	if diff < 0 || int(diff) >= len(pow10i64) {
		return 0, false
	}
	return mulInt64(d.coef, pow10i64[diff])
}

// mulInt64 is a*b; ok is false when it overflows an int64.
func mulInt64(a, b int64) (int64, bool) {
	neg := (a < 0) != (b < 0)
	ua, ub := absU64(a), absU64(b)
	hi, lo := bits.Mul64(ua, ub)
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if neg {
		return -int64(lo), true
	}
	return int64(lo), true
}

func absU64(a int64) uint64 {
	if a < 0 {
		return uint64(-a)
	}
	return uint64(a)
}

func fastAdd(x, y fastDec) (fastDec, bool) {
	s := max(x.scale, y.scale)
	a, ok1 := x.rescale(s)
	b, ok2 := y.rescale(s)
	if !ok1 || !ok2 {
		return fastDec{}, false
	}
	r := a + b
	if (a >= 0) == (b >= 0) && (r >= 0) != (a >= 0) {
		return fastDec{}, false
	}
	return fastDec{r, s}, true
}

func fastSub(x, y fastDec) (fastDec, bool) {
	if y.coef == math.MinInt64 {
		return fastDec{}, false
	}
	return fastAdd(x, fastDec{-y.coef, y.scale})
}

func fastMul(x, y fastDec) (fastDec, bool) {
	s := x.scale + y.scale
	if s > numericMaxDisplayScal {
		return fastDec{}, false
	}
	r, ok := mulInt64(x.coef, y.coef)
	return fastDec{r, s}, ok
}

// fastCmp orders x and y; ok is false when aligning their scales
// overflows.
func fastCmp(x, y fastDec) (int, bool) {
	s := max(x.scale, y.scale)
	a, ok1 := x.rescale(s)
	b, ok2 := y.rescale(s)
	if !ok1 || !ok2 {
		return 0, false
	}
	switch {
	case a < b:
		return -1, true
	case a > b:
		return 1, true
	}
	return 0, true
}

// numericArith is a numeric operator with a fast path: fast computes
// rows whose operands and result fit a fastDec, slow (apd) the others.
func numericArith(fast func(x, y fastDec) (fastDec, bool), slow func(x, y *apd.Decimal) (*apd.Decimal, error)) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		xa, ok1 := args[0].(*array.String)
		ya, ok2 := args[1].(*array.String)
		if !ok1 || !ok2 {
			return numericBinary(slow)(ctx, args, n)
		}
		b := NewBuilder(ctx.Allocator(), types.Numeric).(*array.StringBuilder)
		defer b.Release()
		b.Reserve(n)
		b.ReserveData(n * 12)
		var buf []byte
		for i := 0; i < n; i++ {
			if xa.IsNull(i) || ya.IsNull(i) {
				b.AppendNull()
				continue
			}
			xs, ys := xa.Value(i), ya.Value(i)
			if x, ok := parseFastDec(xs); ok {
				if y, ok := parseFastDec(ys); ok {
					if r, ok := fast(x, y); ok {
						buf = appendFastDec(buf[:0], r)
						b.BinaryBuilder.Append(buf)
						continue
					}
				}
			}
			x, err := parseNumeric(xs)
			if err != nil {
				return nil, err
			}
			y, err := parseNumeric(ys)
			if err != nil {
				return nil, err
			}
			r, err := slow(x, y)
			if err != nil {
				return nil, err
			}
			b.Append(formatNumeric(r))
		}
		return b.NewArray(), nil
	}
}

// intToNumericKernel casts an integer column to numeric without a type
// modifier: the integer's digits are the numeric's canonical text.
func intToNumericKernel(ctx *Ctx, arr arrow.Array) arrow.Array {
	n := arr.Len()
	vals := intValues(arr, nil)
	b := NewBuilder(ctx.Allocator(), types.Numeric).(*array.StringBuilder)
	defer b.Release()
	b.Reserve(n)
	b.ReserveData(n * 8)
	var buf [24]byte
	for i := 0; i < n; i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.BinaryBuilder.Append(strconv.AppendInt(buf[:0], vals[i], 10))
	}
	return b.NewArray()
}

// fastTypmod is d rounded (half away from zero) to numeric(p, s) of
// typmod; ok is false when the fast path cannot say (a precision or
// scale past 18 digits, a negative scale) or the value overflows the
// precision (the general path then gives the error).
func fastTypmod(d fastDec, typmod int32) (fastDec, bool) {
	m := typmod - 4
	p, s := (m>>16)&0xffff, int32(int16(m&0xffff))
	if s < 0 || s > maxFastDigits || p > maxFastDigits || p < 1 {
		return fastDec{}, false
	}
	var c int64
	if d.scale <= s {
		var ok bool
		if c, ok = d.rescale(s); !ok {
			return fastDec{}, false
		}
	} else {
		k := d.scale - s
		if int(k) >= len(pow10i64) {
			return fastDec{}, false
		}
		div := pow10i64[k]
		c = d.coef / div
		if r := absU64(d.coef % div); r*2 >= uint64(div) {
			if d.coef < 0 {
				c--
			} else {
				c++
			}
		}
	}
	if absU64(c) >= uint64(pow10i64[p]) {
		return fastDec{}, false
	}
	return fastDec{c, s}, true
}

// numericTypmodKernel casts numeric (or integer) text to numeric(p, s):
// the fast path where it can, slow (the row-wise cast) for the column
// otherwise.
func numericTypmodKernel(ctx *Ctx, arr arrow.Array, typmod int32, slow func(d Datum) (Datum, error)) (arrow.Array, error) {
	n := arr.Len()
	b := NewBuilder(ctx.Allocator(), types.Numeric).(*array.StringBuilder)
	defer b.Release()
	b.Reserve(n)
	b.ReserveData(n * 8)
	sa, isText := arr.(*array.String)
	var ints []int64
	if !isText {
		ints = intValues(arr, nil)
	}
	var buf []byte
	for i := 0; i < n; i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		var d fastDec
		var in Datum
		ok := true
		if isText {
			in = sa.Value(i)
			d, ok = parseFastDec(sa.Value(i))
		} else {
			in = ints[i]
			d = fastDec{ints[i], 0}
		}
		if ok {
			if r, ok := fastTypmod(d, typmod); ok {
				buf = appendFastDec(buf[:0], r)
				b.BinaryBuilder.Append(buf)
				continue
			}
		}
		out, err := slow(in)
		if err != nil {
			return nil, err
		}
		b.Append(out.(string))
	}
	return b.NewArray(), nil
}
