package exec

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// windowAggOp is the aggregation of a streaming table over tumbling or
// hopping event-time windows, or over the whole stream (GROUP BY without
// a window): the state is one group table with accumulators per open
// window. Its output is the table's columns (HAVING and the output
// expressions applied): in append mode the final rows of each window once
// the watermark passes its end; in update mode the changed groups' rows
// after every epoch (retracting their previous rows); in complete mode
// every group's row after every epoch.
type windowAggOp struct {
	plan      *planner.StreamPlan
	proj      *streamProjection
	windows   map[int64]*windowState
	watermark int64 // the input's; math.MinInt64 before any event
	// emitted is the row each group last emitted (update and complete
	// mode), which a change retracts.
	emitted  *emittedRows
	pending  []ChangeBatch // changes since the last Emit
	late     int64
	lateRows []arrow.RecordBatch
}

var _ StreamOperator = (*windowAggOp)(nil)

// windowState is the aggregation state of one window (or of the whole
// stream when the aggregation has no window): the groups seen and one
// accumulator per aggregate.
type windowState struct {
	// firstEpoch is the epoch that opened the window.
	firstEpoch int64
	start      int64
	closeAt    int64
	table      *groupTable
	inputs     []*aggInput
	keys       [][]expr.Datum // group id → key values
	dirty      []bool
	ngroups    int
}

const noWindow = math.MinInt64

func newWindowAggOp(plan *planner.StreamPlan) *windowAggOp {
	op := &windowAggOp{plan: plan, proj: newStreamProjection(plan.Having, plan.Output, plan.Cols),
		windows: map[int64]*windowState{}, watermark: math.MinInt64}
	if plan.Mode != planner.AppendMode {
		op.emitted = newEmittedRows(plan.Cols)
	}
	return op
}

func (op *windowAggOp) Inputs() int      { return 1 }
func (op *windowAggOp) Watermark() int64 { return op.watermark }
func (op *windowAggOp) Late() int64      { return op.late }

func (op *windowAggOp) LateRows() []arrow.RecordBatch {
	out := op.lateRows
	op.lateRows = nil
	return out
}

// Push folds rows below the aggregation into the state. A row whose
// window already closed is late.
func (op *windowAggOp) Push(sc *StreamCtx, _ int, c ChangeBatch) error {
	b := c.Rows
	n := int(b.NumRows())
	if n == 0 {
		return nil
	}
	ectx := sc.Expr
	keys, err := evalAll(ectx, op.plan.Agg.GroupBy, b)
	if err != nil {
		return err
	}
	// Rows per window; a row whose window already closed is late.
	rowsOf := map[int64][]int{}
	var order []int64
	var lateIdx []int
	defer func() {
		if sc.KeepLate && len(lateIdx) > 0 {
			op.lateRows = append(op.lateRows, expr.TakeRows(b, lateIdx))
		}
	}()
	if op.plan.WindowKey < 0 {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		rowsOf[noWindow], order = all, []int64{noWindow}
	} else {
		starts := keys[op.plan.WindowKey].(*array.Timestamp)
		// A hopping window puts a row in several windows; the row is late
		// only when all of them closed, i.e. when its latest one did (the
		// one whose start is within a slide of the event time).
		var times *array.Timestamp
		if op.plan.Window != nil && op.plan.Window.Kind == planner.HoppingWindow {
			arr, err := op.plan.Window.Time.Eval(ectx, b)
			if err != nil {
				return err
			}
			times = arr.(*array.Timestamp)
		}
		for i := 0; i < n; i++ {
			if starts.IsNull(i) {
				continue
			}
			s := int64(starts.Value(i))
			if op.closeTime(s) <= op.watermark {
				if times == nil || times.IsNull(i) || s+op.plan.Window.Slide > int64(times.Value(i)) {
					op.late++
					lateIdx = append(lateIdx, i)
				}
				continue
			}
			if _, ok := rowsOf[s]; !ok {
				order = append(order, s)
			}
			rowsOf[s] = append(rowsOf[s], i)
		}
	}
	for _, s := range order {
		rows := rowsOf[s]
		w, err := op.window(ectx, s, sc.Epoch)
		if err != nil {
			return err
		}
		sub, subKeys := b, keys
		if len(rows) != n {
			sub = expr.TakeRows(b, rows)
			subKeys = make([]arrow.Array, len(keys))
			for k := range keys {
				subKeys[k] = expr.TakeArray(keys[k], rows)
			}
		}
		groups := make([]uint32, len(rows))
		if len(subKeys) > 0 {
			w.table.prepare(subKeys)
		}
		for i := range rows {
			g := 0
			if len(subKeys) > 0 {
				var isNew bool
				g, isNew = w.table.insert(i)
				if isNew {
					key := make([]expr.Datum, len(subKeys))
					for k, arr := range subKeys {
						key[k] = expr.DatumAt(arr, i)
					}
					w.keys = append(w.keys, key)
					w.dirty = append(w.dirty, false)
					w.ngroups++
				}
			} else if w.ngroups == 0 {
				w.keys = append(w.keys, nil)
				w.dirty = append(w.dirty, false)
				w.ngroups = 1
			}
			groups[i] = uint32(g)
			w.dirty[g] = true
		}
		for _, in := range w.inputs {
			if err := in.add(ectx, sub, groups); err != nil {
				return err
			}
		}
	}
	return nil
}

// closeTime is when the window starting at s closes: its end.
func (op *windowAggOp) closeTime(s int64) int64 {
	if s == noWindow || op.plan.Window == nil {
		return math.MaxInt64
	}
	return s + op.plan.Window.Size
}

// window returns the state of the window starting at s, opening it (in
// epoch) when new.
func (op *windowAggOp) window(ectx *expr.Ctx, s, epoch int64) (*windowState, error) {
	if w, ok := op.windows[s]; ok {
		return w, nil
	}
	w := &windowState{start: s, closeAt: op.closeTime(s), firstEpoch: epoch}
	if len(op.plan.Agg.GroupBy) > 0 {
		ts := make([]types.T, len(op.plan.Agg.GroupBy))
		for i, e := range op.plan.Agg.GroupBy {
			ts[i] = e.Type()
		}
		w.table = newGroupTable(ectx.Allocator(), ts, false)
	}
	for i := range op.plan.Agg.Aggs {
		in, err := newAggInput(ectx, &op.plan.Agg.Aggs[i])
		if err != nil {
			return nil, err
		}
		w.inputs = append(w.inputs, in)
	}
	op.windows[s] = w
	return w, nil
}

// result computes the aggregation output rows of the given groups of w.
func (op *windowAggOp) result(ectx *expr.Ctx, w *windowState, groups []int) (arrow.RecordBatch, error) {
	ncols := len(op.plan.Agg.GroupBy) + len(op.plan.Agg.Aggs)
	cols := make([]arrow.Array, 0, ncols)
	for k, e := range op.plan.Agg.GroupBy {
		vals := make([]expr.Datum, len(groups))
		for i, g := range groups {
			vals[i] = w.keys[g][k]
		}
		cols = append(cols, expr.ArrayFromDatums(ectx.Allocator(), e.Type(), vals))
	}
	for _, in := range w.inputs {
		arr, err := in.finish(ectx, w.ngroups)
		if err != nil {
			return nil, err
		}
		if len(groups) != w.ngroups {
			arr = expr.TakeArray(arr, groups)
		}
		cols = append(cols, arr)
	}
	return array.NewRecordBatch(planner.Schema(op.plan.Agg.Cols), cols, int64(len(groups))), nil
}

// Advance raises the watermark and produces the output it makes ready:
// closed windows (append mode), changed groups (update mode), every group
// (complete mode).
func (op *windowAggOp) Advance(sc *StreamCtx, _ int, wm int64) error {
	if wm > op.watermark {
		op.watermark = wm
	}
	ectx := sc.Expr
	starts := make([]int64, 0, len(op.windows))
	for s := range op.windows {
		starts = append(starts, s)
	}
	sort.Slice(starts, func(a, b int) bool { return starts[a] < starts[b] })
	for _, s := range starts {
		w := op.windows[s]
		closing := w.closeAt <= op.watermark
		var groups []int
		switch op.plan.Mode {
		case planner.AppendMode:
			if !closing {
				continue
			}
			groups = allGroups(w.ngroups)
		case planner.UpdateMode:
			if sc.Replaying && !closing {
				// Re-running logged epochs: nothing is published until the
				// last one, so an open window's rows are computed once, then.
				continue
			}
			for g, d := range w.dirty {
				if d {
					groups = append(groups, g)
				}
			}
		case planner.CompleteMode:
			groups = allGroups(w.ngroups)
		}
		if len(groups) > 0 {
			agg, err := op.result(ectx, w, groups)
			if err != nil {
				return err
			}
			var keep []int
			out, err := op.proj.project(ectx, agg, &keep)
			if err != nil {
				return err
			}
			if op.plan.Mode == planner.AppendMode {
				if out.NumRows() > 0 {
					op.pending = append(op.pending, Inserts(out))
				}
			} else {
				kept := make([]int, len(groups)) // group position → output row + 1
				for r, i := range keep {
					kept[i] = r + 1
				}
				for gi, g := range groups {
					if r := kept[gi] - 1; r >= 0 {
						op.emitted.set(s, g, rowDatums(out, r))
					} else {
						op.emitted.remove(s, g)
					}
				}
			}
			for _, g := range groups {
				w.dirty[g] = false
			}
		}
		if closing && op.plan.Mode != planner.CompleteMode {
			delete(op.windows, s) // the window is final: free its state
		}
	}
	if op.emitted != nil {
		op.pending = append(op.pending, op.emitted.changes()...)
	}
	return nil
}

func (op *windowAggOp) Emit(*StreamCtx) ([]ChangeBatch, error) {
	out := op.pending
	op.pending = nil
	return out, nil
}

func allGroups(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// MinEpoch: in append mode, the first epoch of the oldest open window; in
// update and complete mode the first, since their emitted rows live in
// memory.
func (op *windowAggOp) MinEpoch(next int64) int64 {
	if op.plan.Mode != planner.AppendMode {
		return 1
	}
	m := next
	for _, w := range op.windows {
		m = min(m, w.firstEpoch)
	}
	return m
}

// StateSize counts groups held and estimates their bytes.
func (op *windowAggOp) StateSize() (rows, bytes int64) {
	for _, w := range op.windows {
		rows += int64(w.ngroups)
		for _, k := range w.keys {
			bytes += groupOverheadBytes + int64(len(k))*perKeyColumnBytes
			for _, d := range k {
				bytes += datumBytes(d)
			}
		}
		bytes += int64(w.ngroups) * int64(len(w.inputs)) * perAggregateBytes
	}
	if op.emitted != nil {
		bytes += op.emitted.stateBytes()
	}
	return rows, bytes
}

// SaveState returns the open windows' own fields, once each, then their
// groups packed in the same order (a restore cuts the group rows by the
// windows' counts), then the emitted rows (update and complete mode).
func (op *windowAggOp) SaveState(sc *StreamCtx) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	starts := make([]int64, 0, len(op.windows))
	for s := range op.windows {
		starts = append(starts, s)
	}
	slices.Sort(starts)
	var wStart, wClose, wFirst, wGroups []int64
	var windows packer
	for _, s := range starts {
		w := op.windows[s]
		if w.ngroups == 0 {
			continue
		}
		wStart, wClose, wFirst = append(wStart, w.start), append(wClose, w.closeAt), append(wFirst, w.firstEpoch)
		wGroups = append(wGroups, int64(w.ngroups))
		windows.add(op.saveWindow(sc.Expr, w))
	}
	if len(wStart) > 0 {
		i64 := arrow.PrimitiveTypes.Int64
		out = append(out, array.NewRecordBatch(stateSchema(kindWindows, nil, []arrow.Field{
			{Name: "start", Type: i64}, {Name: "close", Type: i64}, {Name: "first", Type: i64}, {Name: "groups", Type: i64},
		}), []arrow.Array{int64Array(wStart), int64Array(wClose), int64Array(wFirst), int64Array(wGroups)}, int64(len(wStart))))
	}
	out = append(out, windows.flush()...)
	if op.emitted != nil {
		out = append(out, op.emitted.save()...)
	}
	return out, nil
}

// saveWindow returns one window's groups: the dirty flags, the group keys,
// and each aggregate's state columns, named a<aggregate>.<column>.
func (op *windowAggOp) saveWindow(ectx *expr.Ctx, w *windowState) arrow.RecordBatch {
	mem := ectx.Allocator()
	n := w.ngroups
	fields := []arrow.Field{{Name: "dirty", Type: arrow.FixedWidthTypes.Boolean}}
	db := array.NewBooleanBuilder(mem)
	db.AppendValues(w.dirty[:n], nil)
	cols := []arrow.Array{db.NewArray()}
	db.Release()
	for k, e := range op.plan.Agg.GroupBy {
		vals := make([]expr.Datum, n)
		for g := range vals {
			vals[g] = w.keys[g][k]
		}
		arr := expr.ArrayFromDatums(mem, e.Type(), vals)
		fields = append(fields, arrow.Field{Name: "k" + strconv.Itoa(k), Type: arr.DataType(), Nullable: true})
		cols = append(cols, arr)
	}
	for i, in := range w.inputs {
		for c, arr := range in.acc.(expr.StateAccumulator).SaveState(mem, n) {
			fields = append(fields, arrow.Field{Name: "a" + strconv.Itoa(i) + "." + strconv.Itoa(c), Type: arr.DataType(), Nullable: true})
			cols = append(cols, arr)
		}
	}
	return array.NewRecordBatch(stateSchema(kindWindow, nil, fields), cols, int64(n))
}

// LoadState restores what SaveState returned (the operator must be new).
func (op *windowAggOp) LoadState(sc *StreamCtx, state []arrow.RecordBatch) error {
	var wl windowLoader
	for _, b := range state {
		var err error
		switch stateKindOf(b) {
		case kindWindows:
			err = wl.addWindows(b)
		case kindWindow:
			err = op.loadWindows(sc.Expr, &wl, b)
		case kindRows:
			if op.emitted == nil {
				return corruptSnapshot("table rows of an append-mode aggregation")
			}
			err = op.emitted.load(b)
		default:
			err = unknownStatePart(b)
		}
		if err != nil {
			return err
		}
	}
	if wl.next < len(wl.start) {
		return corruptSnapshot("windows without their groups")
	}
	return nil
}

// windowLoader hands out the windows of a snapshot in order, with how
// many of the following group rows belong to each.
type windowLoader struct {
	start, close, first, groups []int64
	next                        int // the window whose groups come next
}

func (wl *windowLoader) addWindows(b arrow.RecordBatch) error {
	if b.NumCols() != 4 {
		return corruptSnapshot("windows of another shape")
	}
	var cols [4][]int64
	for c := range cols {
		var err error
		if cols[c], err = int64Column(b, c); err != nil {
			return err
		}
	}
	wl.start = append(wl.start, cols[0]...)
	wl.close = append(wl.close, cols[1]...)
	wl.first = append(wl.first, cols[2]...)
	wl.groups = append(wl.groups, cols[3]...)
	return nil
}

// loadWindows restores the windows whose group rows a batch holds, cutting
// it by the windows' group counts (the packer never splits a window).
func (op *windowAggOp) loadWindows(ectx *expr.Ctx, wl *windowLoader, b arrow.RecordBatch) error {
	for lo := int64(0); lo < b.NumRows(); {
		if wl.next >= len(wl.start) {
			return corruptSnapshot("group rows of no window")
		}
		k := wl.next
		n := wl.groups[k]
		if n <= 0 || lo+n > b.NumRows() {
			return corruptSnapshot("a window's groups split across batches")
		}
		if err := op.loadWindow(ectx, wl.start[k], wl.first[k], b.NewSlice(lo, lo+n)); err != nil {
			return err
		}
		lo += n
		wl.next++
	}
	return nil
}

// loadWindow restores the window starting at start from its group rows.
func (op *windowAggOp) loadWindow(ectx *expr.Ctx, start, first int64, b arrow.RecordBatch) error {
	s := b.Schema()
	if _, dup := op.windows[start]; dup {
		return corruptSnapshot("a window saved twice")
	}
	w, err := op.window(ectx, start, first)
	if err != nil {
		return err
	}
	n := int(b.NumRows())
	nkeys := len(op.plan.Agg.GroupBy)
	const fixed = 1 // dirty
	if int(b.NumCols()) < fixed+nkeys {
		return corruptSnapshot("window state without its keys")
	}
	dirty, ok := b.Column(0).(*array.Boolean)
	if !ok {
		return corruptSnapshot("window state without dirty flags")
	}
	keys := b.Columns()[fixed : fixed+nkeys]
	for k, e := range op.plan.Agg.GroupBy {
		if !arrow.TypeEqual(keys[k].DataType(), e.Type().Arrow()) {
			return corruptSnapshot("window key of another type")
		}
	}
	if nkeys > 0 {
		w.table.prepare(keys)
	}
	w.keys = make([][]expr.Datum, n)
	w.dirty = make([]bool, n)
	for i := 0; i < n; i++ {
		if nkeys > 0 {
			// Inserting the keys in group order gives them back their group
			// numbers, which index the accumulators' state.
			if g, isNew := w.table.insert(i); g != i || !isNew {
				return corruptSnapshot("duplicate window key")
			}
		}
		var key []expr.Datum
		if nkeys > 0 {
			key = make([]expr.Datum, nkeys)
			for k := range key {
				key[k] = expr.DatumAt(keys[k], i)
			}
		}
		w.keys[i] = key
		w.dirty[i] = dirty.Value(i)
	}
	w.ngroups = n
	// The accumulators' columns are named a<aggregate>.<column>.
	byAgg := make([][]arrow.Array, len(w.inputs))
	for c := fixed + nkeys; c < int(b.NumCols()); c++ {
		name := s.Field(c).Name
		dot := strings.IndexByte(name, '.')
		if dot < 2 || name[0] != 'a' {
			return corruptSnapshot("bad column " + name)
		}
		i, err := strconv.Atoi(name[1:dot])
		if err != nil || i < 0 || i >= len(byAgg) {
			return corruptSnapshot("bad column " + name)
		}
		byAgg[i] = append(byAgg[i], b.Column(c))
	}
	for i, in := range w.inputs {
		acc, ok := in.acc.(expr.StateAccumulator)
		if !ok {
			return corruptSnapshot("aggregate without snapshot support")
		}
		if err := acc.LoadState(byAgg[i]); err != nil {
			return err
		}
	}
	return nil
}

func (op *windowAggOp) emittedTable() *emittedRows { return op.emitted }
