package exec

import (
	"slices"
	"sort"

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

// sessionState is the open sessions of every partition, each partition's
// sorted by start (consecutive sessions are at least a gap apart).
type sessionState struct {
	parts  map[string][]*session
	nextID int64
	// gone lists sessions merged away since the last emission (update mode
	// deletes their rows).
	gone []int64
	hit  []*session // foldSessions' scratch
}

// rowKey is the map key of row i of cols (appendRowKey), built in the
// job's scratch buffer: a lookup with string(key) does not allocate.
func (j *StreamJob) rowKey(cols []arrow.Array, i int) []byte {
	j.keyBuf = appendRowKey(j.keyBuf[:0], cols, i)
	return j.keyBuf
}

// foldSessions adds a batch of rows to the sessions; rows whose session
// would already be closed are late.
func (j *StreamJob) foldSessions(ectx *expr.Ctx, b arrow.RecordBatch) (int64, error) {
	w := j.plan.Window
	if j.sessions == nil {
		j.sessions = &sessionState{parts: map[string][]*session{}}
	}
	tarr, err := w.Time.Eval(ectx, b)
	if err != nil {
		return 0, err
	}
	parts, err := evalAll(ectx, w.PartitionBy, b)
	if err != nil {
		return 0, err
	}
	ts := tarr.(*array.Timestamp)
	var late int64
	var lateIdx []int
	for i := 0; i < int(b.NumRows()); i++ {
		if ts.IsNull(i) {
			continue
		}
		t := int64(ts.Value(i))
		if t+w.Gap <= j.watermark {
			late++
			lateIdx = append(lateIdx, i)
			continue
		}
		row := make([]expr.Datum, b.NumCols())
		for c := range row {
			row[c] = expr.DatumAt(b.Column(c), i)
		}
		key := j.rowKey(parts, i)
		open := j.sessions.parts[string(key)]
		// A partition's sessions are sorted by start and at least a gap
		// apart, so a row falls into at most two adjacent ones: the first
		// that ends (last + gap) after it, and the next. A binary search
		// finds them; a partition may hold thousands of sessions within
		// one large epoch.
		at := sort.Search(len(open), func(k int) bool { return open[k].last+w.Gap > t })
		hit := j.sessions.hit[:0] // scratch space reused across rows
		for k := at; k < len(open) && k < at+2; k++ {
			if t > open[k].start-w.Gap {
				hit = append(hit, open[k])
			}
		}
		j.sessions.hit = hit
		if len(hit) == 0 {
			j.sessions.nextID++
			open = slices.Insert(open, at, &session{id: j.sessions.nextID, start: t, last: t,
				rows: [][]expr.Datum{row}, touched: true, firstEpoch: j.progress.Epoch + 1})
			j.sessions.parts[string(key)] = open
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
			j.sessions.gone = append(j.sessions.gone, s.id)
		}
		into.start = min(into.start, t)
		into.last = max(into.last, t)
		into.rows = append(into.rows, row)
		into.touched = true
		if len(hit) > 1 {
			// A merge of the two adjacent sessions at `at` and `at+1`: the
			// merged one takes the first's place.
			open[at] = into
			j.sessions.parts[string(key)] = slices.Delete(open, at+1, at+2)
		}
	}
	if j.KeepLate && len(lateIdx) > 0 {
		late := expr.TakeRows(b, lateIdx)
		j.late = append(j.late, withWindowColumns(late, w.Time.Type(), nil, nil))
	}
	return late, nil
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

// emitSessions produces output for closed (append) or touched (update)
// sessions and frees closed ones.
func (j *StreamJob) emitSessions(ectx *expr.Ctx) error {
	if j.sessions == nil {
		return nil
	}
	w := j.plan.Window
	if j.plan.Mode != planner.AppendMode {
		for _, id := range j.sessions.gone {
			j.rows.removeWindow(id)
		}
	}
	j.sessions.gone = nil
	keys := make([]string, 0, len(j.sessions.parts))
	for k := range j.sessions.parts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	preCols := j.plan.Window.Input.Columns()
	aggInCols := append(append([]planner.Column{}, preCols...),
		planner.Column{Name: "window_start", T: w.Time.Type()}, planner.Column{Name: "window_end", T: w.Time.Type()})
	schema := planner.Schema(aggInCols)
	// Sessions are aggregated together, as the groups of one batch, unless
	// each keeps its own accumulators to fold only its new rows (update
	// and complete mode, when the aggregates allow it).
	batched := j.plan.Mode == planner.AppendMode || !j.sessionIncremental
	var emitted []*session
	for _, k := range keys {
		var keep []*session
		for _, s := range j.sessions.parts[k] {
			closing := s.last+w.Gap <= j.watermark
			emit := (j.plan.Mode == planner.AppendMode && closing) || (j.plan.Mode != planner.AppendMode && (s.touched || j.plan.Mode == planner.CompleteMode))
			if emit {
				if batched {
					emitted = append(emitted, s)
				} else {
					out, err := j.sessionResult(ectx, s, schema, aggInCols)
					if err != nil {
						return err
					}
					j.setSessionRow(s, out, 0, out.NumRows() > 0)
				}
				s.touched = false
			}
			if !closing || j.plan.Mode == planner.CompleteMode {
				keep = append(keep, s)
			}
		}
		if len(keep) == 0 {
			delete(j.sessions.parts, k)
		} else {
			j.sessions.parts[k] = keep
		}
	}
	if len(emitted) == 0 {
		return nil
	}
	out, rowOf, err := j.sessionResults(ectx, emitted, schema, aggInCols)
	if err != nil {
		return err
	}
	if j.plan.Mode == planner.AppendMode {
		if out.NumRows() > 0 {
			j.appendOutput(out)
		}
		return nil
	}
	for i, s := range emitted {
		j.setSessionRow(s, out, rowOf[i]-1, rowOf[i] > 0)
	}
	return nil
}

// setSessionRow makes row r of out the table row of session s in update
// and complete mode (ok false: HAVING removed it).
func (j *StreamJob) setSessionRow(s *session, out arrow.RecordBatch, r int, ok bool) {
	if !ok {
		j.rows.remove(s.id, 0)
		return
	}
	row := make([]expr.Datum, out.NumCols())
	for c := range row {
		row[c] = expr.DatumAt(out.Column(c), r)
	}
	j.rows.set(s.id, 0, row)
}

// sessionCell is column c of a session row as the aggregation reads it:
// the row's own columns, then the session's window_start and window_end.
func (j *StreamJob) sessionCell(s *session, row []expr.Datum, c int) expr.Datum {
	switch {
	case c < len(row):
		return row[c]
	case c == len(row):
		return s.start
	}
	return s.last + j.plan.Window.Gap
}

// sessionResults computes the output rows of several sessions at once:
// all their rows, with each session's bounds, in one batch whose groups
// are the sessions, aggregated and projected together. rowOf[i] is session
// i's output row + 1 (0: HAVING removed it). A session costs its rows, not
// a batch, builders and accumulators of its own.
func (j *StreamJob) sessionResults(ectx *expr.Ctx, ss []*session, schema *arrow.Schema, cols []planner.Column) (arrow.RecordBatch, []int, error) {
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
				vals[r] = j.sessionCell(s, row, c)
				if c == 0 {
					groups = append(groups, uint32(si))
				}
				r++
			}
		}
		arrs[c] = expr.ArrayFromDatums(ectx.Allocator(), cols[c].T, vals)
	}
	in := array.NewRecordBatch(schema, arrs, int64(n))
	keys, err := evalAll(ectx, j.plan.Agg.GroupBy, in)
	if err != nil {
		return nil, nil, err
	}
	outCols := make([]arrow.Array, 0, len(keys)+len(j.plan.Agg.Aggs))
	for _, k := range keys {
		outCols = append(outCols, expr.TakeArray(k, first))
	}
	for i := range j.plan.Agg.Aggs {
		ai, err := newAggInput(ectx, &j.plan.Agg.Aggs[i])
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
	agg := array.NewRecordBatch(planner.Schema(j.plan.Agg.Cols), outCols, int64(len(ss)))
	var keep []int
	out, err := j.project(ectx, agg, &keep)
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
func (j *StreamJob) sessionResult(ectx *expr.Ctx, s *session, schema *arrow.Schema, cols []planner.Column) (arrow.RecordBatch, error) {
	if !j.sessionIncremental || s.folded > len(s.rows) {
		s.accs = nil
	}
	if s.accs == nil {
		s.folded = 0
		for i := range j.plan.Agg.Aggs {
			ai, err := newAggInput(ectx, &j.plan.Agg.Aggs[i])
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
			vals[i] = j.sessionCell(s, r, c)
		}
		arrs[c] = expr.ArrayFromDatums(ectx.Allocator(), cols[c].T, vals)
	}
	in := array.NewRecordBatch(schema, arrs, int64(n))
	keys, err := evalAll(ectx, j.plan.Agg.GroupBy, in)
	if err != nil {
		return nil, err
	}
	outCols := make([]arrow.Array, 0, len(keys)+len(j.plan.Agg.Aggs))
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
	if !j.sessionIncremental {
		s.accs = nil
	}
	agg := array.NewRecordBatch(planner.Schema(j.plan.Agg.Cols), outCols, 1)
	return j.project(ectx, agg, nil)
}

// sessionStateSize counts buffered session rows.
func (j *StreamJob) sessionStateSize() (rows, bytes int64) {
	if j.sessions == nil {
		return 0, 0
	}
	for _, ss := range j.sessions.parts {
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
