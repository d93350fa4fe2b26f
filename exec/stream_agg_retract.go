package exec

import (
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// RetractingAggregate is a GROUP BY over a changelog (or an append-only
// input it never forgets): every group is kept, an inserted row adds to
// its group's aggregates and a deleted row subtracts what it added. count
// and sum count and sum (integers in 128 bits, numerics exactly, with a
// count per scale so that the sum's scale is the largest of the values
// still in it, as PostgreSQL's is), avg divides them when emitted, and
// min and max keep each group's multiset of values in order, so that a
// deleted extreme falls back to the next value.
//
// Changes are folded as they are pushed; Emit emits, once per epoch, each
// changed group's old row (a delete) and new row (an insert), a group
// whose last row was deleted as a delete only. Without GROUP BY the one
// group always has a row (count 0 over no rows), as PostgreSQL's.
//
// The state is every group with rows: it is bounded only by the number of
// keys (the planner warns).
type RetractingAggregate struct {
	GroupBy []expr.Expr
	Aggs    []planner.AggCall
	Cols    []planner.Column // output: the GROUP BY values, then one per aggregate
	// AppendOnly: the input never deletes (a GROUP BY without a window
	// over a stream): min and max keep only the extreme, not every value.
	AppendOnly bool

	groups  map[string]*retractGroup
	dirty   []*retractGroup
	kinds   []planner.RetractKind
	schema  *arrow.Schema
	wm      int64
	keyBuf  []byte
	vecs    []colVec // min/max and numeric arguments of the batch being pushed
	div     *expr.Resolved
	pushed  bool  // any row ever pushed (MinEpoch)
	bytes   int64 // the groups' estimated bytes, brought up to date by Emit
	started bool
}

// retractGroup is one group's key, row count, aggregate states and the
// row last emitted for it.
type retractGroup struct {
	key     string
	vals    []expr.Datum
	rows    int64
	aggs    []retractCell
	emitted []expr.Datum
	dirty   bool
	bytes   int64 // its estimate in RetractingAggregate.bytes
}

// retractCell is one aggregate's state in a group; which fields it uses
// depends on the aggregate's RetractKind.
type retractCell struct {
	n      int64   // non-NULL values (rows for count(*))
	hi     int64   // int sums: the high word of 128 bits
	lo     uint64  // and the low word
	f      float64 // float sums: the finite values' sum
	finite int64   // float and numeric sums: finite values
	nan    int64
	pinf   int64
	ninf   int64
	dec    apd.Decimal   // numeric sums: the finite values' exact sum
	scales []scaleCount  // numeric sums: values per display scale
	set    []multisetVal // min/max: distinct values in order with their counts
	setB   int64         // the values' estimated bytes
}

type scaleCount struct {
	scale int32
	n     int64
}

type multisetVal struct {
	v sortVal
	d expr.Datum
	n int64
}

func (m *multisetVal) bytes() int64 {
	return int64(unsafe.Sizeof(multisetVal{})) + datumBytes(m.d) + int64(len(m.v.s))
}

var _ StreamOperator = (*RetractingAggregate)(nil)

func (a *RetractingAggregate) init() error {
	if a.started {
		return nil
	}
	a.started = true
	a.groups = map[string]*retractGroup{}
	a.wm = math.MinInt64
	a.schema = planner.Schema(a.Cols)
	a.kinds = make([]planner.RetractKind, len(a.Aggs))
	for i := range a.Aggs {
		k, err := planner.RetractKindOf(&a.Aggs[i], !a.AppendOnly)
		if err != nil {
			return err
		}
		a.kinds[i] = k
	}
	a.vecs = make([]colVec, len(a.Aggs))
	div, err := expr.ResolveScalar("/", []types.T{types.Numeric, types.Numeric})
	if err != nil {
		return err
	}
	a.div = div
	if len(a.GroupBy) == 0 {
		g := a.newGroup("", nil)
		a.markDirty(g)
	}
	return nil
}

func (a *RetractingAggregate) newGroup(key string, vals []expr.Datum) *retractGroup {
	g := &retractGroup{key: key, vals: vals, aggs: make([]retractCell, len(a.Aggs))}
	a.groups[key] = g
	return g
}

func (a *RetractingAggregate) markDirty(g *retractGroup) {
	if !g.dirty {
		g.dirty = true
		a.dirty = append(a.dirty, g)
	}
}

// Inputs is 1.
func (a *RetractingAggregate) Inputs() int { return 1 }

// Push folds the changes into their groups.
func (a *RetractingAggregate) Push(sc *StreamCtx, _ int, c ChangeBatch) error {
	if err := a.init(); err != nil {
		return err
	}
	b := c.Rows
	n := int(b.NumRows())
	if n == 0 {
		return nil
	}
	a.pushed = true
	ectx := sc.Expr
	keys, err := evalAll(ectx, a.GroupBy, b)
	if err != nil {
		return err
	}
	args := make([]arrow.Array, len(a.Aggs))
	filters := make([]*array.Boolean, len(a.Aggs))
	for k := range a.Aggs {
		call := &a.Aggs[k]
		if len(call.Args) > 0 {
			if args[k], err = call.Args[0].Eval(ectx, b); err != nil {
				return err
			}
			switch a.kinds[k] {
			case planner.RetractMinMax, planner.RetractSumNumeric:
				a.vecs[k].load(args[k], call.Args[0].Type(), true)
			}
		}
		if call.Filter != nil {
			arr, err := call.Filter.Eval(ectx, b)
			if err != nil {
				return err
			}
			if filters[k], _ = arr.(*array.Boolean); filters[k] == nil {
				return sqlerr.New(sqlerr.DatatypeMismatch, "argument of FILTER must be type boolean")
			}
		}
	}
	for i := 0; i < n; i++ {
		d := int64(ChangeInsert)
		if c.Diff != nil {
			d = int64(c.Diff[i])
		}
		a.keyBuf = appendRowKey(a.keyBuf[:0], keys, i)
		g := a.groups[string(a.keyBuf)]
		if g == nil {
			if d < 0 {
				return sqlerr.New(sqlerr.InternalError, "streaming aggregation: a delete of a row its group never had")
			}
			vals := make([]expr.Datum, len(keys))
			for c, k := range keys {
				vals[c] = ownedDatum(k, i)
			}
			g = a.newGroup(string(a.keyBuf), vals)
		}
		a.markDirty(g)
		g.rows += d
		for k := range a.Aggs {
			if f := filters[k]; f != nil && (f.IsNull(i) || !f.Value(i)) {
				continue
			}
			if err := a.fold(&g.aggs[k], k, args[k], i, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// fold adds (d = 1) or subtracts (d = -1) row i of arg into cell.
func (a *RetractingAggregate) fold(cell *retractCell, k int, arg arrow.Array, i int, d int64) error {
	if arg == nil { // count(*)
		cell.n += d
		return nil
	}
	if arg.IsNull(i) {
		return nil
	}
	cell.n += d
	switch a.kinds[k] {
	case planner.RetractSumInt:
		var v int64
		switch x := arg.(type) {
		case *array.Int64:
			v = x.Value(i)
		case *array.Int32:
			v = int64(x.Value(i))
		case *array.Int16:
			v = int64(x.Value(i))
		}
		var borrow uint64
		if d > 0 {
			cell.lo, borrow = bits.Add64(cell.lo, uint64(v), 0)
			cell.hi += int64(borrow) + (v >> 63)
		} else {
			cell.lo, borrow = bits.Sub64(cell.lo, uint64(v), 0)
			cell.hi -= int64(borrow) + (v >> 63)
		}
	case planner.RetractSumFloat:
		var v float64
		switch x := arg.(type) {
		case *array.Float64:
			v = x.Value(i)
		case *array.Float32:
			v = float64(x.Value(i))
		}
		switch {
		case math.IsNaN(v):
			cell.nan += d
		case math.IsInf(v, 1):
			cell.pinf += d
		case math.IsInf(v, -1):
			cell.ninf += d
		default:
			cell.finite += d
			cell.f += float64(d) * v
			if cell.finite == 0 {
				cell.f = 0 // no drift left behind by values that all went
			}
		}
	case planner.RetractSumNumeric:
		v := &a.vecs[k].decs[i]
		switch v.Form {
		case apd.NaN, apd.NaNSignaling:
			cell.nan += d
		case apd.Infinite:
			if v.Negative {
				cell.ninf += d
			} else {
				cell.pinf += d
			}
		default:
			cell.finite += d
			var err error
			if d > 0 {
				_, err = numericCtx.Add(&cell.dec, &cell.dec, v)
			} else {
				_, err = numericCtx.Sub(&cell.dec, &cell.dec, v)
			}
			if err != nil {
				return sqlerr.New(sqlerr.NumericValueOutOfRange, "value overflows numeric format")
			}
			cell.countScale(max(-v.Exponent, 0), d)
		}
	case planner.RetractMinMax:
		if a.AppendOnly {
			return cell.foldExtreme(&a.vecs[k], arg, i, d, a.Aggs[k].Name == "min")
		}
		return cell.foldValue(&a.vecs[k], arg, i, d)
	}
	return nil
}

// foldExtreme keeps in the multiset only the least (min) or greatest
// value: over an append-only input no value is ever deleted.
func (cell *retractCell) foldExtreme(v *colVec, arg arrow.Array, i int, d int64, least bool) error {
	if d < 0 {
		return sqlerr.New(sqlerr.InternalError, "streaming aggregation: a delete from an append-only input")
	}
	if len(cell.set) > 0 {
		r := v.compareVal(i, &cell.set[0].v)
		if r == 0 || (r > 0) == least {
			cell.set[0].n++
			return nil
		}
	}
	cell.set = append(cell.set[:0], multisetVal{v: v.sortValAt(i), d: ownedDatum(arg, i), n: 1})
	cell.setB = cell.set[0].bytes()
	return nil
}

// numericCtx adds exactly: the precision is far past any sum's digits.
var numericCtx = apd.Context{Precision: 2000, MaxExponent: apd.MaxExponent, MinExponent: apd.MinExponent, Traps: apd.DefaultTraps}

func (cell *retractCell) countScale(scale int32, d int64) {
	for j := range cell.scales {
		if cell.scales[j].scale == scale {
			cell.scales[j].n += d
			if cell.scales[j].n == 0 {
				cell.scales = slices.Delete(cell.scales, j, j+1)
			}
			return
		}
	}
	cell.scales = append(cell.scales, scaleCount{scale: scale, n: d})
}

// foldValue adds or removes one occurrence of row i of v in the multiset.
func (cell *retractCell) foldValue(v *colVec, arg arrow.Array, i int, d int64) error {
	j, found := slices.BinarySearchFunc(cell.set, i, func(m multisetVal, i int) int { return -v.compareVal(i, &m.v) })
	if d > 0 {
		if found {
			cell.set[j].n++
			return nil
		}
		cell.set = slices.Insert(cell.set, j, multisetVal{v: v.sortValAt(i), d: ownedDatum(arg, i), n: 1})
		cell.setB += cell.set[j].bytes()
		return nil
	}
	if !found {
		return sqlerr.New(sqlerr.InternalError, "streaming aggregation: a delete of a value its group never had")
	}
	if cell.set[j].n--; cell.set[j].n == 0 {
		cell.setB -= cell.set[j].bytes()
		cell.set = slices.Delete(cell.set, j, j+1)
	}
	return nil
}

// ownedDatum is element i of arr as a value that holds no reference to
// the batch (a string is copied), for state kept past the batch.
func ownedDatum(arr arrow.Array, i int) expr.Datum {
	d := expr.DatumAt(arr, i)
	if s, ok := d.(string); ok {
		return strings.Clone(s)
	}
	return d
}

// Advance passes the watermark on: no row waits for it.
func (a *RetractingAggregate) Advance(sc *StreamCtx, _ int, watermark int64) error {
	if err := a.init(); err != nil {
		return err
	}
	a.wm = max(a.wm, watermark)
	return nil
}

// Emit emits the changed groups' old and new rows.
func (a *RetractingAggregate) Emit(sc *StreamCtx) ([]ChangeBatch, error) {
	if err := a.init(); err != nil {
		return nil, err
	}
	if len(a.dirty) == 0 {
		return nil, nil
	}
	dirty := a.dirty
	a.dirty = nil
	live := dirty[:0:0]
	ob := newChangeBuilder(sc, a.schema)
	for _, g := range dirty {
		g.dirty = false
		if g.rows < 0 {
			return nil, sqlerr.New(sqlerr.InternalError, "streaming aggregation: a group has more deletes than rows")
		}
		if g.rows == 0 && len(a.GroupBy) > 0 {
			if g.emitted != nil {
				ob.add(ChangeDelete, g.emitted, 0)
			}
			delete(a.groups, g.key)
			a.bytes -= g.bytes
			continue
		}
		live = append(live, g)
	}
	rows, err := a.finalRows(sc, live)
	if err != nil {
		return nil, err
	}
	for j, g := range live {
		if g.emitted == nil || !datumsIdentical(g.emitted, rows[j]) {
			if g.emitted != nil {
				ob.add(ChangeDelete, g.emitted, 0)
			}
			ob.add(ChangeInsert, rows[j], 0)
			g.emitted = rows[j]
		}
		a.updateBytes(g)
	}
	if cb, ok := ob.finish(); ok {
		return []ChangeBatch{cb}, nil
	}
	return nil, nil
}

// finalRows computes the output rows of groups: their key values, then
// each aggregate's value, column by column (an average of integers or
// numerics is one numeric division over all the groups).
func (a *RetractingAggregate) finalRows(sc *StreamCtx, groups []*retractGroup) ([][]expr.Datum, error) {
	nk := len(a.GroupBy)
	rows := make([][]expr.Datum, len(groups))
	for j, g := range groups {
		rows[j] = make([]expr.Datum, nk+len(a.Aggs))
		copy(rows[j], g.vals)
	}
	if len(groups) == 0 {
		return rows, nil
	}
	for k := range a.Aggs {
		call := &a.Aggs[k]
		ret := call.Agg.Ret
		avg := call.Name == "avg"
		var num, den []expr.Datum // avg of integers and numerics: sum / count
		for j, g := range groups {
			cell := &g.aggs[k]
			var v expr.Datum
			switch a.kinds[k] {
			case planner.RetractCount:
				v = cell.n
			case planner.RetractSumInt:
				if cell.n == 0 {
					break
				}
				fits := (cell.hi == 0 && cell.lo>>63 == 0) || (cell.hi == -1 && cell.lo>>63 == 1)
				switch {
				case avg:
					num, den = append(num, int128Text(cell.hi, cell.lo)), append(den, strconv.FormatInt(cell.n, 10))
					continue
				case ret.OID == types.OidInt8:
					if !fits {
						return nil, sqlerr.New(sqlerr.NumericValueOutOfRange, "bigint out of range")
					}
					v = int64(cell.lo)
				default:
					v = int128Text(cell.hi, cell.lo)
				}
			case planner.RetractSumFloat:
				if cell.n == 0 {
					break
				}
				s := cell.f
				switch {
				case cell.nan > 0 || cell.pinf > 0 && cell.ninf > 0:
					s = math.NaN()
				case cell.pinf > 0:
					s = math.Inf(1)
				case cell.ninf > 0:
					s = math.Inf(-1)
				}
				if avg {
					s /= float64(cell.n)
				}
				v = s
			case planner.RetractSumNumeric:
				if cell.n == 0 {
					break
				}
				s := cell.numericSum()
				if avg && cell.nan == 0 && cell.pinf == 0 && cell.ninf == 0 {
					num, den = append(num, s), append(den, strconv.FormatInt(cell.n, 10))
					continue
				}
				v = s // NaN and infinities divided by a count are themselves
			case planner.RetractMinMax:
				if len(cell.set) == 0 {
					break
				}
				if call.Name == "min" {
					v = cell.set[0].d
				} else {
					v = cell.set[len(cell.set)-1].d
				}
			}
			rows[j][nk+k] = v
		}
		if num != nil {
			quot, err := a.divide(sc, num, den)
			if err != nil {
				return nil, err
			}
			q := 0
			for j, g := range groups {
				if rows[j][nk+k] == nil && g.aggs[k].n > 0 {
					rows[j][nk+k] = quot[q]
					q++
				}
			}
		}
	}
	return rows, nil
}

// divide is num[i] / den[i] for numeric texts, as PostgreSQL's numeric
// division (and so its avg) computes it.
func (a *RetractingAggregate) divide(sc *StreamCtx, num, den []expr.Datum) ([]expr.Datum, error) {
	mem := sc.Expr.Allocator()
	x := expr.ArrayFromDatums(mem, types.Numeric, num)
	y := expr.ArrayFromDatums(mem, types.Numeric, den)
	r, err := a.div.Overload.Impl(sc.Expr, []arrow.Array{x, y}, len(num))
	if err != nil {
		return nil, err
	}
	out := make([]expr.Datum, len(num))
	for i := range out {
		out[i] = expr.DatumAt(r, i)
	}
	return out, nil
}

// numericSum is the sum's text at the largest scale among the values in
// it, NaN or an infinity if those are in it.
func (cell *retractCell) numericSum() string {
	switch {
	case cell.nan > 0 || cell.pinf > 0 && cell.ninf > 0:
		return "NaN"
	case cell.pinf > 0:
		return "Infinity"
	case cell.ninf > 0:
		return "-Infinity"
	}
	var scale int32
	for _, s := range cell.scales {
		scale = max(scale, s.scale)
	}
	var r apd.Decimal
	if _, err := numericCtx.Quantize(&r, &cell.dec, -scale); err != nil {
		r.Set(&cell.dec)
	}
	if r.IsZero() {
		r.Negative = false
	}
	return r.Text('f')
}

func int128Text(hi int64, lo uint64) string {
	if (hi == 0 && lo>>63 == 0) || (hi == -1 && lo>>63 == 1) {
		return strconv.FormatInt(int64(lo), 10)
	}
	b := new(big.Int).SetInt64(hi)
	b.Lsh(b, 64)
	b.Add(b, new(big.Int).SetUint64(lo))
	return b.String()
}

// Watermark passes the input's on.
func (a *RetractingAggregate) Watermark() int64 {
	if !a.started {
		return math.MinInt64
	}
	return a.wm
}

// Late is 0: no row is late for a GROUP BY that never closes a group.
func (a *RetractingAggregate) Late() int64 { return 0 }

// LateRows is nothing.
func (a *RetractingAggregate) LateRows() []arrow.RecordBatch { return nil }

// MinEpoch: a group's state sums every row it had since the first epoch,
// so a restart without a snapshot re-runs from there.
func (a *RetractingAggregate) MinEpoch(next int64) int64 {
	if !a.pushed {
		return next
	}
	return 1
}

// StateSize counts the groups and their bytes as estimated when each was
// last emitted.
func (a *RetractingAggregate) StateSize() (rows, bytes int64) {
	return int64(len(a.groups)), a.bytes
}

// updateBytes brings the estimate of g's bytes up to date (no walk over
// its min/max values: each cell keeps their sum).
func (a *RetractingAggregate) updateBytes(g *retractGroup) {
	b := groupOverheadBytes + int64(len(g.key)) + int64(len(g.vals))*perKeyColumnBytes
	for _, d := range g.vals {
		b += datumBytes(d)
	}
	for _, d := range g.emitted {
		b += datumBytes(d)
	}
	for k := range g.aggs {
		cell := &g.aggs[k]
		b += int64(unsafe.Sizeof(retractCell{})) + int64(len(cell.scales))*16 + cell.setB
	}
	a.bytes += b - g.bytes
	g.bytes = b
}

// Snapshot layout: a meta batch (the watermark, whether rows were ever
// pushed); a batch of the groups — the GROUP BY values, the row count,
// and per aggregate its state as text (retractCell.stateText); and per
// min/max aggregate a batch of its values — the group's row in the
// groups batch, the value, its count. A group's emitted row is not saved:
// after an Emit it is the row its state gives, recomputed on load.
const (
	kindRetractMeta   = "retract_agg_meta"
	kindRetractGroups = "retract_agg_groups"
	kindRetractValues = "retract_agg_values"
)

func (a *RetractingAggregate) groupFields() []arrow.Field {
	fields := planner.Schema(a.Cols[:len(a.GroupBy)]).Fields()
	fields = append(fields, arrow.Field{Name: "weir_rows", Type: arrow.PrimitiveTypes.Int64})
	for k := range a.Aggs {
		fields = append(fields, arrow.Field{Name: "weir_agg" + strconv.Itoa(k), Type: arrow.BinaryTypes.String})
	}
	return fields
}

// SaveState returns the groups.
func (a *RetractingAggregate) SaveState(sc *StreamCtx) ([]arrow.RecordBatch, error) {
	if err := a.init(); err != nil {
		return nil, err
	}
	pushed := int64(0)
	if a.pushed {
		pushed = 1
	}
	out := []arrow.RecordBatch{emptyState(kindRetractMeta, map[string]int64{"wm": a.wm, "pushed": pushed})}
	keys := make([]string, 0, len(a.groups))
	for k := range a.groups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	mem := sc.Expr.Allocator()
	fields := a.groupFields()
	nk := len(a.GroupBy)
	builders := make([]array.Builder, len(fields))
	for c, f := range fields {
		builders[c] = array.NewBuilder(mem, f.Type)
	}
	type valBuilders struct{ g, v, n array.Builder }
	vbs := map[int]*valBuilders{}
	for k := range a.Aggs {
		if a.kinds[k] == planner.RetractMinMax {
			vbs[k] = &valBuilders{array.NewInt64Builder(mem), expr.NewBuilder(mem, a.Aggs[k].Args[0].Type()), array.NewInt64Builder(mem)}
		}
	}
	for r, key := range keys {
		g := a.groups[key]
		for c, d := range g.vals {
			expr.AppendDatum(builders[c], d)
		}
		builders[nk].(*array.Int64Builder).Append(g.rows)
		for k := range a.Aggs {
			cell := &g.aggs[k]
			builders[nk+1+k].(*array.StringBuilder).Append(cell.stateText())
			if vb := vbs[k]; vb != nil {
				for _, m := range cell.set {
					vb.g.(*array.Int64Builder).Append(int64(r))
					expr.AppendDatum(vb.v, m.d)
					vb.n.(*array.Int64Builder).Append(m.n)
				}
			}
		}
	}
	finish := func(bs []array.Builder) ([]arrow.Array, int) {
		cols := make([]arrow.Array, len(bs))
		for c, b := range bs {
			cols[c] = b.NewArray()
			b.Release()
		}
		return cols, cols[0].Len()
	}
	if cols, n := finish(builders); n > 0 {
		out = append(out, array.NewRecordBatch(stateSchema(kindRetractGroups, nil, fields), cols, int64(n)))
	}
	for k := range a.Aggs {
		vb := vbs[k]
		if vb == nil {
			continue
		}
		if cols, n := finish([]array.Builder{vb.g, vb.v, vb.n}); n > 0 {
			vf := []arrow.Field{{Name: "weir_group", Type: arrow.PrimitiveTypes.Int64}, {Name: "weir_value", Type: a.Aggs[k].Args[0].Type().Arrow(), Nullable: true}, {Name: "weir_count", Type: arrow.PrimitiveTypes.Int64}}
			out = append(out, array.NewRecordBatch(stateSchema(kindRetractValues, map[string]int64{"agg": int64(k)}, vf), cols, int64(n)))
		}
	}
	return out, nil
}

// stateText is the cell's counters and sum as text: n, finite, NaN,
// +inf, -inf, the int sum's two words, the float sum's bits, the numeric
// sum, and the numeric scale counts as scale:count pairs.
func (cell *retractCell) stateText() string {
	parts := []string{
		strconv.FormatInt(cell.n, 10), strconv.FormatInt(cell.finite, 10),
		strconv.FormatInt(cell.nan, 10), strconv.FormatInt(cell.pinf, 10), strconv.FormatInt(cell.ninf, 10),
		strconv.FormatInt(cell.hi, 10), strconv.FormatUint(cell.lo, 10),
		strconv.FormatUint(math.Float64bits(cell.f), 10), cell.dec.Text('f'),
	}
	var sc []string
	for _, s := range cell.scales {
		sc = append(sc, strconv.Itoa(int(s.scale))+":"+strconv.FormatInt(s.n, 10))
	}
	return strings.Join(append(parts, strings.Join(sc, ",")), " ")
}

func (cell *retractCell) loadText(s string) error {
	parts := strings.Split(s, " ")
	if len(parts) != 10 {
		return corruptSnapshot("aggregate state")
	}
	ints := []*int64{&cell.n, &cell.finite, &cell.nan, &cell.pinf, &cell.ninf, &cell.hi}
	for i, p := range ints {
		v, err := strconv.ParseInt(parts[i], 10, 64)
		if err != nil {
			return corruptSnapshot("aggregate state")
		}
		*p = v
	}
	lo, err1 := strconv.ParseUint(parts[6], 10, 64)
	fb, err2 := strconv.ParseUint(parts[7], 10, 64)
	_, _, err3 := cell.dec.SetString(parts[8])
	if err1 != nil || err2 != nil || err3 != nil {
		return corruptSnapshot("aggregate state")
	}
	cell.lo, cell.f = lo, math.Float64frombits(fb)
	if parts[9] != "" {
		for _, p := range strings.Split(parts[9], ",") {
			sc, n, ok := strings.Cut(p, ":")
			a, e1 := strconv.Atoi(sc)
			b, e2 := strconv.ParseInt(n, 10, 64)
			if !ok || e1 != nil || e2 != nil {
				return corruptSnapshot("aggregate state")
			}
			cell.scales = append(cell.scales, scaleCount{scale: int32(a), n: b})
		}
	}
	return nil
}

// LoadState replaces the state with a snapshot SaveState returned.
func (a *RetractingAggregate) LoadState(sc *StreamCtx, state []arrow.RecordBatch) error {
	a.started = false
	if err := a.init(); err != nil {
		return err
	}
	a.groups, a.dirty, a.bytes = map[string]*retractGroup{}, nil, 0
	nk := len(a.GroupBy)
	var order []*retractGroup // groups in the groups batch's order
	for _, b := range state {
		switch stateKindOf(b) {
		case kindRetractMeta:
			var err error
			if a.wm, err = metaInt(b.Schema(), "wm"); err != nil {
				return err
			}
			p, err := metaInt(b.Schema(), "pushed")
			if err != nil {
				return err
			}
			a.pushed = p == 1
		case kindRetractGroups:
			if int(b.NumCols()) != nk+1+len(a.Aggs) {
				return corruptSnapshot("aggregation groups of another shape")
			}
			counts, err := int64Column(b, nk)
			if err != nil {
				return err
			}
			keyCols := b.Columns()[:nk]
			for i := 0; i < int(b.NumRows()); i++ {
				a.keyBuf = appendRowKey(a.keyBuf[:0], keyCols, i)
				vals := make([]expr.Datum, nk)
				for c := range vals {
					vals[c] = ownedDatum(keyCols[c], i)
				}
				g := a.newGroup(string(a.keyBuf), vals)
				g.rows = counts[i]
				for k := range a.Aggs {
					col, ok := b.Column(nk + 1 + k).(*array.String)
					if !ok {
						return corruptSnapshot("aggregate state column")
					}
					if err := g.aggs[k].loadText(col.Value(i)); err != nil {
						return err
					}
				}
				order = append(order, g)
			}
		}
	}
	for _, b := range state {
		if stateKindOf(b) != kindRetractValues {
			continue
		}
		k, err := metaInt(b.Schema(), "agg")
		if err != nil {
			return err
		}
		if k < 0 || int(k) >= len(a.Aggs) || a.kinds[k] != planner.RetractMinMax || b.NumCols() != 3 {
			return corruptSnapshot("min/max values")
		}
		gs, err := int64Column(b, 0)
		if err != nil {
			return err
		}
		ns, err := int64Column(b, 2)
		if err != nil {
			return err
		}
		var v colVec
		v.load(b.Column(1), a.Aggs[k].Args[0].Type(), true)
		for i := range gs {
			if gs[i] < 0 || int(gs[i]) >= len(order) {
				return corruptSnapshot("min/max values")
			}
			cell := &order[gs[i]].aggs[k]
			cell.set = append(cell.set, multisetVal{v: v.sortValAt(i), d: ownedDatum(b.Column(1), i), n: ns[i]})
			cell.setB += cell.set[len(cell.set)-1].bytes()
		}
	}
	if len(a.GroupBy) == 0 && len(a.groups) == 0 {
		a.newGroup("", nil)
	}
	live := make([]*retractGroup, 0, len(a.groups))
	for _, g := range a.groups {
		live = append(live, g)
	}
	rows, err := a.finalRows(sc, live)
	if err != nil {
		return err
	}
	for j, g := range live {
		g.emitted = rows[j] // emitted before the snapshot
		a.updateBytes(g)
	}
	return nil
}
