package exec

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// Session windows in a streaming table. A session is a run of events of
// one partition (the other GROUP BY keys) whose event times are less than
// the gap apart; it ends gap after its last event. Sessions merge when an
// event bridges two of them, so the job keeps the rows of open sessions
// and computes a session's aggregates from its rows when it is emitted: at
// close (append mode) or after each micro-batch that touched it (update
// mode, where a merge also deletes the merged sessions' rows).

// session is one open session of a partition.
type session struct {
	id          int64
	firstEpoch  int64 // the epoch of its oldest event
	start, last int64
	rows        [][]expr.Datum // rows below the aggregation
	touched     bool
	// accs hold the aggregates over rows[:folded] when the plan's
	// aggregates fold incrementally (nil: not built, or invalidated by a
	// merge), so that emitting a growing session folds only its new rows.
	accs   []*aggInput
	folded int
}

// sessionOp is the session-window aggregation: the open sessions of every
// partition, each partition's sorted by start (consecutive sessions are at
// least a gap apart). Its output is the table's columns, as windowAggOp's.
type sessionOp struct {
	plan *planner.StreamPlan
	proj *streamProjection
	// incremental: the aggregates fold only a session's new rows
	// (planner.StreamPlan.SessionAggsIncremental).
	incremental bool
	watermark   int64
	parts       map[string][]*session
	nextID      int64
	// gone lists sessions merged away since the last emission (update mode
	// deletes their rows).
	gone []int64
	hit  []*session // Push's scratch
	// emitted is each session's output row (update and complete mode),
	// keyed by session id.
	emitted  *emittedRows
	pending  []ChangeBatch
	late     int64
	lateRows []arrow.RecordBatch
	keyBuf   []byte
}

var _ StreamOperator = (*sessionOp)(nil)

func newSessionOp(plan *planner.StreamPlan) *sessionOp {
	op := &sessionOp{plan: plan, proj: newStreamProjection(plan.Having, plan.Output, plan.Cols),
		incremental: plan.SessionAggsIncremental(), watermark: math.MinInt64, parts: map[string][]*session{}}
	if plan.Mode != planner.AppendMode {
		op.emitted = newEmittedRows(plan.Cols)
	}
	return op
}

func (op *sessionOp) Inputs() int      { return 1 }
func (op *sessionOp) Watermark() int64 { return op.watermark }
func (op *sessionOp) Late() int64      { return op.late }

func (op *sessionOp) LateRows() []arrow.RecordBatch {
	out := op.lateRows
	op.lateRows = nil
	return out
}

func (op *sessionOp) Emit(*StreamCtx) ([]ChangeBatch, error) {
	out := op.pending
	op.pending = nil
	return out, nil
}

// MinEpoch: in append mode the epoch of the oldest open session's oldest
// event; in update and complete mode the first (the rows live in memory).
func (op *sessionOp) MinEpoch(next int64) int64 {
	if op.plan.Mode != planner.AppendMode {
		return 1
	}
	m := next
	for _, ss := range op.parts {
		for _, s := range ss {
			m = min(m, s.firstEpoch)
		}
	}
	return m
}

// Push adds a batch of rows to the sessions; rows whose session would
// already be closed are late.
func (op *sessionOp) Push(sc *StreamCtx, _ int, c ChangeBatch) error {
	b := c.Rows
	ectx := sc.Expr
	w := op.plan.Window
	tarr, err := w.Time.Eval(ectx, b)
	if err != nil {
		return err
	}
	parts, err := evalAll(ectx, w.PartitionBy, b)
	if err != nil {
		return err
	}
	ts := tarr.(*array.Timestamp)
	var lateIdx []int
	for i := 0; i < int(b.NumRows()); i++ {
		if ts.IsNull(i) {
			continue
		}
		t := int64(ts.Value(i))
		if t+w.Gap <= op.watermark {
			op.late++
			lateIdx = append(lateIdx, i)
			continue
		}
		row := make([]expr.Datum, b.NumCols())
		for c := range row {
			row[c] = expr.DatumAt(b.Column(c), i)
		}
		op.keyBuf = appendRowKey(op.keyBuf[:0], parts, i)
		key := op.keyBuf
		open := op.parts[string(key)]
		// A partition's sessions are sorted by start and at least a gap
		// apart, so a row falls into at most two adjacent ones: the first
		// that ends (last + gap) after it, and the next. A binary search
		// finds them; a partition may hold thousands of sessions within
		// one large epoch.
		at := sort.Search(len(open), func(k int) bool { return open[k].last+w.Gap > t })
		hit := op.hit[:0] // scratch space reused across rows
		for k := at; k < len(open) && k < at+2; k++ {
			if t > open[k].start-w.Gap {
				hit = append(hit, open[k])
			}
		}
		op.hit = hit
		if len(hit) == 0 {
			op.nextID++
			open = slices.Insert(open, at, &session{id: op.nextID, start: t, last: t,
				rows: [][]expr.Datum{row}, touched: true, firstEpoch: sc.Epoch})
			op.parts[string(key)] = open
			continue
		}
		// The row extends a session in place (appending to its rows is
		// amortised O(1); copying them into a new session at every row made
		// a session of n rows cost n²/2). A row that bridges sessions merges
		// them into the largest.
		into := hit[0]
		for _, s := range hit[1:] {
			if len(s.rows) > len(into.rows) {
				into = s
			}
		}
		for _, s := range hit {
			if s == into {
				continue
			}
			into.start = min(into.start, s.start)
			into.last = max(into.last, s.last)
			into.firstEpoch = min(into.firstEpoch, s.firstEpoch)
			into.rows = append(into.rows, s.rows...)
			into.accs = nil // its rows are no longer a prefix plus new ones
			op.gone = append(op.gone, s.id)
		}
		into.start = min(into.start, t)
		into.last = max(into.last, t)
		into.rows = append(into.rows, row)
		into.touched = true
		if len(hit) > 1 {
			// A merge of the two adjacent sessions at `at` and `at+1`: the
			// merged one takes the first's place.
			open[at] = into
			op.parts[string(key)] = slices.Delete(open, at+1, at+2)
		}
	}
	if sc.KeepLate && len(lateIdx) > 0 {
		late := expr.TakeRows(b, lateIdx)
		op.lateRows = append(op.lateRows, withWindowColumns(late, w.Time.Type(), nil, nil))
	}
	return nil
}

// withWindowColumns appends window_start / window_end columns (NULL when
// starts is nil) so late rows have the late_rows table's shape.
func withWindowColumns(b arrow.RecordBatch, tt types.T, starts, ends []int64) arrow.RecordBatch {
	n := int(b.NumRows())
	cols := append([]arrow.Array{}, b.Columns()...)
	for k := 0; k < 2; k++ {
		bld := expr.NewBuilder(nil, tt).(*array.TimestampBuilder)
		for i := 0; i < n; i++ {
			switch {
			case starts == nil:
				bld.AppendNull()
			case k == 0:
				bld.Append(arrow.Timestamp(starts[i]))
			default:
				bld.Append(arrow.Timestamp(ends[i]))
			}
		}
		cols = append(cols, bld.NewArray())
		bld.Release()
	}
	fields := append([]arrow.Field{}, b.Schema().Fields()...)
	fields = append(fields, arrow.Field{Name: "window_start", Type: tt.Arrow(), Nullable: true}, arrow.Field{Name: "window_end", Type: tt.Arrow(), Nullable: true})
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
}

// Advance raises the watermark and produces output for closed (append) or
// touched (update) sessions, or all (complete), and frees closed ones.
func (op *sessionOp) Advance(sc *StreamCtx, _ int, wm int64) error {
	if wm > op.watermark {
		op.watermark = wm
	}
	if err := op.emit(sc.Expr); err != nil {
		return err
	}
	if op.emitted != nil {
		op.pending = append(op.pending, op.emitted.changes()...)
	}
	return nil
}

func (op *sessionOp) emit(ectx *expr.Ctx) error {
	w := op.plan.Window
	if op.plan.Mode != planner.AppendMode {
		for _, id := range op.gone {
			op.emitted.removeWindow(id)
		}
	}
	op.gone = nil
	keys := make([]string, 0, len(op.parts))
	for k := range op.parts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	preCols := op.plan.Window.Input.Columns()
	aggInCols := append(append([]planner.Column{}, preCols...),
		planner.Column{Name: "window_start", T: w.Time.Type()}, planner.Column{Name: "window_end", T: w.Time.Type()})
	schema := planner.Schema(aggInCols)
	// Sessions are aggregated together, as the groups of one batch, unless
	// each keeps its own accumulators to fold only its new rows (update
	// and complete mode, when the aggregates allow it).
	batched := op.plan.Mode == planner.AppendMode || !op.incremental
	var emitted []*session
	for _, k := range keys {
		var keep []*session
		for _, s := range op.parts[k] {
			closing := s.last+w.Gap <= op.watermark
			emit := (op.plan.Mode == planner.AppendMode && closing) || (op.plan.Mode != planner.AppendMode && (s.touched || op.plan.Mode == planner.CompleteMode))
			if emit {
				if batched {
					emitted = append(emitted, s)
				} else {
					out, err := op.sessionResult(ectx, s, schema, aggInCols)
					if err != nil {
						return err
					}
					op.setSessionRow(s, out, 0, out.NumRows() > 0)
				}
				s.touched = false
			}
			if !closing || op.plan.Mode == planner.CompleteMode {
				keep = append(keep, s)
			}
		}
		if len(keep) == 0 {
			delete(op.parts, k)
		} else {
			op.parts[k] = keep
		}
	}
	if len(emitted) == 0 {
		return nil
	}
	out, rowOf, err := op.sessionResults(ectx, emitted, schema, aggInCols)
	if err != nil {
		return err
	}
	if op.plan.Mode == planner.AppendMode {
		if out.NumRows() > 0 {
			op.pending = append(op.pending, Inserts(out))
		}
		return nil
	}
	for i, s := range emitted {
		op.setSessionRow(s, out, rowOf[i]-1, rowOf[i] > 0)
	}
	return nil
}

// setSessionRow makes row r of out the table row of session s in update
// and complete mode (ok false: HAVING removed it).
func (op *sessionOp) setSessionRow(s *session, out arrow.RecordBatch, r int, ok bool) {
	if !ok {
		op.emitted.remove(s.id, 0)
		return
	}
	op.emitted.set(s.id, 0, rowDatums(out, r))
}

// sessionCell is column c of a session row as the aggregation reads it:
// the row's own columns, then the session's window_start and window_end.
func (op *sessionOp) sessionCell(s *session, row []expr.Datum, c int) expr.Datum {
	switch {
	case c < len(row):
		return row[c]
	case c == len(row):
		return s.start
	}
	return s.last + op.plan.Window.Gap
}

// sessionResults computes the output rows of several sessions at once:
// all their rows, with each session's bounds, in one batch whose groups
// are the sessions, aggregated and projected together. rowOf[i] is session
// i's output row + 1 (0: HAVING removed it). A session costs its rows, not
// a batch, builders and accumulators of its own.
func (op *sessionOp) sessionResults(ectx *expr.Ctx, ss []*session, schema *arrow.Schema, cols []planner.Column) (arrow.RecordBatch, []int, error) {
	n := 0
	for _, s := range ss {
		n += len(s.rows)
	}
	groups := make([]uint32, 0, n)
	first := make([]int, len(ss))
	arrs := make([]arrow.Array, len(cols))
	vals := make([]expr.Datum, n)
	for c := range cols {
		r := 0
		for si, s := range ss {
			if c == 0 {
				first[si] = r
			}
			for _, row := range s.rows {
				vals[r] = op.sessionCell(s, row, c)
				if c == 0 {
					groups = append(groups, uint32(si))
				}
				r++
			}
		}
		arrs[c] = expr.ArrayFromDatums(ectx.Allocator(), cols[c].T, vals)
	}
	in := array.NewRecordBatch(schema, arrs, int64(n))
	keys, err := evalAll(ectx, op.plan.Agg.GroupBy, in)
	if err != nil {
		return nil, nil, err
	}
	outCols := make([]arrow.Array, 0, len(keys)+len(op.plan.Agg.Aggs))
	for _, k := range keys {
		outCols = append(outCols, expr.TakeArray(k, first))
	}
	for i := range op.plan.Agg.Aggs {
		ai, err := newAggInput(ectx, &op.plan.Agg.Aggs[i])
		if err != nil {
			return nil, nil, err
		}
		if err := ai.add(ectx, in, groups); err != nil {
			return nil, nil, err
		}
		arr, err := ai.finish(ectx, len(ss))
		if err != nil {
			return nil, nil, err
		}
		outCols = append(outCols, arr)
	}
	agg := array.NewRecordBatch(planner.Schema(op.plan.Agg.Cols), outCols, int64(len(ss)))
	var keep []int
	out, err := op.proj.project(ectx, agg, &keep)
	if err != nil {
		return nil, nil, err
	}
	rowOf := make([]int, len(ss))
	for r, i := range keep {
		rowOf[i] = r + 1
	}
	return out, rowOf, nil
}

// sessionResult computes one session's output row: its rows with the
// session's bounds, aggregated as one group, then HAVING and the output
// expressions. When the aggregates fold incrementally, only the rows added
// since the last emission are folded into the session's accumulators (a
// long session in update mode would otherwise cost its whole length at
// every epoch).
func (op *sessionOp) sessionResult(ectx *expr.Ctx, s *session, schema *arrow.Schema, cols []planner.Column) (arrow.RecordBatch, error) {
	if !op.incremental || s.folded > len(s.rows) {
		s.accs = nil
	}
	if s.accs == nil {
		s.folded = 0
		for i := range op.plan.Agg.Aggs {
			ai, err := newAggInput(ectx, &op.plan.Agg.Aggs[i])
			if err != nil {
				return nil, err
			}
			s.accs = append(s.accs, ai)
		}
	}
	// The rows to fold, plus the last row when there are none (the group
	// keys are read from the batch's first row: every row of a session has
	// the same partition and bounds).
	start := min(s.folded, len(s.rows)-1)
	rows := s.rows[start:]
	n := len(rows)
	arrs := make([]arrow.Array, len(cols))
	for c := range cols {
		vals := make([]expr.Datum, n)
		for i, r := range rows {
			vals[i] = op.sessionCell(s, r, c)
		}
		arrs[c] = expr.ArrayFromDatums(ectx.Allocator(), cols[c].T, vals)
	}
	in := array.NewRecordBatch(schema, arrs, int64(n))
	keys, err := evalAll(ectx, op.plan.Agg.GroupBy, in)
	if err != nil {
		return nil, err
	}
	outCols := make([]arrow.Array, 0, len(keys)+len(op.plan.Agg.Aggs))
	for _, k := range keys {
		outCols = append(outCols, expr.TakeArray(k, []int{0}))
	}
	fold := in
	if skip := s.folded - start; skip > 0 {
		fold = in.NewSlice(int64(skip), int64(n))
	}
	groups := make([]uint32, fold.NumRows())
	for _, ai := range s.accs {
		if fold.NumRows() > 0 {
			if err := ai.add(ectx, fold, groups); err != nil {
				return nil, err
			}
		}
		arr, err := ai.finish(ectx, 1)
		if err != nil {
			return nil, err
		}
		outCols = append(outCols, arr)
	}
	s.folded = len(s.rows)
	if !op.incremental {
		s.accs = nil
	}
	agg := array.NewRecordBatch(planner.Schema(op.plan.Agg.Cols), outCols, 1)
	return op.proj.project(ectx, agg, nil)
}

// StateSize counts buffered session rows.
func (op *sessionOp) StateSize() (rows, bytes int64) {
	for _, ss := range op.parts {
		for _, s := range ss {
			rows += int64(len(s.rows))
			for _, r := range s.rows {
				for _, d := range r {
					bytes += datumBytes(d)
				}
			}
		}
	}
	return rows, bytes
}

// SaveState returns the sessions (partition key, bounds, id), their rows
// tagged with the session id, and the emitted rows (update and complete
// mode).
func (op *sessionOp) SaveState(sc *StreamCtx) ([]arrow.RecordBatch, error) {
	mem := sc.Expr.Allocator()
	parts := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	defer parts.Release()
	touched := array.NewBooleanBuilder(mem)
	defer touched.Release()
	var ids, firsts, starts, lasts, rowSids []int64
	preCols := op.plan.Window.Input.Columns()
	rowVals := make([][]expr.Datum, len(preCols))
	for key, ss := range op.parts {
		for _, s := range ss {
			parts.Append([]byte(key))
			touched.Append(s.touched)
			ids = append(ids, s.id)
			firsts = append(firsts, s.firstEpoch)
			starts = append(starts, s.start)
			lasts = append(lasts, s.last)
			for _, r := range s.rows {
				rowSids = append(rowSids, s.id)
				for c := range rowVals {
					rowVals[c] = append(rowVals[c], r[c])
				}
			}
		}
	}
	i64 := arrow.PrimitiveTypes.Int64
	sessions := array.NewRecordBatch(stateSchema(kindSessions, map[string]int64{"next": op.nextID}, []arrow.Field{
		{Name: "part", Type: arrow.BinaryTypes.Binary}, {Name: "touched", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "id", Type: i64}, {Name: "first", Type: i64}, {Name: "start", Type: i64}, {Name: "last", Type: i64},
	}), []arrow.Array{parts.NewArray(), touched.NewArray(), int64Array(ids), int64Array(firsts), int64Array(starts), int64Array(lasts)}, int64(len(ids)))
	fields := []arrow.Field{{Name: "sid", Type: i64}}
	cols := []arrow.Array{int64Array(rowSids)}
	for c, col := range preCols {
		arr := expr.ArrayFromDatums(mem, col.T, rowVals[c])
		fields = append(fields, arrow.Field{Name: "c" + strconv.Itoa(c), Type: arr.DataType(), Nullable: true})
		cols = append(cols, arr)
	}
	rows := array.NewRecordBatch(stateSchema(kindSessionRows, nil, fields), cols, int64(len(rowSids)))
	out := []arrow.RecordBatch{sessions, rows}
	if op.emitted != nil {
		out = append(out, op.emitted.save()...)
	}
	return out, nil
}

// LoadState restores what SaveState returned (the operator must be new).
func (op *sessionOp) LoadState(_ *StreamCtx, state []arrow.RecordBatch) error {
	var sessionRows []arrow.RecordBatch
	for _, b := range state {
		var err error
		switch stateKindOf(b) {
		case kindSessions:
			err = op.loadSessions(b)
		case kindSessionRows:
			sessionRows = append(sessionRows, b)
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
	for _, b := range sessionRows { // after the sessions they belong to
		if err := op.loadSessionRows(b); err != nil {
			return err
		}
	}
	return nil
}

func (op *sessionOp) loadSessions(b arrow.RecordBatch) error {
	next, err := metaInt(b.Schema(), "next")
	if err != nil {
		return err
	}
	if b.NumCols() != 6 {
		return corruptSnapshot("sessions of another shape")
	}
	parts, ok1 := b.Column(0).(*array.Binary)
	touched, ok2 := b.Column(1).(*array.Boolean)
	if !ok1 || !ok2 {
		return corruptSnapshot("sessions of another shape")
	}
	var cols [4][]int64
	for c := range cols {
		if cols[c], err = int64Column(b, 2+c); err != nil {
			return err
		}
	}
	ids, firsts, starts, lasts := cols[0], cols[1], cols[2], cols[3]
	op.nextID = next
	for i := range ids {
		key := string(parts.Value(i))
		op.parts[key] = append(op.parts[key], &session{id: ids[i], firstEpoch: firsts[i],
			start: starts[i], last: lasts[i], touched: touched.Value(i)})
	}
	for _, ss := range op.parts { // Push relies on the order
		slices.SortFunc(ss, func(a, b *session) int { return cmp.Compare(a.start, b.start) })
	}
	return nil
}

func (op *sessionOp) loadSessionRows(b arrow.RecordBatch) error {
	byID := map[int64]*session{}
	for _, ss := range op.parts {
		for _, s := range ss {
			byID[s.id] = s
		}
	}
	ncols := len(op.plan.Window.Input.Columns())
	if int(b.NumCols()) != 1+ncols {
		return corruptSnapshot("session rows of another shape")
	}
	sids, ok := b.Column(0).(*array.Int64)
	if !ok {
		return corruptSnapshot("session rows of another shape")
	}
	for i := 0; i < int(b.NumRows()); i++ {
		s := byID[sids.Value(i)]
		if s == nil {
			return corruptSnapshot("a row of no session")
		}
		row := make([]expr.Datum, ncols)
		for c := range row {
			row[c] = expr.DatumAt(b.Column(1+c), i)
		}
		s.rows = append(s.rows, row)
	}
	return nil
}

func (op *sessionOp) emittedTable() *emittedRows { return op.emitted }
