package exec

import (
	"context"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// StreamJob runs one streaming table in micro-batch epochs: it reads what
// its input offers past its offset, pushes it through the stateless part of
// the plan, folds it into the aggregation state, advances the watermark,
// emits what the output mode says is ready, and publishes the table's new
// contents. One goroutine calls Step; Snapshot and Progress may be called
// from any goroutine.
type StreamJob struct {
	plan *planner.StreamPlan
	// Source is the plan's input (see connector.Source for what an offset
	// is and what re-reading one returns).
	Source connector.Source
	// Env gives the expression context (session-independent settings) and
	// the tables other than the input.
	Env *Env
	// MaxBatchesPerEpoch bounds one epoch's input (backpressure).
	MaxBatchesPerEpoch int
	// CommitEpoch makes an epoch's input boundary durable before its output
	// is published; Replay holds the boundaries of epochs committed before a
	// restart, which are re-run with exactly the same input so that the
	// table ends as it was (late rows stay late, windows close at the same
	// epochs).
	//
	// state, when not nil, is a snapshot of the state after the epoch
	// (SaveState), to be stored with it, replacing the previous one.
	CommitEpoch func(epoch int64, rec EpochRecord, late, output, state []arrow.RecordBatch) error
	// SnapshotRows is how much input (rows) is read between two state
	// snapshots; 0 chooses it from the state's size (snapshotDue).
	SnapshotRows int64
	// snapEpoch is the epoch of the latest snapshot (0: none); rowsSince
	// and epochsSince count what was read after it.
	snapEpoch   int64
	snapRows    int64 // rows in that snapshot
	rowsSince   int64
	epochsSince int64
	snapshots   bool // SnapshotsState
	// sessionIncremental: session aggregates fold only new rows.
	sessionIncremental bool
	keyBuf             []byte // rowKey's scratch
	// StoreOutput writes the append-mode rows of a re-run epoch whose
	// output is not stored yet (epoch > StoredOutputEpochs): after CREATE OR
	// REFRESH with a new output, or a crash in the middle of such a rewrite.
	StoreOutput        func(epoch int64, output []arrow.RecordBatch) error
	StoredOutputEpochs int64
	Replay             []int64 // end offsets of the epochs to re-run
	// KeepLate collects late rows (the rows below the aggregation, with
	// their window) for CommitEpoch, to be written to a late_rows table.
	KeepLate bool
	late     []arrow.RecordBatch

	offset    int64
	watermark int64 // microseconds; math.MinInt64 before any event
	windows   map[int64]*windowState
	closed    int64 // every window with close time <= closed is gone

	// Output: append mode keeps a log of batches; update and complete
	// modes keep the current row of every group.
	outSchema *arrow.Schema
	epochOut  []arrow.RecordBatch // append mode: this epoch's new rows
	outRows   int64               // append mode: rows emitted so far
	rows      *currentRows

	sessions *sessionState
	dedup    *dedupState

	// recovered is closed once the replayed epochs are done; until then the
	// snapshot is not published, so readers never see an older state than
	// the one before the restart.
	recovered     chan struct{}
	recoveredOnce sync.Once

	snapshot atomic.Pointer[[]arrow.RecordBatch]
	// published is closed (and replaced) at every publication, waking
	// subscribers.
	pubMu     sync.Mutex
	published chan struct{}
	pubSeq    uint64
	pubEpoch  int64
	// StateLimit is the most state (bytes, as state_bytes estimates it)
	// the job may hold after an epoch; 0 is no limit. Past it the epoch
	// fails with 53200 before it commits. TableName names the table in
	// that error.
	StateLimit int64
	TableName  string

	mu       sync.Mutex
	progress Progress
	// lastTrigger is when the latest micro-batch with input started (the
	// job's creation before the first): input_rows_per_second's interval.
	lastTrigger time.Time
}

// EpochRecord is what an epoch's commit records besides its rows: where
// the input stood, the watermark, the oldest epoch whose input still
// matters to the state (a restart re-runs from there), and the progress
// figures.
type EpochRecord struct {
	End        int64 // input offset (batches) at the end of the epoch
	Watermark  int64 // after the epoch
	MinEpoch   int64 // re-running from this epoch rebuilds the state
	InputRows  int64 // cumulative
	LateRows   int64
	OutputRows int64
}

// Resume starts the job after epoch rec (epoch number n): the state is
// empty, as it was before the oldest epoch a restart re-runs.
func (j *StreamJob) Resume(n int64, rec EpochRecord) {
	j.offset = rec.End
	j.watermark = rec.Watermark
	j.outRows = rec.OutputRows
	j.mu.Lock()
	j.progress.Epoch = n
	j.progress.InputRows = rec.InputRows
	j.progress.LateRows = rec.LateRows
	j.progress.Watermark = rec.Watermark
	// Shown at once, not only after the next epoch: a table whose trigger
	// does not run again (available_now, or no new input) would otherwise
	// show no watermark and no rows after a restart. In update and complete
	// mode the rows are rebuilt by the re-run epochs and counted when
	// published; the stored append-mode rows are counted by the record.
	j.progress.HasWatermark = j.plan.EventTime != nil && rec.Watermark != math.MinInt64
	if j.plan.Mode == planner.AppendMode {
		j.progress.OutputRows = rec.OutputRows
	}
	j.mu.Unlock()
}

// minEpoch is the oldest epoch whose input the current state depends on:
// in append mode, the first epoch of the oldest open window, session or
// remembered key (the next epoch when there is no state); in update and
// complete mode the first, since their emitted rows live in memory.
func (j *StreamJob) minEpochOf(next int64) int64 {
	if j.plan.Mode != planner.AppendMode {
		return 1
	}
	m := next
	for _, w := range j.windows {
		m = min(m, w.firstEpoch)
	}
	if j.sessions != nil {
		for _, ss := range j.sessions.parts {
			for _, s := range ss {
				m = min(m, s.firstEpoch)
			}
		}
	}
	if j.dedup != nil {
		for _, e := range j.dedup.epochOf {
			m = min(m, e)
		}
	}
	return m
}

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

// Progress is what weir_catalog.streaming_progress shows of a job.
type Progress struct {
	Epoch                  int64
	InputRows              int64
	LateRows               int64
	Watermark              int64 // microseconds, math.MinInt64 when none
	HasWatermark           bool
	StateRows              int64
	StateBytes             int64
	InputRowsPerSecond     float64
	ProcessedRowsPerSecond float64
	BacklogRows            int64
	LastBatchDuration      time.Duration
	OutputRows             int64
}

const noWindow = math.MinInt64

// NewStreamJob prepares a job for a plan.
func NewStreamJob(plan *planner.StreamPlan, env *Env, source connector.Source) *StreamJob {
	j := &StreamJob{plan: plan, Env: env, Source: source, MaxBatchesPerEpoch: 64,
		watermark: math.MinInt64, closed: math.MinInt64, windows: map[int64]*windowState{},
		outSchema: planner.Schema(plan.Cols), rows: newCurrentRows()}
	empty := []arrow.RecordBatch{}
	j.snapshot.Store(&empty)
	j.recovered = make(chan struct{})
	j.progress.Watermark = math.MinInt64
	j.lastTrigger = time.Now()
	j.snapshots = PlanSnapshotsState(plan)
	j.sessionIncremental = plan.SessionAggsIncremental()
	return j
}

// Recovered is closed when the job has re-run the epochs committed before
// a restart (at once for a new job).
func (j *StreamJob) Recovered() <-chan struct{} { return j.recovered }

func (j *StreamJob) markRecovered() { j.recoveredOnce.Do(func() { close(j.recovered) }) }

// Snapshot is the table's committed contents in update and complete mode
// (never half an epoch). Append-mode rows are in the stored table instead.
func (j *StreamJob) Snapshot() []arrow.RecordBatch { return *j.snapshot.Load() }

// Progress returns the latest figures.
func (j *StreamJob) Progress() Progress {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.progress
}

// Step runs one epoch. It reports whether there was input to process.
func (j *StreamJob) Step(ctx context.Context) (bool, error) {
	started := time.Now()
	replaying := len(j.Replay) > 0
	limit := j.MaxBatchesPerEpoch
	if replaying {
		// A re-run epoch reads exactly its logged input.
		limit = int(j.Replay[0] - j.offset)
		if limit <= 0 {
			// A logged epoch that read nothing (never written so): skip it.
			j.Replay = j.Replay[1:]
			if len(j.Replay) == 0 {
				j.markRecovered()
			}
			return false, nil
		}
	}
	rd, err := j.Source.Read(ctx, j.offset, limit)
	if err != nil {
		return false, err
	}
	if j.progress.Epoch == 0 && !replaying && j.offset < rd.From {
		j.offset = rd.From // a fresh start reads what retention kept
	}
	if j.offset < rd.From {
		return false, sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "input rows this streaming table still needs were removed by retention")
	}
	if j.offset > rd.From {
		j.offset = rd.From // the input was truncated; start over from what is there
	}
	end := rd.Next
	if replaying {
		if end < j.Replay[0] {
			// The input (an upstream streaming table still recovering) does
			// not hold this epoch's batches yet: wait, so that the epoch is
			// re-run with exactly its original input.
			return false, nil
		}
		j.Replay = j.Replay[1:]
	}
	batches := rd.Batches
	backlog := rd.Backlog
	var waiting int64
	for _, b := range batches {
		waiting += b.NumRows()
	}
	// Until the epoch commits its rows still wait: a failing epoch leaves
	// backlog_rows counting them (and everything after them).
	j.mu.Lock()
	j.progress.BacklogRows = backlog + waiting
	j.mu.Unlock()
	if len(batches) == 0 {
		j.mu.Lock()
		j.progress.BacklogRows = backlog
		j.mu.Unlock()
		if len(j.Replay) == 0 {
			j.markRecovered()
		}
		return false, nil
	}
	var inRows int64
	for _, b := range batches {
		inRows += b.NumRows()
	}
	j.rowsSince += inRows
	j.epochsSince++
	ectx := j.Env.exprCtx()
	// The watermark candidate: the largest event time delivered, minus the
	// delay. It takes effect at the end of the epoch.
	candidate := j.watermark
	if j.plan.EventTime != nil && rd.HasWatermark && rd.Watermark-j.plan.Delay > candidate {
		// The source promises no earlier event time after these rows.
		candidate = rd.Watermark - j.plan.Delay
	}
	if j.plan.EventTime != nil {
		for _, b := range batches {
			arr, err := j.plan.EventTime.Eval(ectx, b)
			if err != nil {
				return false, err
			}
			ts := arr.(*array.Timestamp)
			for i := 0; i < ts.Len(); i++ {
				if !ts.IsNull(i) {
					if v := int64(ts.Value(i)) - j.plan.Delay; v > candidate {
						candidate = v
					}
				}
			}
		}
	}
	pre, err := j.runPre(ctx, batches)
	if err != nil {
		return false, err
	}
	var late int64
	if j.plan.Agg == nil {
		if j.plan.Dedup != nil {
			if pre, late, err = j.dedupe(ectx, pre); err != nil {
				return false, err
			}
		}
		if err := j.appendStateless(ectx, pre); err != nil {
			return false, err
		}
	} else {
		for _, b := range pre {
			fold := j.fold
			if j.isSession() {
				fold = j.foldSessions
			}
			n, err := fold(ectx, b)
			if err != nil {
				return false, err
			}
			late += n
		}
	}
	if candidate > j.watermark {
		j.watermark = candidate
	}
	j.expireDedup()
	if j.plan.Agg != nil {
		emit := j.emit
		if j.isSession() {
			emit = j.emitSessions
		}
		if err := emit(ectx); err != nil {
			return false, err
		}
	}
	stateRows, stateBytes := j.stateSize()
	if j.StateLimit > 0 && stateBytes > j.StateLimit {
		return false, j.stateLimitError(stateRows, stateBytes)
	}
	j.offset = end
	epoch := j.progress.Epoch + 1
	if j.plan.Mode == planner.AppendMode && j.epochOut == nil {
		j.epochOut = []arrow.RecordBatch{} // an epoch with no new rows still counts as stored
	}
	var epochRows int64
	for _, b := range j.epochOut {
		epochRows += b.NumRows()
	}
	switch {
	case j.CommitEpoch != nil && !replaying:
		rec := EpochRecord{End: end, Watermark: j.watermark, MinEpoch: j.minEpochOf(epoch + 1),
			InputRows: j.progress.InputRows + inRows, LateRows: j.progress.LateRows + late, OutputRows: j.outRows + epochRows}
		var snap []arrow.RecordBatch
		if j.snapshotDue() {
			if snap, err = j.SaveState(ectx); err != nil {
				return false, err
			}
			if snap == nil {
				snap = []arrow.RecordBatch{} // an empty state is a snapshot too
			}
			rec.MinEpoch = epoch + 1
		} else if j.snapEpoch > 0 {
			// A restart starts from the snapshot, or later when the state
			// it holds is all gone (append mode).
			rec.MinEpoch = max(rec.MinEpoch, j.snapEpoch+1)
		}
		if err := j.CommitEpoch(epoch, rec, j.late, j.epochOut, snap); err != nil {
			return false, err
		}
		if snap != nil {
			j.snapEpoch, j.rowsSince, j.epochsSince, j.snapRows = epoch, 0, 0, batchRows(snap)
		}
	case replaying && j.StoreOutput != nil && epoch > j.StoredOutputEpochs && j.plan.Mode == planner.AppendMode:
		if err := j.StoreOutput(epoch, j.epochOut); err != nil {
			return false, err
		}
	}
	j.outRows += epochRows
	j.epochOut = nil
	j.late = nil
	if len(j.Replay) == 0 {
		j.publish()
		j.markRecovered()
	}
	d := time.Since(started)
	j.mu.Lock()
	p := &j.progress
	p.Epoch++
	p.InputRows += inRows
	p.LateRows += late
	p.BacklogRows = backlog
	p.LastBatchDuration = d
	p.HasWatermark = j.plan.EventTime != nil && j.watermark != math.MinInt64
	p.Watermark = j.watermark
	p.StateRows, p.StateBytes = stateRows, stateBytes
	if secs := d.Seconds(); secs > 0 {
		p.ProcessedRowsPerSecond = float64(inRows) / secs
	}
	// Spark's inputRowsPerSecond: the rows of this micro-batch over the
	// time since the previous one with input started (or the job did), i.e.
	// the rate the rows arrived at, which the processing rate exceeds
	// whenever the table keeps up.
	if secs := started.Sub(j.lastTrigger).Seconds(); secs > 0 {
		p.InputRowsPerSecond = float64(inRows) / secs
	}
	j.lastTrigger = started
	j.mu.Unlock()
	return true, nil
}

// streamSource substitutes the epoch's batches for the input's rows.
type streamSource struct {
	input   uint32
	batches []arrow.RecordBatch
	other   TableSource
}

func (s *streamSource) ScanTable(ctx context.Context, scan *planner.Scan) ([]arrow.RecordBatch, error) {
	if scan.OID == s.input && scan.Kind == planner.StoredTable {
		return s.batches, nil
	}
	if s.other == nil {
		return nil, sqlerr.New(sqlerr.InternalError, "no table source for %s", scan.Name)
	}
	return s.other.ScanTable(ctx, scan)
}

func (j *StreamJob) runPre(ctx context.Context, batches []arrow.RecordBatch) ([]arrow.RecordBatch, error) {
	env := &Env{Tables: &streamSource{input: j.plan.Input.OID, batches: batches, other: j.Env.Tables}, Ctx: j.Env.Ctx}
	return Run(ctx, env, j.plan.Pre)
}

// appendStateless computes the output rows of a query without aggregation.
func (j *StreamJob) appendStateless(ectx *expr.Ctx, pre []arrow.RecordBatch) error {
	for _, b := range pre {
		if b.NumRows() == 0 {
			continue
		}
		out, err := j.project(ectx, b, nil)
		if err != nil {
			return err
		}
		if out != nil && out.NumRows() > 0 {
			j.appendOutput(out)
		}
	}
	return nil
}

// appendOutput adds append-mode rows of the epoch being computed. They are
// not kept in memory: the epoch's commit writes them to the streaming
// table's stored chunks, which is what readers scan.
func (j *StreamJob) appendOutput(b arrow.RecordBatch) {
	j.epochOut = append(j.epochOut, b)
}

// project evaluates HAVING and the output expressions over rows; keep, if
// not nil, receives for each output row the index of its input row.
func (j *StreamJob) project(ectx *expr.Ctx, b arrow.RecordBatch, keep *[]int) (arrow.RecordBatch, error) {
	if j.plan.Having != nil {
		arr, err := j.plan.Having.Eval(ectx, b)
		if err != nil {
			return nil, err
		}
		pred := arr.(*array.Boolean)
		var idx []int
		for i := 0; i < pred.Len(); i++ {
			if !pred.IsNull(i) && pred.Value(i) {
				idx = append(idx, i)
			}
		}
		if keep != nil {
			*keep = idx
		}
		if len(idx) != int(b.NumRows()) {
			b = expr.TakeRows(b, idx)
		}
	} else if keep != nil {
		*keep = nil
		for i := 0; i < int(b.NumRows()); i++ {
			*keep = append(*keep, i)
		}
	}
	cols, err := evalAll(ectx, j.plan.Output, b)
	if err != nil {
		return nil, err
	}
	return array.NewRecordBatch(j.outSchema, cols, b.NumRows()), nil
}

// fold adds one pre-output batch to the aggregation state and returns the
// number of late rows it dropped.
func (j *StreamJob) fold(ectx *expr.Ctx, b arrow.RecordBatch) (int64, error) {
	n := int(b.NumRows())
	if n == 0 {
		return 0, nil
	}
	keys, err := evalAll(ectx, j.plan.Agg.GroupBy, b)
	if err != nil {
		return 0, err
	}
	// Rows per window; a row whose window already closed is late.
	rowsOf := map[int64][]int{}
	var order []int64
	var late int64
	var lateIdx []int
	defer func() {
		if j.KeepLate && len(lateIdx) > 0 {
			j.late = append(j.late, expr.TakeRows(b, lateIdx))
		}
	}()
	if j.plan.WindowKey < 0 {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		rowsOf[noWindow], order = all, []int64{noWindow}
	} else {
		starts := keys[j.plan.WindowKey].(*array.Timestamp)
		// A hopping window puts a row in several windows; the row is late
		// only when all of them closed, i.e. when its latest one did (the
		// one whose start is within a slide of the event time).
		var times *array.Timestamp
		if j.plan.Window != nil && j.plan.Window.Kind == planner.HoppingWindow {
			arr, err := j.plan.Window.Time.Eval(ectx, b)
			if err != nil {
				return 0, err
			}
			times = arr.(*array.Timestamp)
		}
		for i := 0; i < n; i++ {
			if starts.IsNull(i) {
				continue
			}
			s := int64(starts.Value(i))
			if j.closeTime(s) <= j.watermark {
				if times == nil || times.IsNull(i) || s+j.plan.Window.Slide > int64(times.Value(i)) {
					late++
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
		w, err := j.window(ectx, s)
		if err != nil {
			return 0, err
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
				return 0, err
			}
		}
	}
	return late, nil
}

// closeTime is when the window starting at s closes: its end.
func (j *StreamJob) closeTime(s int64) int64 {
	if s == noWindow || j.plan.Window == nil {
		return math.MaxInt64
	}
	size := j.plan.Window.Size
	if j.plan.Window.Kind == planner.SessionWindow {
		size = j.plan.Window.Gap
	}
	return s + size
}

func (j *StreamJob) window(ectx *expr.Ctx, s int64) (*windowState, error) {
	if w, ok := j.windows[s]; ok {
		return w, nil
	}
	w := &windowState{start: s, closeAt: j.closeTime(s), firstEpoch: j.progress.Epoch + 1}
	if len(j.plan.Agg.GroupBy) > 0 {
		ts := make([]types.T, len(j.plan.Agg.GroupBy))
		for i, e := range j.plan.Agg.GroupBy {
			ts[i] = e.Type()
		}
		w.table = newGroupTable(ectx.Allocator(), ts, false)
	}
	for i := range j.plan.Agg.Aggs {
		in, err := newAggInput(ectx, &j.plan.Agg.Aggs[i])
		if err != nil {
			return nil, err
		}
		w.inputs = append(w.inputs, in)
	}
	j.windows[s] = w
	return w, nil
}

// result computes the aggregation output rows of the given groups of w.
func (j *StreamJob) result(ectx *expr.Ctx, w *windowState, groups []int) (arrow.RecordBatch, error) {
	ncols := len(j.plan.Agg.GroupBy) + len(j.plan.Agg.Aggs)
	cols := make([]arrow.Array, 0, ncols)
	for k, e := range j.plan.Agg.GroupBy {
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
	return array.NewRecordBatch(planner.Schema(j.plan.Agg.Cols), cols, int64(len(groups))), nil
}

// emit produces output after the watermark advanced.
func (j *StreamJob) emit(ectx *expr.Ctx) error {
	starts := make([]int64, 0, len(j.windows))
	for s := range j.windows {
		starts = append(starts, s)
	}
	sort.Slice(starts, func(a, b int) bool { return starts[a] < starts[b] })
	for _, s := range starts {
		w := j.windows[s]
		closing := w.closeAt <= j.watermark
		var groups []int
		switch j.plan.Mode {
		case planner.AppendMode:
			if !closing {
				continue
			}
			groups = allGroups(w.ngroups)
		case planner.UpdateMode:
			if len(j.Replay) > 0 && !closing {
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
			agg, err := j.result(ectx, w, groups)
			if err != nil {
				return err
			}
			var keep []int
			out, err := j.project(ectx, agg, &keep)
			if err != nil {
				return err
			}
			if j.plan.Mode == planner.AppendMode {
				if out.NumRows() > 0 {
					j.appendOutput(out)
				}
			} else {
				kept := make([]int, len(groups)) // group position → output row + 1
				for r, i := range keep {
					kept[i] = r + 1
				}
				for gi, g := range groups {
					if r := kept[gi] - 1; r >= 0 {
						row := make([]expr.Datum, out.NumCols())
						for c := range row {
							row[c] = expr.DatumAt(out.Column(c), r)
						}
						j.rows.set(s, g, row)
					} else {
						j.rows.remove(s, g)
					}
				}
			}
			for _, g := range groups {
				w.dirty[g] = false
			}
		}
		if closing && j.plan.Mode != planner.CompleteMode {
			delete(j.windows, s) // the window is final: free its state
		}
	}
	return nil
}

func allGroups(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// publish makes the epoch's output visible to readers in one step.
func (j *StreamJob) publish() { j.publishEpoch(j.progress.Epoch + 1) } // Step counts the epoch right after publishing it

// publishEpoch publishes the current state as that of the given epoch.
func (j *StreamJob) publishEpoch(epoch int64) {
	var snap []arrow.RecordBatch
	var n int64
	if j.plan.Mode == planner.AppendMode {
		n = j.outRows // the rows themselves are in the stored table
	} else {
		snap = j.rows.batches(j.outSchema, j.plan.Cols)
	}
	for _, b := range snap {
		n += b.NumRows()
	}
	j.snapshot.Store(&snap)
	j.mu.Lock()
	j.progress.OutputRows = n
	j.mu.Unlock()
	j.pubMu.Lock()
	j.pubSeq++
	j.pubEpoch = epoch
	if j.published != nil {
		close(j.published)
		j.published = nil
	}
	j.pubMu.Unlock()
}

// Publication returns how many times the table was published, the epoch
// of the latest publication, and a channel closed at the next one.
func (j *StreamJob) Publication() (uint64, int64, <-chan struct{}) {
	j.pubMu.Lock()
	defer j.pubMu.Unlock()
	if j.published == nil {
		j.published = make(chan struct{})
	}
	return j.pubSeq, j.pubEpoch, j.published
}

func (j *StreamJob) isSession() bool {
	return j.plan.Window != nil && j.plan.Window.Kind == planner.SessionWindow
}

// Per-group memory of the aggregation state besides the key values, as
// measured with the Go heap profiler (weirbench -profile): the hash table's
// hash and slots, the stored key columns, the key's slice header, the dirty
// flag, and about 40 bytes of accumulator state per aggregate.
const (
	groupOverheadBytes   = 56
	perKeyColumnBytes    = 33
	perAggregateBytes    = 40
	perOutputRowBytes    = 64 // update mode: the table's row map entry and slice
	perOutputColumnBytes = 16
)

// stateSize counts groups held and estimates their bytes.
func (j *StreamJob) stateSize() (rows, bytes int64) {
	if j.isSession() {
		return j.sessionStateSize()
	}
	if j.dedup != nil {
		for k := range j.dedup.seen {
			rows++
			bytes += int64(len(k)) + groupOverheadBytes
		}
		return rows, bytes
	}
	for _, w := range j.windows {
		rows += int64(w.ngroups)
		for _, k := range w.keys {
			bytes += groupOverheadBytes + int64(len(k))*perKeyColumnBytes
			for _, d := range k {
				bytes += datumBytes(d)
			}
		}
		bytes += int64(w.ngroups) * int64(len(w.inputs)) * perAggregateBytes
	}
	bytes += int64(j.rows.len()) * (perOutputRowBytes + int64(len(j.plan.Cols))*perOutputColumnBytes)
	return rows, bytes
}

func datumBytes(d expr.Datum) int64 {
	switch v := d.(type) {
	case string:
		return int64(len(v)) + 16
	case []byte:
		return int64(len(v)) + 24
	case nil:
		return 1
	}
	return 8
}

// Watermark is the current watermark (microseconds) and whether there is one.
func (j *StreamJob) Watermark() (int64, bool) {
	p := j.Progress()
	return p.Watermark, p.HasWatermark
}

// Replaying reports whether logged epochs remain to be re-run.
func (j *StreamJob) Replaying() bool { return len(j.Replay) > 0 }

// Reset forgets everything computed since the last publication and
// prepares to re-run the logged epochs (after a storage failure left the
// in-memory state ahead of the log). Readers keep the last published
// table meanwhile.
func (j *StreamJob) Reset(replay []int64) {
	j.offset = 0
	j.watermark = math.MinInt64
	j.windows = map[int64]*windowState{}
	j.sessions = nil
	j.dedup = nil
	j.epochOut = nil
	j.outRows = 0
	j.rows = newCurrentRows()
	j.late = nil
	j.Replay = replay
	j.snapEpoch, j.rowsSince, j.epochsSince, j.snapRows = 0, 0, 0, 0
	j.mu.Lock()
	published := j.progress.OutputRows
	j.progress = Progress{Watermark: math.MinInt64, OutputRows: published}
	j.mu.Unlock()
}
