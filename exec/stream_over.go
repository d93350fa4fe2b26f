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

// RollingOver computes window functions over a bounded number of earlier
// rows in event-time order (`avg(price) OVER (PARTITION BY seller ORDER BY
// date_time ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)`, Nexmark q6; Flink's
// over aggregation): each input row gives one output row, its columns and
// the functions' values.
//
// A row is final once the watermark reaches its event time: no row can
// come before it any more. Rows wait until then; at each watermark the
// final rows of every partition are put after the last Context rows
// emitted in their partition (the frame's reach), and the batch window
// operator computes the functions over that, exactly as a query over all
// rows would (ties in event time are in arrival order). A row behind the
// watermark, or without an event time, is late.
type RollingOver struct {
	// Window is the bound window node; its calls share PartitionBy and an
	// ORDER BY whose first key is TimeCol ascending (the planner checks).
	Window *planner.Window
	// TimeCol is the input column of the event time; Context is how many
	// earlier rows of a partition a frame reaches.
	TimeCol int
	Context int

	wm      int64
	seq     int64
	pending []arrow.RecordBatch // input columns + weir_seq, not final yet
	context arrow.RecordBatch   // input columns + weir_seq: the last rows emitted per partition
	out     []ChangeBatch
	late    int64
	kept    []arrow.RecordBatch
	plan    *planner.Window // Window over the rows with weir_seq and weir_new
	inCols  []planner.Column
	schema  *arrow.Schema // output: input columns then one per call
	init1   bool
}

const rollingScanOID = math.MaxUint32 // the scan the computing plan reads

func (o *RollingOver) init() {
	if o.init1 {
		return
	}
	o.init1 = true
	o.wm = math.MinInt64
	in := o.Window.Input.Columns()
	o.inCols = append(append([]planner.Column{}, in...), planner.Column{Name: "weir_seq", T: types.Int8}, planner.Column{Name: "weir_new", T: types.Bool})
	seqKey := planner.SortKey{Expr: &expr.ColumnRef{Index: len(in), T: types.Int8, Name: "weir_seq"}}
	calls := make([]planner.WindowCall, len(o.Window.Calls))
	for i, c := range o.Window.Calls {
		c.OrderBy = append(append([]planner.SortKey{}, c.OrderBy...), seqKey)
		calls[i] = c
	}
	cols := append([]planner.Column{}, o.inCols...)
	cols = append(cols, o.Window.Cols[len(in):]...)
	o.plan = &planner.Window{Input: &planner.Scan{OID: rollingScanOID, Kind: planner.StoredTable, Name: "weir_rolling", Cols: o.inCols}, Calls: calls, Cols: cols}
	o.schema = planner.Schema(o.Window.Cols)
}

// Inputs is 1.
func (o *RollingOver) Inputs() int { return 1 }

// Push keeps the rows until the watermark reaches them.
func (o *RollingOver) Push(sc *StreamCtx, _ int, c ChangeBatch) error {
	o.init()
	b := c.Rows
	n := int(b.NumRows())
	if n == 0 {
		return nil
	}
	if !c.AppendOnly() {
		return sqlerr.New(sqlerr.FeatureNotSupported, "OVER in a streaming table reads an append-only input")
	}
	ts, ok := b.Column(o.TimeCol).(*array.Timestamp)
	if !ok {
		return sqlerr.New(sqlerr.InternalError, "OVER event time is not a timestamp")
	}
	var keep, lateIdx []int
	for i := 0; i < n; i++ {
		if ts.IsNull(i) || int64(ts.Value(i)) < o.wm {
			lateIdx = append(lateIdx, i)
			continue
		}
		keep = append(keep, i)
	}
	if len(lateIdx) > 0 {
		o.late += int64(len(lateIdx))
		if sc.KeepLate {
			o.kept = append(o.kept, expr.TakeRows(b, lateIdx))
		}
	}
	if len(keep) == 0 {
		return nil
	}
	if len(keep) != n {
		b = expr.TakeRows(b, keep)
	}
	seq := make([]int64, len(keep))
	for i := range seq {
		o.seq++
		seq[i] = o.seq
	}
	cols := append(append([]arrow.Array{}, b.Columns()...), int64Array(seq))
	o.pending = append(o.pending, array.NewRecordBatch(planner.Schema(o.inCols[:len(o.inCols)-1]), cols, int64(len(keep))))
	return nil
}

// Advance computes the rows the watermark made final.
func (o *RollingOver) Advance(sc *StreamCtx, _ int, watermark int64) error {
	o.init()
	if watermark <= o.wm {
		return nil
	}
	o.wm = watermark
	// Split the waiting rows into final ones and the rest.
	var final, waiting []arrow.RecordBatch
	for _, b := range o.pending {
		ts := b.Column(o.TimeCol).(*array.Timestamp)
		var f, w []int
		for i := 0; i < int(b.NumRows()); i++ {
			if int64(ts.Value(i)) <= watermark {
				f = append(f, i)
			} else {
				w = append(w, i)
			}
		}
		switch {
		case len(w) == 0:
			final = append(final, b)
		case len(f) == 0:
			waiting = append(waiting, b)
		default:
			final = append(final, expr.TakeRows(b, f))
			waiting = append(waiting, expr.TakeRows(b, w))
		}
	}
	o.pending = waiting
	if len(final) == 0 {
		return nil
	}
	// The computing plan's input: context rows (weir_new false) then the
	// final rows (true).
	var parts []arrow.RecordBatch
	withFlag := func(b arrow.RecordBatch, isNew bool) arrow.RecordBatch {
		fb := array.NewBooleanBuilder(sc.Expr.Allocator())
		for i := 0; i < int(b.NumRows()); i++ {
			fb.Append(isNew)
		}
		cols := append(append([]arrow.Array{}, b.Columns()...), fb.NewArray())
		return array.NewRecordBatch(planner.Schema(o.inCols), cols, b.NumRows())
	}
	if o.context != nil && o.context.NumRows() > 0 {
		parts = append(parts, withFlag(o.context, false))
	}
	for _, b := range final {
		parts = append(parts, withFlag(b, true))
	}
	env := &Env{Tables: &batchSource{oid: rollingScanOID, batches: parts}, Ctx: sc.Expr}
	res, err := Run(context.Background(), env, o.plan)
	if err != nil {
		return err
	}
	nin := len(o.Window.Input.Columns())
	newCol := nin + 1
	var ctxParts []arrow.RecordBatch
	for _, r := range res {
		flags := r.Column(newCol).(*array.Boolean)
		var idx []int
		for i := 0; i < int(r.NumRows()); i++ {
			if flags.Value(i) {
				idx = append(idx, i)
			}
		}
		if len(idx) > 0 {
			sel := r
			if len(idx) != int(r.NumRows()) {
				sel = expr.TakeRows(r, idx)
			}
			cols := append(append([]arrow.Array{}, sel.Columns()[:nin]...), sel.Columns()[nin+2:]...)
			o.out = append(o.out, Inserts(array.NewRecordBatch(o.schema, cols, sel.NumRows())))
		}
		ctxParts = append(ctxParts, array.NewRecordBatch(planner.Schema(o.inCols[:nin+1]), r.Columns()[:nin+1], r.NumRows()))
	}
	return o.keepContext(sc, ctxParts)
}

// keepContext keeps, of the rows just computed and the old context, the
// last Context rows of each partition by (event time, arrival).
func (o *RollingOver) keepContext(sc *StreamCtx, parts []arrow.RecordBatch) error {
	if o.Context == 0 || len(parts) == 0 {
		o.context = nil
		return nil
	}
	all, err := concatBatches(sc.Expr.Allocator(), planner.Schema(o.inCols[:len(o.inCols)-1]), parts)
	if err != nil {
		return err
	}
	n := int(all.NumRows())
	part := o.Window.Calls[0].PartitionBy
	groups := make([]int, n)
	if len(part) > 0 {
		keys, err := evalAll(sc.Expr, part, all)
		if err != nil {
			return err
		}
		ts := make([]types.T, len(part))
		for i, p := range part {
			ts[i] = p.Type()
		}
		gt := newGroupTable(sc.Expr.Allocator(), ts, false)
		gt.prepare(keys)
		for i := range groups {
			groups[i], _ = gt.insert(i)
		}
	}
	times := all.Column(o.TimeCol).(*array.Timestamp)
	seqs := all.Column(len(o.Window.Input.Columns())).(*array.Int64)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if groups[a] != groups[b] {
			return groups[a] - groups[b]
		}
		if ta, tb := times.Value(a), times.Value(b); ta != tb {
			if ta < tb {
				return -1
			}
			return 1
		}
		return int(seqs.Value(a) - seqs.Value(b))
	})
	var keep []int
	for i := 0; i < n; {
		j := i
		for j < n && groups[idx[j]] == groups[idx[i]] {
			j++
		}
		from := max(i, j-o.Context)
		keep = append(keep, idx[from:j]...)
		i = j
	}
	o.context = expr.TakeRows(all, keep)
	return nil
}

// Emit returns the rows computed since the last Emit.
func (o *RollingOver) Emit(sc *StreamCtx) ([]ChangeBatch, error) {
	out := o.out
	o.out = nil
	return out, nil
}

// Watermark passes the input's on: rows are emitted once it reached them.
func (o *RollingOver) Watermark() int64 {
	if !o.init1 {
		return math.MinInt64
	}
	return o.wm
}

// Late is the number of rows dropped as late.
func (o *RollingOver) Late() int64 { return o.late }

// LateRows returns the late rows kept since the last call.
func (o *RollingOver) LateRows() []arrow.RecordBatch {
	k := o.kept
	o.kept = nil
	return k
}

// MinEpoch: the state is rebuilt only from a snapshot (rows emitted long
// ago stay in the context), so a restart re-runs from the first epoch
// without one.
func (o *RollingOver) MinEpoch(next int64) int64 {
	if o.seq == 0 {
		return next
	}
	return 1
}

// StateSize counts the waiting and context rows.
func (o *RollingOver) StateSize() (rows, bytes int64) {
	for _, b := range o.pending {
		rows += b.NumRows()
		bytes += batchBytes(b)
	}
	if o.context != nil {
		rows += o.context.NumRows()
		bytes += batchBytes(o.context)
	}
	return rows, bytes
}

// Snapshot layout: the waiting rows and the context rows (input columns
// and weir_seq), told apart by the schema metadata's "context", and a
// batch whose metadata holds the watermark, arrival counter and late
// count.
const (
	kindRolling     = "rolling_over"
	kindRollingMeta = "rolling_over_meta"
)

// SaveState returns the waiting and context rows.
func (o *RollingOver) SaveState(sc *StreamCtx) ([]arrow.RecordBatch, error) {
	o.init()
	fields := planner.Schema(o.inCols[:len(o.inCols)-1]).Fields()
	out := []arrow.RecordBatch{emptyState(kindRollingMeta, map[string]int64{"wm": o.wm, "seq": o.seq, "late": o.late})}
	add := func(b arrow.RecordBatch, isContext int64) {
		if b.NumRows() == 0 {
			return // the store keeps no empty batch
		}
		schema := stateSchema(kindRolling, map[string]int64{"context": isContext}, fields)
		out = append(out, array.NewRecordBatch(schema, b.Columns(), b.NumRows()))
	}
	for _, b := range o.pending {
		add(b, 0)
	}
	if o.context != nil {
		add(o.context, 1)
	}
	return out, nil
}

// LoadState replaces the state with a snapshot SaveState returned.
func (o *RollingOver) LoadState(sc *StreamCtx, state []arrow.RecordBatch) error {
	o.init1 = false
	o.init()
	o.pending, o.context, o.out, o.kept = nil, nil, nil, nil
	want := len(o.inCols) - 1
	for _, b := range state {
		kind, _ := b.Schema().Metadata().GetValue(stateKind)
		var err error
		switch kind {
		case kindRollingMeta:
			if o.wm, err = metaInt(b.Schema(), "wm"); err != nil {
				return err
			}
			if o.seq, err = metaInt(b.Schema(), "seq"); err != nil {
				return err
			}
			if o.late, err = metaInt(b.Schema(), "late"); err != nil {
				return err
			}
		case kindRolling:
			if int(b.NumCols()) != want {
				return corruptSnapshot("rolling window columns")
			}
			isContext, err := metaInt(b.Schema(), "context")
			if err != nil {
				return err
			}
			rows := array.NewRecordBatch(planner.Schema(o.inCols[:want]), b.Columns(), b.NumRows())
			if isContext == 1 {
				o.context = rows
			} else {
				o.pending = append(o.pending, rows)
			}
		}
	}
	return nil
}

// batchSource serves given batches for the scan of one OID.
type batchSource struct {
	oid     uint32
	batches []arrow.RecordBatch
}

func (s *batchSource) ScanTable(ctx context.Context, scan *planner.Scan) ([]arrow.RecordBatch, error) {
	if scan.OID != s.oid {
		return nil, sqlerr.New(sqlerr.InternalError, "unexpected scan of %s", scan.Name)
	}
	return s.batches, nil
}
