package exec

import (
	"context"
	"math"
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// ChangelogOver computes window functions (OVER) over a changelog: its
// input's rows may be deleted later (an aggregation's rows that change,
// Nexmark q6's per-auction maximum), so no row's value is ever final. It
// keeps every input row of every partition, and each epoch recomputes,
// with the batch window operator, the rows whose values the epoch's
// inserts and deletes can have changed, and emits the difference between
// their new output rows and the ones it emitted before.
//
// Which rows those are depends on the calls:
//   - Reach >= 0 (every call a ROWS frame ending at the current row or
//     before it, or lag, all sharing one ORDER BY): a row's values read at
//     most the Reach rows before it. A partition's rows are kept in ORDER
//     BY order (ties in arrival order), an insert or delete changes only
//     the rows up to Reach after it, and only those are recomputed, each
//     over the Reach rows before it.
//   - Reach < 0 (row_number, rank, RANGE or GROUPS frames, FOLLOWING,
//     UNBOUNDED PRECEDING, or calls with different orders): any row of a
//     changed partition may change; the partition is recomputed whole
//     (rows in arrival order, which settles ties).
//
// The state is every input row and its output row; the planner warns that
// it is unbounded.
type ChangelogOver struct {
	Window *planner.Window
	Reach  int

	parts    map[string]*overPartition
	dirty    []*overPartition
	wm       int64
	plan     *planner.Window // Window over the input rows, weir_part and weir_pos
	nin      int
	schema   *arrow.Schema
	keyBuf   []byte
	sortVecs []colVec       // Reach >= 0: the ORDER BY values of the batch being pushed
	deleted  [][]expr.Datum // Reach >= 0: output rows of deleted input rows, to retract
	rows     int64          // input rows held
	bytes    int64          // estimated bytes held, kept up to date as rows come and go
	started  bool
}

// overPartition is one partition's input rows (in ORDER BY order when
// Reach >= 0, else in arrival order) and, when Reach < 0, the output rows
// last emitted for it.
type overPartition struct {
	key   string
	rows  []*overRow
	out   []overRow
	dirty bool
}

// overRow is a row's values and its row key (appendRowKey of all of
// them). When Reach >= 0 it also holds its ORDER BY values, the output
// row emitted for it, and what the epoch did around it: fresh (inserted),
// gap (the row before it was deleted), redo (to recompute).
type overRow struct {
	key              string
	vals             []expr.Datum
	sort             []sortVal
	out              []expr.Datum
	fresh, gap, redo bool
}

var _ StreamOperator = (*ChangelogOver)(nil)

func (o *ChangelogOver) init() {
	if o.started {
		return
	}
	o.started = true
	o.parts = map[string]*overPartition{}
	o.rows, o.bytes = 0, 0
	o.wm = math.MinInt64
	in := o.Window.Input.Columns()
	o.nin = len(in)
	inCols := append(append([]planner.Column{}, in...), planner.Column{Name: "weir_part", T: types.Int8}, planner.Column{Name: "weir_pos", T: types.Int8})
	cols := append(append([]planner.Column{}, inCols...), o.Window.Cols[len(in):]...)
	calls := o.Window.Calls
	if o.Reach >= 0 {
		// Each recomputed stretch of rows is its own partition, in the
		// order the operator keeps (weir_pos).
		calls = make([]planner.WindowCall, len(o.Window.Calls))
		for i, c := range o.Window.Calls {
			c.PartitionBy = []expr.Expr{&expr.ColumnRef{Index: o.nin, T: types.Int8, Name: "weir_part"}}
			c.OrderBy = []planner.SortKey{{Expr: &expr.ColumnRef{Index: o.nin + 1, T: types.Int8, Name: "weir_pos"}}}
			calls[i] = c
		}
		o.sortVecs = make([]colVec, len(o.Window.Calls[0].OrderBy))
	}
	o.plan = &planner.Window{Input: &planner.Scan{OID: rollingScanOID, Kind: planner.StoredTable, Name: "weir_over", Cols: inCols}, Calls: calls, Cols: cols}
	o.schema = planner.Schema(o.Window.Cols)
}

// Inputs is 1.
func (o *ChangelogOver) Inputs() int { return 1 }

// Push adds inserted rows to their partitions and removes deleted ones.
func (o *ChangelogOver) Push(sc *StreamCtx, _ int, c ChangeBatch) error {
	o.init()
	b := c.Rows
	n := int(b.NumRows())
	if n == 0 {
		return nil
	}
	keys, err := evalAll(sc.Expr, o.Window.Calls[0].PartitionBy, b)
	if err != nil {
		return err
	}
	orderBy := o.Window.Calls[0].OrderBy
	if o.Reach >= 0 {
		for k, key := range orderBy {
			arr, err := key.Expr.Eval(sc.Expr, b)
			if err != nil {
				return err
			}
			o.sortVecs[k].load(arr, key.Expr.Type(), true)
		}
	}
	cols := b.Columns()
	for i := 0; i < n; i++ {
		o.keyBuf = appendRowKey(o.keyBuf[:0], keys, i)
		p := o.parts[string(o.keyBuf)]
		if p == nil {
			p = &overPartition{key: string(o.keyBuf)}
			o.parts[p.key] = p
			o.bytes += partitionBytes + int64(len(p.key))
		}
		if !p.dirty {
			p.dirty = true
			o.dirty = append(o.dirty, p)
		}
		o.keyBuf = appendRowKey(o.keyBuf[:0], cols, i)
		insert := c.Diff == nil || c.Diff[i] == ChangeInsert
		if o.Reach < 0 {
			if insert {
				r := o.newRow(cols, i)
				o.added(r)
				p.rows = append(p.rows, r)
				continue
			}
			j := len(p.rows) - 1
			for j >= 0 && p.rows[j].key != string(o.keyBuf) {
				j--
			}
			if j < 0 {
				return errOverDelete()
			}
			o.removed(p.rows[j])
			p.rows = slices.Delete(p.rows, j, j+1)
			continue
		}
		// In ORDER BY order: after the rows it ties with (they came first).
		at, _ := slices.BinarySearchFunc(p.rows, i, func(r *overRow, i int) int {
			if compareSortKeys(orderBy, o.sortVecs, i, r.sort) < 0 {
				return 1
			}
			return -1
		})
		if insert {
			r := o.newRow(cols, i)
			r.sort = make([]sortVal, len(orderBy))
			for k := range r.sort {
				r.sort[k] = o.sortVecs[k].sortValAt(i)
			}
			r.fresh = true
			o.added(r)
			p.rows = slices.Insert(p.rows, at, r)
			continue
		}
		// The equal row among those it ties with, the last first.
		j := at - 1
		for j >= 0 && compareSortKeys(orderBy, o.sortVecs, i, p.rows[j].sort) == 0 && p.rows[j].key != string(o.keyBuf) {
			j--
		}
		if j < 0 || p.rows[j].key != string(o.keyBuf) {
			return errOverDelete()
		}
		if out := p.rows[j].out; out != nil {
			o.deleted = append(o.deleted, out)
		}
		o.removed(p.rows[j])
		p.rows = slices.Delete(p.rows, j, j+1)
		if j < len(p.rows) {
			p.rows[j].gap = true
		}
	}
	return nil
}

// Estimated bytes of a partition and of a row besides their values.
const (
	partitionBytes = 64
	overRowBytes   = int64(unsafe.Sizeof(overRow{})) + 8 // and the pointer to it
)

func (o *ChangelogOver) added(r *overRow) {
	o.rows++
	o.bytes += overRowBytes + int64(len(r.key)) + int64(len(r.sort))*sortValBytes + datumsBytes(r.vals)
}

func (o *ChangelogOver) removed(r *overRow) {
	o.rows--
	o.bytes -= overRowBytes + int64(len(r.key)) + int64(len(r.sort))*sortValBytes + datumsBytes(r.vals) + datumsBytes(r.out)
}

func outRowsBytes(rs []overRow) int64 {
	var n int64
	for _, r := range rs {
		n += 40 + int64(len(r.key)) + datumsBytes(r.vals)
	}
	return n
}

func datumsBytes(ds []expr.Datum) int64 {
	var n int64
	for _, d := range ds {
		n += datumBytes(d)
	}
	return n
}

func (o *ChangelogOver) newRow(cols []arrow.Array, i int) *overRow {
	vals := make([]expr.Datum, len(cols))
	for c := range vals {
		vals[c] = ownedDatum(cols[c], i)
	}
	return &overRow{key: string(o.keyBuf), vals: vals}
}

// sortValBytes is what a kept ORDER BY value holds (besides a string's
// bytes).
const sortValBytes = int64(unsafe.Sizeof(sortVal{}))

func errOverDelete() error {
	return sqlerr.New(sqlerr.InternalError, "streaming OVER: a delete of a row its partition never had")
}

// compareSortKeys orders row i of the loaded ORDER BY values against a
// kept row's: < 0 when row i comes first.
func compareSortKeys(keys []planner.SortKey, vecs []colVec, i int, kept []sortVal) int {
	for c, sk := range keys {
		v, s := &vecs[c], &kept[c]
		vn := v.isNull(i)
		if vn || s.null {
			switch {
			case vn && s.null:
				continue
			case vn == sk.NullsFirst:
				return -1
			default:
				return 1
			}
		}
		r := v.compareVal(i, s)
		if sk.Desc {
			r = -r
		}
		if r != 0 {
			return r
		}
	}
	return 0
}

// Advance passes the watermark on: no row waits for it.
func (o *ChangelogOver) Advance(sc *StreamCtx, _ int, watermark int64) error {
	o.init()
	o.wm = max(o.wm, watermark)
	return nil
}

// Emit recomputes the rows the epoch's changes reach and emits what
// changed in them.
func (o *ChangelogOver) Emit(sc *StreamCtx) ([]ChangeBatch, error) {
	o.init()
	if len(o.dirty) == 0 {
		return nil, nil
	}
	dirty := o.dirty
	o.dirty = nil
	for _, p := range dirty {
		p.dirty = false
	}
	ob := newChangeBuilder(sc, o.schema)
	if o.Reach >= 0 {
		for _, d := range o.deleted {
			ob.add(ChangeDelete, d, 0)
		}
		o.deleted = nil
		if err := o.recompute(sc, dirty, ob); err != nil {
			return nil, err
		}
	} else if err := o.recomputeWhole(sc, dirty, ob); err != nil {
		return nil, err
	}
	for _, p := range dirty {
		if len(p.rows) == 0 {
			delete(o.parts, p.key)
			o.bytes -= partitionBytes + int64(len(p.key))
		}
	}
	if cb, ok := ob.finish(); ok {
		return []ChangeBatch{cb}, nil
	}
	return nil, nil
}

// recomputeWhole recomputes whole partitions and records, per partition,
// the multiset difference of its output rows (ob nil: records nothing).
func (o *ChangelogOver) recomputeWhole(sc *StreamCtx, parts []*overPartition, ob *changeBuilder) error {
	slices := make([]overSlice, len(parts))
	for q, p := range parts {
		slices[q] = overSlice{rows: p.rows}
	}
	outs, err := o.compute(sc, slices)
	if err != nil {
		return err
	}
	for q, p := range parts {
		if ob != nil {
			left := make(map[string]int, len(p.out))
			for _, r := range p.out {
				left[r.key]++
			}
			var inserts []overRow
			for _, r := range outs[q] {
				if left[r.key] > 0 {
					left[r.key]--
					continue
				}
				inserts = append(inserts, r)
			}
			for _, r := range p.out {
				if left[r.key] > 0 {
					left[r.key]--
					ob.add(ChangeDelete, r.vals, 0)
				}
			}
			for _, r := range inserts {
				ob.add(ChangeInsert, r.vals, 0)
			}
		}
		o.bytes += outRowsBytes(outs[q]) - outRowsBytes(p.out)
		p.out = outs[q]
	}
	return nil
}

// recompute (Reach >= 0) finds the rows of parts whose frames the epoch
// changed — a row is fresh, or a row among the Reach before it is fresh or
// follows a deleted one — recomputes them over stretches that start Reach
// rows earlier, and records the rows whose output changed (ob nil:
// records nothing).
func (o *ChangelogOver) recompute(sc *StreamCtx, parts []*overPartition, ob *changeBuilder) error {
	var stretches []overSlice
	for _, p := range parts {
		last := -1 << 62 // position of the last fresh or gap row
		start := -1      // the open stretch's first row (-1: none)
		for pos, r := range p.rows {
			if r.fresh || r.gap {
				last = pos
			}
			r.fresh, r.gap = false, false
			r.redo = pos-last <= o.Reach
			switch {
			case r.redo && start < 0:
				start = max(0, pos-o.Reach)
			case !r.redo && start >= 0 && pos-start > 2*o.Reach+64:
				// Far enough from the next change: close the stretch.
				stretches = append(stretches, overSlice{rows: p.rows[start:pos]})
				start = -1
			}
		}
		if start >= 0 {
			stretches = append(stretches, overSlice{rows: p.rows[start:]})
		}
	}
	outs, err := o.compute(sc, stretches)
	if err != nil {
		return err
	}
	for q, st := range stretches {
		for pos, r := range st.rows {
			if !r.redo {
				continue
			}
			r.redo = false
			nw := outs[q][pos].vals
			if r.out != nil && datumsIdentical(r.out, nw) {
				continue
			}
			if ob != nil {
				if r.out != nil {
					ob.add(ChangeDelete, r.out, 0)
				}
				ob.add(ChangeInsert, nw, 0)
			}
			o.bytes += datumsBytes(nw) - datumsBytes(r.out)
			r.out = nw
		}
	}
	return nil
}

// overSlice is rows computed together: a partition, or a stretch of one.
type overSlice struct {
	rows []*overRow
}

// compute runs the window functions over each slice's rows (Reach >= 0:
// each slice its own partition, in its order), returning each slice's
// output rows in the order of its rows.
func (o *ChangelogOver) compute(sc *StreamCtx, slices []overSlice) ([][]overRow, error) {
	outs := make([][]overRow, len(slices))
	mem := sc.Expr.Allocator()
	inCols := o.plan.Input.Columns()
	builders := make([]array.Builder, len(inCols))
	for c, col := range inCols {
		builders[c] = expr.NewBuilder(mem, col.T)
	}
	n := 0
	for q, sl := range slices {
		outs[q] = make([]overRow, len(sl.rows))
		for pos, r := range sl.rows {
			for c, d := range r.vals {
				expr.AppendDatum(builders[c], d)
			}
			builders[o.nin].(*array.Int64Builder).Append(int64(q))
			builders[o.nin+1].(*array.Int64Builder).Append(int64(pos))
			n++
		}
	}
	arrs := make([]arrow.Array, len(builders))
	for c, b := range builders {
		arrs[c] = b.NewArray()
		b.Release()
	}
	if n == 0 {
		return outs, nil
	}
	in := array.NewRecordBatch(planner.Schema(inCols), arrs, int64(n))
	env := &Env{Tables: &batchSource{oid: rollingScanOID, batches: []arrow.RecordBatch{in}}, Ctx: sc.Expr}
	res, err := Run(context.Background(), env, o.plan)
	if err != nil {
		return nil, err
	}
	for _, r := range res {
		part, ok1 := r.Column(o.nin).(*array.Int64)
		poss, ok2 := r.Column(o.nin + 1).(*array.Int64)
		if !ok1 || !ok2 {
			return nil, sqlerr.New(sqlerr.InternalError, "streaming OVER: partition columns lost")
		}
		cols := append(append([]arrow.Array{}, r.Columns()[:o.nin]...), r.Columns()[o.nin+2:]...)
		for i := 0; i < int(r.NumRows()); i++ {
			o.keyBuf = appendRowKey(o.keyBuf[:0], cols, i)
			vals := make([]expr.Datum, len(cols))
			for c := range vals {
				vals[c] = ownedDatum(cols[c], i)
			}
			outs[part.Value(i)][poss.Value(i)] = overRow{key: string(o.keyBuf), vals: vals}
		}
	}
	return outs, nil
}

// Watermark passes the input's on.
func (o *ChangelogOver) Watermark() int64 {
	if !o.started {
		return math.MinInt64
	}
	return o.wm
}

// Late is 0: no row is late for a computation that never finalizes rows.
func (o *ChangelogOver) Late() int64 { return 0 }

// LateRows is nothing.
func (o *ChangelogOver) LateRows() []arrow.RecordBatch { return nil }

// MinEpoch: the rows held may come from any epoch since the first.
func (o *ChangelogOver) MinEpoch(next int64) int64 {
	if len(o.parts) == 0 {
		return next
	}
	return 1
}

// StateSize counts the input rows held and estimates their and the
// output rows' bytes (kept up to date as rows come and go: no walk).
func (o *ChangelogOver) StateSize() (rows, bytes int64) {
	return o.rows, o.bytes
}

// Snapshot layout: a meta batch with the watermark, and the input rows
// partition by partition in the order kept. Loading pushes them again in
// that order (which rebuilds the same order, ties included) and recomputes
// every row's output, which is the output emitted before the snapshot
// (the same rows in the same order give the same result).
const (
	kindChangelogOver     = "changelog_over"
	kindChangelogOverMeta = "changelog_over_meta"
)

// SaveState returns the rows held.
func (o *ChangelogOver) SaveState(sc *StreamCtx) ([]arrow.RecordBatch, error) {
	o.init()
	out := []arrow.RecordBatch{emptyState(kindChangelogOverMeta, map[string]int64{"wm": o.wm})}
	keys := make([]string, 0, len(o.parts))
	for k := range o.parts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	in := o.Window.Input.Columns()
	builders := make([]array.Builder, len(in))
	for c, col := range in {
		builders[c] = expr.NewBuilder(sc.Expr.Allocator(), col.T)
	}
	n := 0
	for _, k := range keys {
		for _, r := range o.parts[k].rows {
			for c, d := range r.vals {
				expr.AppendDatum(builders[c], d)
			}
			n++
		}
	}
	arrs := make([]arrow.Array, len(builders))
	for c, b := range builders {
		arrs[c] = b.NewArray()
		b.Release()
	}
	if n > 0 {
		out = append(out, array.NewRecordBatch(stateSchema(kindChangelogOver, nil, planner.Schema(in).Fields()), arrs, int64(n)))
	}
	return out, nil
}

// LoadState replaces the state with a snapshot SaveState returned.
func (o *ChangelogOver) LoadState(sc *StreamCtx, state []arrow.RecordBatch) error {
	o.started = false
	o.init()
	for _, b := range state {
		switch stateKindOf(b) {
		case kindChangelogOverMeta:
			var err error
			if o.wm, err = metaInt(b.Schema(), "wm"); err != nil {
				return err
			}
		case kindChangelogOver:
			if int(b.NumCols()) != o.nin {
				return corruptSnapshot("OVER rows of another shape")
			}
			rows := array.NewRecordBatch(planner.Schema(o.Window.Input.Columns()), b.Columns(), b.NumRows())
			if err := o.Push(sc, 0, Inserts(rows)); err != nil {
				return err
			}
		}
	}
	// Every row's output was emitted before the snapshot: recompute it
	// without emitting.
	dirty := o.dirty
	o.dirty = nil
	for _, p := range dirty {
		p.dirty = false
	}
	if o.Reach >= 0 {
		return o.recompute(sc, dirty, nil)
	}
	return o.recomputeWhole(sc, dirty, nil)
}
