package expr

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"

	"github.com/weir-sql/weir/sql/types"
)

// sum and avg.

// int128 accumulates integer sums without overflow.
type int128 struct {
	hi int64
	lo uint64
}

func (x *int128) add(v int64) {
	lo, carry := bits.Add64(x.lo, uint64(v), 0)
	x.lo = lo
	x.hi += int64(carry) + (v >> 63)
}

func (x int128) text() string {
	if (x.hi == 0 && x.lo>>63 == 0) || (x.hi == -1 && x.lo>>63 == 1) {
		return strconv.FormatInt(int64(x.lo), 10)
	}
	b := new(big.Int).SetInt64(x.hi)
	b.Lsh(b, 64)
	b.Add(b, new(big.Int).SetUint64(x.lo))
	return b.String()
}

// intSumAcc is sum/avg over int2/int4/int8: a typed loop into 128-bit
// per-group sums.
type intSumAcc struct {
	sums   []int128
	counts []int64
	ret    types.T
	avg    bool
}

func (a *intSumAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	col := args[0]
	hasNulls := col.NullN() > 0
	add := func(i int, g uint32, v int64) {
		if hasNulls && col.IsNull(i) {
			a.sums = growTo(a.sums, g)
			a.counts = growTo(a.counts, g)
			return
		}
		a.sums = growTo(a.sums, g)
		a.counts = growTo(a.counts, g)
		a.sums[g].add(v)
		a.counts[g]++
	}
	switch c := col.(type) {
	case *array.Int32:
		vals := c.Int32Values()
		for i, g := range groups {
			add(i, g, int64(vals[i]))
		}
	case *array.Int64:
		vals := c.Int64Values()
		for i, g := range groups {
			add(i, g, vals[i])
		}
	case *array.Int16:
		vals := c.Int16Values()
		for i, g := range groups {
			add(i, g, int64(vals[i]))
		}
	}
	return nil
}

func (a *intSumAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	b := NewBuilder(ctx.Allocator(), a.ret)
	defer b.Release()
	for g := 0; g < ngroups; g++ {
		if err := a.AppendFinal(ctx, g, b); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// AppendFinal appends group g's sum or average (FinalAppender).
func (a *intSumAcc) AppendFinal(ctx *Ctx, g int, b array.Builder) error {
	if g >= len(a.counts) || a.counts[g] == 0 {
		b.AppendNull()
		return nil
	}
	s := a.sums[g]
	switch {
	case a.avg:
		r, err := numDiv(mustNumeric(s.text()), apd.New(a.counts[g], 0))
		if err != nil {
			return err
		}
		appendText(b, formatNumeric(r))
	case a.ret.OID == types.OidInt8:
		if !((s.hi == 0 && s.lo>>63 == 0) || (s.hi == -1 && s.lo>>63 == 1)) {
			return errIntOutOfRange(types.OidInt8)
		}
		if ib, ok := b.(*array.Int64Builder); ok {
			ib.Append(int64(s.lo))
		} else {
			AppendDatum(b, int64(s.lo))
		}
	default:
		appendText(b, s.text())
	}
	return nil
}

// appendText appends a text-valued result (numeric's canonical text) to b.
func appendText(b array.Builder, v string) {
	if sb, ok := b.(*array.StringBuilder); ok {
		sb.Append(v)
		return
	}
	AppendDatum(b, v)
}

// floatSumAcc is sum/avg over float4/float8.
type floatSumAcc struct {
	sums   []float64
	counts []int64
	ret    types.T
	avg    bool
}

func (a *floatSumAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	col := args[0]
	hasNulls := col.NullN() > 0
	switch c := col.(type) {
	case *array.Float64:
		vals := c.Float64Values()
		for i, g := range groups {
			a.sums = growTo(a.sums, g)
			a.counts = growTo(a.counts, g)
			if hasNulls && c.IsNull(i) {
				continue
			}
			a.sums[g] += vals[i]
			a.counts[g]++
		}
	case *array.Float32:
		vals := c.Float32Values()
		for i, g := range groups {
			a.sums = growTo(a.sums, g)
			a.counts = growTo(a.counts, g)
			if hasNulls && c.IsNull(i) {
				continue
			}
			if a.avg {
				a.sums[g] += float64(vals[i])
			} else {
				a.sums[g] = float64(float32(a.sums[g]) + vals[i])
			}
			a.counts[g]++
		}
	}
	return nil
}

func (a *floatSumAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	b := NewBuilder(ctx.Allocator(), a.ret)
	defer b.Release()
	for g := 0; g < ngroups; g++ {
		_ = a.AppendFinal(ctx, g, b)
	}
	return b.NewArray(), nil
}

// AppendFinal appends group g's sum or average (FinalAppender).
func (a *floatSumAcc) AppendFinal(ctx *Ctx, g int, b array.Builder) error {
	if g >= len(a.counts) || a.counts[g] == 0 {
		b.AppendNull()
		return nil
	}
	v := a.sums[g]
	if a.avg {
		v /= float64(a.counts[g])
	}
	if fb, ok := b.(*array.Float64Builder); ok {
		fb.Append(v)
	} else {
		AppendDatum(b, v)
	}
	return nil
}

// numericSumAcc is sum/avg over numeric. Values arrive as canonical
// decimal text; the common case — at most 18 significant digits — is parsed
// without allocation into a scaled int64 and added into a 128-bit sum per
// group at the group's scale. A group falls back to exact apd arithmetic
// when a value does not fit (more digits, NaN, a scale above the group's
// after its first value, or a sum past 128 bits).
type numericSumAcc struct {
	fast   []int128
	scale  []int32 // scale of the fast sum; -1 before the first value
	slow   []*apd.Decimal
	counts []int64
	avg    bool
}

func (a *numericSumAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	col := args[0].(*array.String)
	for i, g := range groups {
		if int(g) >= len(a.counts) {
			a.grow(int(g) + 1)
		}
		if col.IsNull(i) {
			continue
		}
		a.counts[g]++
		v := col.Value(i)
		if a.slow[g] == nil {
			if m, sc, ok := parseScaledInt(v); ok {
				switch {
				case a.scale[g] < 0:
					a.scale[g] = sc
					a.fast[g].add(m)
					continue
				case sc == a.scale[g]:
					if a.fast[g].addChecked(m) {
						continue
					}
				case sc < a.scale[g]:
					if m2, ok := scaleUp(m, a.scale[g]-sc); ok && a.fast[g].addChecked(m2) {
						continue
					}
				default: // a value with more decimals: the sum takes its scale
					if up, ok := a.fast[g].mulPow10(sc - a.scale[g]); ok {
						a.fast[g], a.scale[g] = up, sc
						if a.fast[g].addChecked(m) {
							continue
						}
					}
				}
			}
			// Leave the fast path for good: carry the sum so far into apd.
			a.slow[g] = a.fastDecimal(int(g))
		}
		x, err := parseNumeric(v)
		if err != nil {
			return err
		}
		r, err := numAdd(a.slow[g], x)
		if err != nil {
			return err
		}
		a.slow[g] = r
	}
	return nil
}

func (a *numericSumAcc) grow(n int) {
	for len(a.counts) < n {
		a.fast = append(a.fast, int128{})
		a.scale = append(a.scale, -1)
		a.slow = append(a.slow, nil)
		a.counts = append(a.counts, 0)
	}
}

// fastDecimal is group g's fast sum as an apd decimal.
func (a *numericSumAcc) fastDecimal(g int) *apd.Decimal {
	sc := a.scale[g]
	if sc < 0 {
		sc = 0
	}
	d, _, err := apd.NewFromString(a.fast[g].text())
	if err != nil {
		return apd.New(0, 0)
	}
	d.Exponent -= sc
	return d
}

func (a *numericSumAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	b := array.NewStringBuilder(ctx.Allocator())
	defer b.Release()
	for g := 0; g < ngroups; g++ {
		if err := a.AppendFinal(ctx, g, b); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// AppendFinal appends group g's sum or average (FinalAppender).
func (a *numericSumAcc) AppendFinal(ctx *Ctx, g int, b array.Builder) error {
	if g >= len(a.counts) || a.counts[g] == 0 {
		b.AppendNull()
		return nil
	}
	s := a.slow[g]
	if s == nil {
		s = a.fastDecimal(g)
	}
	if a.avg {
		r, err := numDiv(s, apd.New(a.counts[g], 0))
		if err != nil {
			return err
		}
		s = r
	}
	appendText(b, formatNumeric(s))
	return nil
}

// parseScaledInt reads canonical numeric text ("-123.45") as 12345 and
// scale 2 when it has at most 18 digits; ok is false otherwise (NaN,
// Infinity, longer values).
func parseScaledInt(s string) (m int64, scale int32, ok bool) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	digits := 0
	seenDot := false
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if seenDot {
				return 0, 0, false
			}
			seenDot = true
			continue
		}
		if c < '0' || c > '9' {
			return 0, 0, false
		}
		if digits == 18 {
			return 0, 0, false
		}
		if m != 0 || c != '0' {
			digits++
		}
		m = m*10 + int64(c-'0')
		if seenDot {
			scale++
		}
	}
	if neg {
		m = -m
	}
	return m, scale, true
}

var pow10 = [...]int64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
	10000000000, 100000000000, 1000000000000, 10000000000000, 100000000000000, 1000000000000000,
	10000000000000000, 100000000000000000, 1000000000000000000}

// scaleUp multiplies m by 10^k, reporting overflow.
func scaleUp(m int64, k int32) (int64, bool) {
	if k < 0 || int(k) >= len(pow10) {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(abs64(m)), uint64(pow10[k]))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if m < 0 {
		return -int64(lo), true
	}
	return int64(lo), true
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// mulPow10 is x × 10^k; ok is false when it does not fit 127 bits and a
// sign.
func (x int128) mulPow10(k int32) (int128, bool) {
	if k < 0 || int(k) >= len(pow10) {
		return x, false
	}
	neg := x.hi < 0
	hi, lo := uint64(x.hi), x.lo
	if neg { // magnitude: two's complement
		lo = ^lo + 1
		hi = ^hi
		if lo == 0 {
			hi++
		}
	}
	m := uint64(pow10[k])
	carry, rlo := bits.Mul64(lo, m)
	over, rhi := bits.Mul64(hi, m)
	rhi, c := bits.Add64(rhi, carry, 0)
	if over != 0 || c != 0 || rhi>>63 != 0 {
		return x, false
	}
	if neg {
		rlo = ^rlo + 1
		rhi = ^rhi
		if rlo == 0 {
			rhi++
		}
	}
	return int128{hi: int64(rhi), lo: rlo}, true
}

// addChecked adds v unless the 128-bit sum would overflow.
func (x *int128) addChecked(v int64) bool {
	old := *x
	x.add(v)
	// Overflow flips the sign against both operands' signs.
	if (old.hi >= 0) == (v >= 0) && (x.hi >= 0) != (old.hi >= 0) {
		*x = old
		return false
	}
	return true
}

// intervalSumAcc is sum/avg over interval.
type intervalSumAcc struct {
	sums   []arrow.MonthDayNanoInterval
	counts []int64
	avg    bool
}

func (a *intervalSumAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	col := args[0].(*array.MonthDayNanoInterval)
	for i, g := range groups {
		a.sums = growTo(a.sums, g)
		a.counts = growTo(a.counts, g)
		if col.IsNull(i) {
			continue
		}
		r, err := addInterval(a.sums[g], col.Value(i))
		if err != nil {
			return err
		}
		a.sums[g] = r
		a.counts[g]++
	}
	return nil
}

func (a *intervalSumAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	b := array.NewMonthDayNanoIntervalBuilder(ctx.Allocator())
	defer b.Release()
	for g := 0; g < ngroups; g++ {
		if g >= len(a.counts) || a.counts[g] == 0 {
			b.AppendNull()
			continue
		}
		s := a.sums[g]
		if a.avg {
			r, err := intervalScale(s, float64(a.counts[g]), true)
			if err != nil {
				return nil, err
			}
			s = r
		}
		b.Append(s)
	}
	return b.NewArray(), nil
}

func init() {
	for _, avg := range []bool{false, true} {
		name := "sum"
		if avg {
			name = "avg"
		}
		avg := avg
		intRet := func(t types.T) types.T {
			if avg || t.OID == types.OidInt8 {
				return types.Numeric
			}
			return types.Int8
		}
		for _, t := range []types.T{types.Int2, types.Int4, types.Int8} {
			ret := intRet(t)
			RegisterAggregate(name, AggOverload{Args: []types.T{t}, Ret: ret, New: func(_ []types.T, ret types.T) Accumulator {
				return &intSumAcc{ret: ret, avg: avg}
			}})
		}
		f4ret := types.Float4
		if avg {
			f4ret = types.Float8
		}
		RegisterAggregate(name,
			AggOverload{Args: []types.T{types.Float4}, Ret: f4ret, New: func(_ []types.T, ret types.T) Accumulator { return &floatSumAcc{ret: ret, avg: avg} }},
			AggOverload{Args: []types.T{types.Float8}, Ret: types.Float8, New: func(_ []types.T, ret types.T) Accumulator { return &floatSumAcc{ret: ret, avg: avg} }},
			AggOverload{Args: []types.T{types.Numeric}, Ret: types.Numeric, New: func(_ []types.T, ret types.T) Accumulator { return &numericSumAcc{avg: avg} }},
			AggOverload{Args: []types.T{types.Interval}, Ret: types.Interval, New: func(_ []types.T, ret types.T) Accumulator { return &intervalSumAcc{avg: avg} }},
		)
	}
}
