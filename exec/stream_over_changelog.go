package exec

import (
	"context"
	"math"
	"slices"

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
// keeps every input row of every partition, in arrival order; each epoch
// it recomputes, with the batch window operator, the partitions whose rows
// were inserted or deleted, and emits the difference between their new
// output rows and the ones it emitted before (a row whose frame did not
// change is not emitted again). Any window function and frame PostgreSQL's
// batch query allows works, ties in ORDER BY resolved in arrival order.
//
// The state is every input row and every output row; an epoch costs the
// size of the partitions it touched. The planner warns that the state is
// unbounded.
type ChangelogOver struct {
	Window *planner.Window

	parts   map[string]*overPartition
	dirty   []*overPartition
	wm      int64
	plan    *planner.Window // Window over the input rows and weir_part
	nin     int
	schema  *arrow.Schema
	keyBuf  []byte
	started bool
}

// overPartition is one partition's input rows in arrival order and the
// output rows last emitted for it.
type overPartition struct {
	key   string
	rows  []overRow
	out   []overRow
	dirty bool
}

// overRow is a row's values and its row key (appendRowKey of all of them).
type overRow struct {
	key  string
	vals []expr.Datum
}

var _ StreamOperator = (*ChangelogOver)(nil)

func (o *ChangelogOver) init() {
	if o.started {
		return
	}
	o.started = true
	o.parts = map[string]*overPartition{}
	o.wm = math.MinInt64
	in := o.Window.Input.Columns()
	o.nin = len(in)
	inCols := append(append([]planner.Column{}, in...), planner.Column{Name: "weir_part", T: types.Int8})
	cols := append(append([]planner.Column{}, inCols...), o.Window.Cols[len(in):]...)
	o.plan = &planner.Window{Input: &planner.Scan{OID: rollingScanOID, Kind: planner.StoredTable, Name: "weir_over", Cols: inCols}, Calls: o.Window.Calls, Cols: cols}
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
	cols := b.Columns()
	for i := 0; i < n; i++ {
		o.keyBuf = appendRowKey(o.keyBuf[:0], keys, i)
		p := o.parts[string(o.keyBuf)]
		if p == nil {
			p = &overPartition{key: string(o.keyBuf)}
			o.parts[p.key] = p
		}
		if !p.dirty {
			p.dirty = true
			o.dirty = append(o.dirty, p)
		}
		o.keyBuf = appendRowKey(o.keyBuf[:0], cols, i)
		if c.Diff == nil || c.Diff[i] == ChangeInsert {
			vals := make([]expr.Datum, len(cols))
			for c := range vals {
				vals[c] = ownedDatum(cols[c], i)
			}
			p.rows = append(p.rows, overRow{key: string(o.keyBuf), vals: vals})
			continue
		}
		j := len(p.rows) - 1
		for j >= 0 && p.rows[j].key != string(o.keyBuf) {
			j--
		}
		if j < 0 {
			return sqlerr.New(sqlerr.InternalError, "streaming OVER: a delete of a row its partition never had")
		}
		p.rows = slices.Delete(p.rows, j, j+1)
	}
	return nil
}

// Advance passes the watermark on: no row waits for it.
func (o *ChangelogOver) Advance(sc *StreamCtx, _ int, watermark int64) error {
	o.init()
	o.wm = max(o.wm, watermark)
	return nil
}

// Emit recomputes the changed partitions and emits what changed in them.
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
	outs, err := o.compute(sc, dirty)
	if err != nil {
		return nil, err
	}
	ob := newChangeBuilder(sc, o.schema)
	for q, p := range dirty {
		// A multiset difference: the old rows not in the new output are
		// deleted, the new rows not in the old inserted.
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
		p.out = outs[q]
		if len(p.rows) == 0 {
			delete(o.parts, p.key)
		}
	}
	if cb, ok := ob.finish(); ok {
		return []ChangeBatch{cb}, nil
	}
	return nil, nil
}

// compute runs the window functions over the rows of parts, returning
// each partition's output rows.
func (o *ChangelogOver) compute(sc *StreamCtx, parts []*overPartition) ([][]overRow, error) {
	outs := make([][]overRow, len(parts))
	mem := sc.Expr.Allocator()
	inCols := o.plan.Input.Columns()
	builders := make([]array.Builder, len(inCols))
	for c, col := range inCols {
		builders[c] = expr.NewBuilder(mem, col.T)
	}
	n := 0
	for q, p := range parts {
		for _, r := range p.rows {
			for c, d := range r.vals {
				expr.AppendDatum(builders[c], d)
			}
			builders[o.nin].(*array.Int64Builder).Append(int64(q))
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
		part, ok := r.Column(o.nin).(*array.Int64)
		if !ok {
			return nil, sqlerr.New(sqlerr.InternalError, "streaming OVER: partition column lost")
		}
		cols := append(append([]arrow.Array{}, r.Columns()[:o.nin]...), r.Columns()[o.nin+1:]...)
		for i := 0; i < int(r.NumRows()); i++ {
			o.keyBuf = appendRowKey(o.keyBuf[:0], cols, i)
			vals := make([]expr.Datum, len(cols))
			for c := range vals {
				vals[c] = ownedDatum(cols[c], i)
			}
			q := part.Value(i)
			outs[q] = append(outs[q], overRow{key: string(o.keyBuf), vals: vals})
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

// StateSize counts the input rows held, and their and the output rows'
// bytes.
func (o *ChangelogOver) StateSize() (rows, bytes int64) {
	for _, p := range o.parts {
		rows += int64(len(p.rows))
		bytes += 64 + int64(len(p.key))
		for _, rs := range [][]overRow{p.rows, p.out} {
			for _, r := range rs {
				bytes += 40 + int64(len(r.key))
				for _, d := range r.vals {
					bytes += datumBytes(d)
				}
			}
		}
	}
	return rows, bytes
}

// Snapshot layout: a meta batch with the watermark, and the input rows
// partition by partition in arrival order. Loading pushes them again and
// recomputes every partition's output, which is the output emitted before
// the snapshot (the same rows in the same order give the same result).
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
	dirty := o.dirty
	o.dirty = nil
	outs, err := o.compute(sc, dirty)
	if err != nil {
		return err
	}
	for q, p := range dirty {
		p.dirty = false
		p.out = outs[q] // emitted before the snapshot
	}
	return nil
}
