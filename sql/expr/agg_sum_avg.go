package expr

import (
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
		if g >= len(a.counts) || a.counts[g] == 0 {
			b.AppendNull()
			continue
		}
		s := a.sums[g]
		switch {
		case a.avg:
			r, err := numDiv(mustNumeric(s.text()), apd.New(a.counts[g], 0))
			if err != nil {
				return nil, err
			}
			AppendDatum(b, formatNumeric(r))
		case a.ret.OID == types.OidInt8:
			if !((s.hi == 0 && s.lo>>63 == 0) || (s.hi == -1 && s.lo>>63 == 1)) {
				return nil, errIntOutOfRange(types.OidInt8)
			}
			AppendDatum(b, int64(s.lo))
		default:
			AppendDatum(b, s.text())
		}
	}
	return b.NewArray(), nil
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
		if g >= len(a.counts) || a.counts[g] == 0 {
			b.AppendNull()
			continue
		}
		if a.avg {
			AppendDatum(b, a.sums[g]/float64(a.counts[g]))
		} else {
			AppendDatum(b, a.sums[g])
		}
	}
	return b.NewArray(), nil
}

// numericSumAcc is sum/avg over numeric.
type numericSumAcc struct {
	sums   []*apd.Decimal
	counts []int64
	avg    bool
}

func (a *numericSumAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	col := args[0].(*array.String)
	for i, g := range groups {
		a.sums = growTo(a.sums, g)
		a.counts = growTo(a.counts, g)
		if col.IsNull(i) {
			continue
		}
		x, err := parseNumeric(col.Value(i))
		if err != nil {
			return err
		}
		if a.sums[g] == nil {
			a.sums[g] = x
		} else {
			r, err := numAdd(a.sums[g], x)
			if err != nil {
				return err
			}
			a.sums[g] = r
		}
		a.counts[g]++
	}
	return nil
}

func (a *numericSumAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	b := array.NewStringBuilder(ctx.Allocator())
	defer b.Release()
	for g := 0; g < ngroups; g++ {
		if g >= len(a.counts) || a.counts[g] == 0 {
			b.AppendNull()
			continue
		}
		s := a.sums[g]
		if a.avg {
			r, err := numDiv(s, apd.New(a.counts[g], 0))
			if err != nil {
				return nil, err
			}
			s = r
		}
		b.Append(formatNumeric(s))
	}
	return b.NewArray(), nil
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
