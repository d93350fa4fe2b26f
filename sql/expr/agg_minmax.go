package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/types"
)

// min and max.

// intMinMaxAcc handles every type stored as integers (ints, oid, date,
// time, timestamps).
type intMinMaxAcc struct {
	vals []int64
	seen []bool
	max  bool
	t    types.T
	buf  []int64
}

func (a *intMinMaxAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	col := args[0]
	a.buf = intValues(col, a.buf)
	vals := a.buf
	hasNulls := col.NullN() > 0
	for i, g := range groups {
		a.vals = growTo(a.vals, g)
		a.seen = growTo(a.seen, g)
		if hasNulls && col.IsNull(i) {
			continue
		}
		v := vals[i]
		if !a.seen[g] || (a.max && v > a.vals[g]) || (!a.max && v < a.vals[g]) {
			a.vals[g], a.seen[g] = v, true
		}
	}
	return nil
}

func (a *intMinMaxAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	b := NewBuilder(ctx.Allocator(), a.t)
	defer b.Release()
	for g := 0; g < ngroups; g++ {
		_ = a.AppendFinal(ctx, g, b)
	}
	return b.NewArray(), nil
}

// AppendFinal appends group g's extreme (FinalAppender).
func (a *intMinMaxAcc) AppendFinal(ctx *Ctx, g int, b array.Builder) error {
	if g >= len(a.seen) || !a.seen[g] {
		b.AppendNull()
		return nil
	}
	if ib, ok := b.(*array.Int64Builder); ok {
		ib.Append(a.vals[g])
		return nil
	}
	AppendDatum(b, a.vals[g])
	return nil
}

type floatMinMaxAcc struct {
	vals []float64
	seen []bool
	max  bool
	t    types.T
	buf  []float64
}

func (a *floatMinMaxAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	col := args[0]
	a.buf = floatValues(col, a.buf)
	vals := a.buf
	hasNulls := col.NullN() > 0
	for i, g := range groups {
		a.vals = growTo(a.vals, g)
		a.seen = growTo(a.seen, g)
		if hasNulls && col.IsNull(i) {
			continue
		}
		v := vals[i]
		if !a.seen[g] {
			a.vals[g], a.seen[g] = v, true
			continue
		}
		c := cmpFloat(v, a.vals[g])
		if (a.max && c > 0) || (!a.max && c < 0) {
			a.vals[g] = v
		}
	}
	return nil
}

func (a *floatMinMaxAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	b := NewBuilder(ctx.Allocator(), a.t)
	defer b.Release()
	for g := 0; g < ngroups; g++ {
		_ = a.AppendFinal(ctx, g, b)
	}
	return b.NewArray(), nil
}

// AppendFinal appends group g's extreme (FinalAppender).
func (a *floatMinMaxAcc) AppendFinal(ctx *Ctx, g int, b array.Builder) error {
	if g >= len(a.seen) || !a.seen[g] {
		b.AppendNull()
		return nil
	}
	if tb, ok := b.(*array.Float64Builder); ok {
		tb.Append(a.vals[g])
		return nil
	}
	AppendDatum(b, a.vals[g])
	return nil
}

// stringMinMaxAcc handles text-like types and numeric (by cmp).
type stringMinMaxAcc struct {
	vals []string
	seen []bool
	max  bool
	t    types.T
	cmp  func(a, b string) int
}

func (a *stringMinMaxAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	col := args[0].(*array.String)
	for i, g := range groups {
		a.vals = growTo(a.vals, g)
		a.seen = growTo(a.seen, g)
		if col.IsNull(i) {
			continue
		}
		v := col.Value(i)
		if !a.seen[g] {
			a.vals[g], a.seen[g] = strings.Clone(v), true
			continue
		}
		c := a.cmp(v, a.vals[g])
		if (a.max && c > 0) || (!a.max && c < 0) {
			a.vals[g] = strings.Clone(v)
		}
	}
	return nil
}

func (a *stringMinMaxAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	b := NewBuilder(ctx.Allocator(), a.t)
	defer b.Release()
	for g := 0; g < ngroups; g++ {
		_ = a.AppendFinal(ctx, g, b)
	}
	return b.NewArray(), nil
}

// AppendFinal appends group g's extreme (FinalAppender).
func (a *stringMinMaxAcc) AppendFinal(ctx *Ctx, g int, b array.Builder) error {
	if g >= len(a.seen) || !a.seen[g] {
		b.AppendNull()
		return nil
	}
	if tb, ok := b.(*array.StringBuilder); ok {
		tb.Append(a.vals[g])
		return nil
	}
	AppendDatum(b, a.vals[g])
	return nil
}

// datumMinMaxAcc is the generic fallback (interval, uuid, ...).
type datumMinMaxAcc struct {
	vals []Datum
	max  bool
	t    types.T
	cmp  func(a, b arrow.Array, i int) int
}

func (a *datumMinMaxAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	col := args[0]
	for i, g := range groups {
		a.vals = growTo(a.vals, g)
		if col.IsNull(i) {
			continue
		}
		if a.vals[g] == nil {
			a.vals[g] = DatumAt(col, i)
			continue
		}
		cur := ArrayFromDatums(ctx.Allocator(), a.t, []Datum{a.vals[g]})
		one := array.NewSlice(col, int64(i), int64(i+1))
		c := a.cmp(one, cur, 0)
		one.Release()
		cur.Release()
		if (a.max && c > 0) || (!a.max && c < 0) {
			a.vals[g] = DatumAt(col, i)
		}
	}
	return nil
}

func (a *datumMinMaxAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	out := make([]Datum, ngroups)
	copy(out, a.vals)
	return ArrayFromDatums(ctx.Allocator(), a.t, out), nil
}

func init() {
	for _, isMax := range []bool{false, true} {
		name := "min"
		if isMax {
			name = "max"
		}
		isMax := isMax
		for _, t := range []types.T{types.Int2, types.Int4, types.Int8, types.Oid, types.Date, types.Time, types.Timestamp, types.TimestampTZ} {
			RegisterAggregate(name, AggOverload{Args: []types.T{t}, Ret: t, New: func(args []types.T, ret types.T) Accumulator {
				return &intMinMaxAcc{max: isMax, t: ret}
			}})
		}
		for _, t := range []types.T{types.Float4, types.Float8} {
			RegisterAggregate(name, AggOverload{Args: []types.T{t}, Ret: t, New: func(args []types.T, ret types.T) Accumulator {
				return &floatMinMaxAcc{max: isMax, t: ret}
			}})
		}
		RegisterAggregate(name,
			AggOverload{Args: []types.T{types.Text}, Ret: types.Text, New: func(args []types.T, ret types.T) Accumulator {
				return &stringMinMaxAcc{max: isMax, t: ret, cmp: strings.Compare}
			}},
			AggOverload{Args: []types.T{types.Bpchar}, Ret: types.Bpchar, New: func(args []types.T, ret types.T) Accumulator {
				return &stringMinMaxAcc{max: isMax, t: ret, cmp: func(a, b string) int {
					return strings.Compare(strings.TrimRight(a, " "), strings.TrimRight(b, " "))
				}}
			}},
			AggOverload{Args: []types.T{types.Numeric}, Ret: types.Numeric, New: func(args []types.T, ret types.T) Accumulator {
				return &stringMinMaxAcc{max: isMax, t: ret, cmp: cmpNumericText}
			}},
			AggOverload{Args: []types.T{types.Interval}, Ret: types.Interval, New: func(args []types.T, ret types.T) Accumulator {
				return &datumMinMaxAcc{max: isMax, t: ret, cmp: cmpIntervalRow}
			}},
		)
	}
}
