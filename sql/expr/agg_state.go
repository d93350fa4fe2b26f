package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/apd/v3"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// StateAccumulator is an Accumulator whose per-group state can be written
// out as Arrow columns and read back: what a streaming aggregation puts in
// its state snapshot, so that a restart restores the groups instead of
// re-running the input that built them. Restoring and then folding more
// rows gives exactly what folding all rows into one accumulator gives.
//
// An accumulator that does not implement it (json_agg, whose per-group
// values are JSON trees) keeps its table on the re-run recovery path.
type StateAccumulator interface {
	Accumulator
	// SaveState returns the state of groups 0..ngroups-1, as columns of
	// ngroups rows each.
	SaveState(mem memory.Allocator, ngroups int) []arrow.Array
	// LoadState replaces the accumulator's state by columns SaveState
	// returned.
	LoadState(cols []arrow.Array) error
}

func stateCols(cols []arrow.Array, n int) error {
	if len(cols) != n {
		return sqlerr.New(sqlerr.DataCorrupted, "aggregate state snapshot has %d columns, expected %d", len(cols), n)
	}
	return nil
}

// numBuilder is the part of Arrow's Int64 and Float64 builders that
// saveNums uses.
type numBuilder[T int64 | float64] interface {
	Reserve(n int)
	UnsafeAppend(v T)
	NewArray() arrow.Array
	Release()
}

// saveNums writes vals padded with zeros to n values.
func saveNums[T int64 | float64](b numBuilder[T], vals []T, n int) arrow.Array {
	defer b.Release()
	b.Reserve(n)
	for g := 0; g < n; g++ {
		if g < len(vals) {
			b.UnsafeAppend(vals[g])
		} else {
			b.UnsafeAppend(0)
		}
	}
	return b.NewArray()
}

func saveInt64s(mem memory.Allocator, vals []int64, n int) arrow.Array {
	return saveNums[int64](array.NewInt64Builder(mem), vals, n)
}

func saveFloat64s(mem memory.Allocator, vals []float64, n int) arrow.Array {
	return saveNums[float64](array.NewFloat64Builder(mem), vals, n)
}

func loadInt64s(a arrow.Array) ([]int64, error) {
	c, ok := a.(*array.Int64)
	if !ok {
		return nil, sqlerr.New(sqlerr.DataCorrupted, "aggregate state snapshot: expected a bigint column, found %s", a.DataType())
	}
	return append([]int64(nil), c.Int64Values()...), nil
}

func loadFloat64s(a arrow.Array) ([]float64, error) {
	c, ok := a.(*array.Float64)
	if !ok {
		return nil, sqlerr.New(sqlerr.DataCorrupted, "aggregate state snapshot: expected a double precision column, found %s", a.DataType())
	}
	return append([]float64(nil), c.Float64Values()...), nil
}

// saveSeenInt64s writes values whose group saw none as NULL.
func saveSeenInt64s(mem memory.Allocator, vals []int64, seen []bool, n int) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for g := 0; g < n; g++ {
		if g < len(seen) && seen[g] {
			b.Append(vals[g])
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray()
}

func loadSeen(a arrow.Array) []bool {
	seen := make([]bool, a.Len())
	for g := range seen {
		seen[g] = a.IsValid(g)
	}
	return seen
}

func saveStrings(mem memory.Allocator, n int, at func(g int) (string, bool)) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	for g := 0; g < n; g++ {
		if s, ok := at(g); ok {
			b.Append(s)
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray()
}

func loadStrings(a arrow.Array) (*array.String, error) {
	c, ok := a.(*array.String)
	if !ok {
		return nil, sqlerr.New(sqlerr.DataCorrupted, "aggregate state snapshot: expected a text column, found %s", a.DataType())
	}
	return c, nil
}

// int128 sums are two bigint columns: the high word and the low word's bits.
func saveInt128s(mem memory.Allocator, vals []int128, n int) (hi, lo arrow.Array) {
	h := make([]int64, len(vals))
	l := make([]int64, len(vals))
	for i, v := range vals {
		h[i], l[i] = v.hi, int64(v.lo)
	}
	return saveInt64s(mem, h, n), saveInt64s(mem, l, n)
}

func loadInt128s(hi, lo arrow.Array) ([]int128, error) {
	h, err := loadInt64s(hi)
	if err != nil {
		return nil, err
	}
	l, err := loadInt64s(lo)
	if err != nil {
		return nil, err
	}
	out := make([]int128, len(h))
	for i := range out {
		out[i] = int128{hi: h[i], lo: uint64(l[i])}
	}
	return out, nil
}

// Decimals are saved in apd's text form, which reads back with the same
// coefficient and exponent.
func saveDecimals(mem memory.Allocator, vals []*apd.Decimal, n int) arrow.Array {
	return saveStrings(mem, n, func(g int) (string, bool) {
		if g < len(vals) && vals[g] != nil {
			return vals[g].String(), true
		}
		return "", false
	})
}

func loadDecimals(a arrow.Array) ([]*apd.Decimal, error) {
	c, err := loadStrings(a)
	if err != nil {
		return nil, err
	}
	out := make([]*apd.Decimal, c.Len())
	for g := range out {
		if c.IsNull(g) {
			continue
		}
		d, _, err := apd.NewFromString(c.Value(g))
		if err != nil {
			return nil, sqlerr.New(sqlerr.DataCorrupted, "aggregate state snapshot: bad numeric %q", c.Value(g))
		}
		out[g] = d
	}
	return out, nil
}

func (a *countAcc) SaveState(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{saveInt64s(mem, a.counts, n)}
}

func (a *countAcc) LoadState(cols []arrow.Array) (err error) {
	if err = stateCols(cols, 1); err == nil {
		a.counts, err = loadInt64s(cols[0])
	}
	return err
}

func (a *intSumAcc) SaveState(mem memory.Allocator, n int) []arrow.Array {
	hi, lo := saveInt128s(mem, a.sums, n)
	return []arrow.Array{hi, lo, saveInt64s(mem, a.counts, n)}
}

func (a *intSumAcc) LoadState(cols []arrow.Array) (err error) {
	if err = stateCols(cols, 3); err != nil {
		return err
	}
	if a.sums, err = loadInt128s(cols[0], cols[1]); err != nil {
		return err
	}
	a.counts, err = loadInt64s(cols[2])
	return err
}

func (a *floatSumAcc) SaveState(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{saveFloat64s(mem, a.sums, n), saveInt64s(mem, a.counts, n)}
}

func (a *floatSumAcc) LoadState(cols []arrow.Array) (err error) {
	if err = stateCols(cols, 2); err != nil {
		return err
	}
	if a.sums, err = loadFloat64s(cols[0]); err != nil {
		return err
	}
	a.counts, err = loadInt64s(cols[1])
	return err
}

func (a *numericSumAcc) SaveState(mem memory.Allocator, n int) []arrow.Array {
	a.grow(n)
	hi, lo := saveInt128s(mem, a.fast, n)
	scales := make([]int64, n)
	for g := range scales {
		scales[g] = int64(a.scale[g])
	}
	return []arrow.Array{hi, lo, saveInt64s(mem, scales, n), saveDecimals(mem, a.slow, n), saveInt64s(mem, a.counts, n)}
}

func (a *numericSumAcc) LoadState(cols []arrow.Array) (err error) {
	if err = stateCols(cols, 5); err != nil {
		return err
	}
	if a.fast, err = loadInt128s(cols[0], cols[1]); err != nil {
		return err
	}
	scales, err := loadInt64s(cols[2])
	if err != nil {
		return err
	}
	a.scale = make([]int32, len(scales))
	for g, s := range scales {
		a.scale[g] = int32(s)
	}
	if a.slow, err = loadDecimals(cols[3]); err != nil {
		return err
	}
	a.counts, err = loadInt64s(cols[4])
	return err
}

func (a *intervalSumAcc) SaveState(mem memory.Allocator, n int) []arrow.Array {
	b := array.NewMonthDayNanoIntervalBuilder(mem)
	defer b.Release()
	for g := 0; g < n; g++ {
		if g < len(a.sums) {
			b.Append(a.sums[g])
		} else {
			b.Append(arrow.MonthDayNanoInterval{})
		}
	}
	return []arrow.Array{b.NewArray(), saveInt64s(mem, a.counts, n)}
}

func (a *intervalSumAcc) LoadState(cols []arrow.Array) (err error) {
	if err = stateCols(cols, 2); err != nil {
		return err
	}
	c, ok := cols[0].(*array.MonthDayNanoInterval)
	if !ok {
		return sqlerr.New(sqlerr.DataCorrupted, "aggregate state snapshot: expected an interval column")
	}
	a.sums = append([]arrow.MonthDayNanoInterval(nil), c.MonthDayNanoIntervalValues()...)
	a.counts, err = loadInt64s(cols[1])
	return err
}

func (a *intMinMaxAcc) SaveState(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{saveSeenInt64s(mem, a.vals, a.seen, n)}
}

func (a *intMinMaxAcc) LoadState(cols []arrow.Array) (err error) {
	if err = stateCols(cols, 1); err != nil {
		return err
	}
	if a.vals, err = loadInt64s(cols[0]); err != nil {
		return err
	}
	a.seen = loadSeen(cols[0])
	return nil
}

func (a *floatMinMaxAcc) SaveState(mem memory.Allocator, n int) []arrow.Array {
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	for g := 0; g < n; g++ {
		if g < len(a.seen) && a.seen[g] {
			b.Append(a.vals[g])
		} else {
			b.AppendNull()
		}
	}
	return []arrow.Array{b.NewArray()}
}

func (a *floatMinMaxAcc) LoadState(cols []arrow.Array) (err error) {
	if err = stateCols(cols, 1); err != nil {
		return err
	}
	if a.vals, err = loadFloat64s(cols[0]); err != nil {
		return err
	}
	a.seen = loadSeen(cols[0])
	return nil
}

func (a *stringMinMaxAcc) SaveState(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{saveStrings(mem, n, func(g int) (string, bool) {
		if g < len(a.seen) && a.seen[g] {
			return a.vals[g], true
		}
		return "", false
	})}
}

func (a *stringMinMaxAcc) LoadState(cols []arrow.Array) error {
	if err := stateCols(cols, 1); err != nil {
		return err
	}
	c, err := loadStrings(cols[0])
	if err != nil {
		return err
	}
	a.vals = make([]string, c.Len())
	for g := range a.vals {
		if c.IsValid(g) {
			a.vals[g] = strings.Clone(c.Value(g))
		}
	}
	a.seen = loadSeen(c)
	return nil
}

func (a *datumMinMaxAcc) SaveState(mem memory.Allocator, n int) []arrow.Array {
	vals := make([]Datum, n)
	copy(vals, a.vals)
	return []arrow.Array{ArrayFromDatums(mem, a.t, vals)}
}

func (a *datumMinMaxAcc) LoadState(cols []arrow.Array) error {
	if err := stateCols(cols, 1); err != nil {
		return err
	}
	a.vals = datumsOf(cols[0])
	return nil
}

func datumsOf(a arrow.Array) []Datum {
	out := make([]Datum, a.Len())
	for g := range out {
		out[g] = DatumAt(a, g)
	}
	return out
}

func (a *boolAcc) SaveState(mem memory.Allocator, n int) []arrow.Array {
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	for g := 0; g < n; g++ {
		if g < len(a.seen) && a.seen[g] {
			b.Append(a.vals[g])
		} else {
			b.AppendNull()
		}
	}
	return []arrow.Array{b.NewArray()}
}

func (a *boolAcc) LoadState(cols []arrow.Array) error {
	if err := stateCols(cols, 1); err != nil {
		return err
	}
	c, ok := cols[0].(*array.Boolean)
	if !ok {
		return sqlerr.New(sqlerr.DataCorrupted, "aggregate state snapshot: expected a boolean column")
	}
	a.vals = make([]bool, c.Len())
	for g := range a.vals {
		a.vals[g] = c.IsValid(g) && c.Value(g)
	}
	a.seen = loadSeen(c)
	return nil
}

func (a *stringAggAcc) SaveState(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{saveStrings(mem, n, func(g int) (string, bool) {
		if g < len(a.bufs) && a.bufs[g] != nil {
			return a.bufs[g].String(), true
		}
		return "", false
	})}
}

func (a *stringAggAcc) LoadState(cols []arrow.Array) error {
	if err := stateCols(cols, 1); err != nil {
		return err
	}
	c, err := loadStrings(cols[0])
	if err != nil {
		return err
	}
	a.bufs = make([]*strings.Builder, c.Len())
	for g := range a.bufs {
		if c.IsValid(g) {
			a.bufs[g] = &strings.Builder{}
			a.bufs[g].WriteString(c.Value(g))
		}
	}
	return nil
}

// array_agg's state is the array so far (its result), NULL before a row.
func (a *arrayAggAcc) SaveState(mem memory.Allocator, n int) []arrow.Array {
	vals := make([]Datum, n)
	for g := range vals {
		if g < len(a.seen) && a.seen[g] {
			vals[g] = a.vals[g]
		}
	}
	return []arrow.Array{ArrayFromDatums(mem, a.ret, vals)}
}

func (a *arrayAggAcc) LoadState(cols []arrow.Array) error {
	if err := stateCols(cols, 1); err != nil {
		return err
	}
	ds := datumsOf(cols[0])
	a.vals = make([][]Datum, len(ds))
	a.seen = make([]bool, len(ds))
	for g, d := range ds {
		if d == nil {
			continue
		}
		elems, ok := d.([]Datum)
		if !ok {
			return sqlerr.New(sqlerr.DataCorrupted, "aggregate state snapshot: expected an array, found %T", d)
		}
		a.vals[g], a.seen[g] = elems, true
	}
	return nil
}

func (a *floatVarAcc) SaveState(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{saveFloat64s(mem, a.n, n), saveFloat64s(mem, a.sx, n), saveFloat64s(mem, a.sxx, n)}
}

func (a *floatVarAcc) LoadState(cols []arrow.Array) (err error) {
	if err = stateCols(cols, 3); err != nil {
		return err
	}
	if a.n, err = loadFloat64s(cols[0]); err != nil {
		return err
	}
	if a.sx, err = loadFloat64s(cols[1]); err != nil {
		return err
	}
	a.sxx, err = loadFloat64s(cols[2])
	return err
}

func (a *numericVarAcc) SaveState(mem memory.Allocator, n int) []arrow.Array {
	return []arrow.Array{saveInt64s(mem, a.n, n), saveDecimals(mem, a.sx, n), saveDecimals(mem, a.sxx, n)}
}

func (a *numericVarAcc) LoadState(cols []arrow.Array) (err error) {
	if err = stateCols(cols, 3); err != nil {
		return err
	}
	if a.n, err = loadInt64s(cols[0]); err != nil {
		return err
	}
	if a.sx, err = loadDecimals(cols[1]); err != nil {
		return err
	}
	a.sxx, err = loadDecimals(cols[2])
	return err
}

// compile-time checks: every accumulator but json_agg's snapshots.
var (
	_ StateAccumulator = (*countAcc)(nil)
	_ StateAccumulator = (*intSumAcc)(nil)
	_ StateAccumulator = (*floatSumAcc)(nil)
	_ StateAccumulator = (*numericSumAcc)(nil)
	_ StateAccumulator = (*intervalSumAcc)(nil)
	_ StateAccumulator = (*intMinMaxAcc)(nil)
	_ StateAccumulator = (*floatMinMaxAcc)(nil)
	_ StateAccumulator = (*stringMinMaxAcc)(nil)
	_ StateAccumulator = (*datumMinMaxAcc)(nil)
	_ StateAccumulator = (*boolAcc)(nil)
	_ StateAccumulator = (*stringAggAcc)(nil)
	_ StateAccumulator = (*arrayAggAcc)(nil)
	_ StateAccumulator = (*floatVarAcc)(nil)
	_ StateAccumulator = (*numericVarAcc)(nil)
)

// AggregateSnapshots reports whether the accumulators of a resolved
// aggregate can be saved in a state snapshot.
func AggregateSnapshots(r *ResolvedAgg) bool {
	if r == nil || r.Overload == nil || r.Overload.New == nil {
		return false
	}
	_, ok := r.Overload.New(r.ArgTypes, r.Ret).(StateAccumulator)
	return ok
}
