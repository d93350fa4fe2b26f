package exec

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// StreamJob runs one streaming table in micro-batch epochs: it reads what
// its input offers past its offset, pushes it through the stateless part of
// the plan into the stateful operator (StreamOperator: aggregation,
// sessions, deduplication; none for a stateless query), advances the
// watermark, collects the operator's changes, commits the epoch and
// publishes the table's new contents. The job is the epoch driver only:
// the state and its snapshot are the operator's. One goroutine calls Step;
// Snapshot and Progress may be called from any goroutine.
type StreamJob struct {
	plan *planner.StreamPlan
	// Source is the plan's input (see connector.Source for what an offset
	// is and what re-reading one returns); More are the further sources of
	// a stream tree (source i+1 is More[i]), each read from its own offset
	// (stream_job_inputs.go).
	Source      connector.Source
	More        []connector.Source
	moreOffsets []int64
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
	// CheckOutput, when set, sees the rows an epoch inserts at the root
	// (in any output mode) before it commits; an error fails the epoch,
	// and nothing of it is committed or published (the table's NOT NULL
	// columns, engine/not_null.go).
	CheckOutput func(epoch int64, rows []arrow.RecordBatch) error
	// Expectations, when set, checks the table's expectations on the rows
	// an epoch writes before it commits, dropping what DROP ROW rejects
	// (stream_expectations.go).
	Expectations *ExpectationStage
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
	// StoreOutput writes the append-mode rows of a re-run epoch whose
	// output is not stored yet (epoch > StoredOutputEpochs): after CREATE OR
	// REFRESH with a new output, or a crash in the middle of such a rewrite.
	StoreOutput        func(epoch int64, output []arrow.RecordBatch) error
	StoredOutputEpochs int64
	Replay             []int64 // end offsets of the epochs to re-run
	// ReplayMore holds, for each epoch of Replay, the end offsets of the
	// More sources; ReplayNow its processing time (0: not recorded).
	ReplayMore [][]int64
	ReplayNow  []int64
	// ReplayOutputRows, when HasReplayOutputRows, is the append-mode
	// output count the last re-run epoch's record holds. A re-run that
	// starts after the first epoch from an empty state can emit fewer rows
	// than the first run did (a window whose rows came before the re-run's
	// first epoch closes unseen); those rows are stored, so the count
	// continues from the record, not from the re-run.
	ReplayOutputRows    int64
	HasReplayOutputRows bool
	// KeepLate collects late rows (the rows below the aggregation, with
	// their window) for CommitEpoch, to be written to a late_rows table.
	KeepLate bool
	late     []arrow.RecordBatch

	// RerunSinks gets the changes of every re-run epoch, for the table's
	// sinks that have not committed it (stream_sinks.go); committing is
	// the changes of the epoch CommitEpoch is committing.
	RerunSinks func(epoch int64, changes []ChangeBatch) error
	// SinkChangesFrom (stream_sinks.go): re-run epochs from it on compute
	// their changes as the first run did; 0: no sink needs them.
	SinkChangesFrom int64
	committing      []ChangeBatch

	offset    int64
	watermark int64 // the input's, microseconds; math.MinInt64 before any event
	// op is the stateful stage (nil for a stateless query, whose rows
	// proj turns into the table's columns).
	op   StreamOperator
	proj *streamProjection
	// opErr is why the plan's operator could not be built (every epoch
	// fails with it).
	opErr error

	// Output: append mode keeps a log of batches; update and complete
	// modes keep the current row of every group (the operator's).
	outSchema *arrow.Schema
	outRows   int64 // append mode: rows emitted so far
	// history is the root's changes of the latest published epochs
	// (ChangesSince); commitMu makes an epoch's commit and publication one
	// step for ReadPublished.
	history  *changeHistory
	commitMu sync.RWMutex

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
	// arrivals measures input_rows_per_second (stream_figures.go);
	// figures are the epoch's being committed (EpochRecord.Figures).
	arrivals arrivals
	figures  EpochFigures
	id       uint64 // EpochFigures.Job
}

// EpochRecord is what an epoch's commit records besides its rows: where
// the input stood, the watermark, the oldest epoch whose input still
// matters to the state (a restart re-runs from there), and the progress
// figures.
type EpochRecord struct {
	End      int64   // input offset (batches) at the end of the epoch
	MoreEnds []int64 // the further sources' (a stream tree's)
	// Now is the epoch's processing time (microseconds): now() and
	// current_timestamp in it, as Spark evaluates them per micro-batch.
	Now        int64
	Watermark  int64 // after the epoch
	MinEpoch   int64 // re-running from this epoch rebuilds the state
	InputRows  int64 // cumulative
	LateRows   int64
	OutputRows int64
	// Figures are what the epoch measured of itself (not checkpointed).
	Figures EpochFigures
}

// Resume starts the job after epoch rec (epoch number n): the state is
// empty, as it was before the oldest epoch a restart re-runs.
func (j *StreamJob) Resume(n int64, rec EpochRecord) {
	j.offset = rec.End
	j.moreOffsets = append([]int64(nil), rec.MoreEnds...)
	j.watermark = rec.Watermark
	if j.op != nil && j.plan.Tree == nil && rec.Watermark != math.MinInt64 {
		// The operator learns where the input's watermark stood (rows below
		// it are late). Its state is empty, so this emits nothing.
		sc := &StreamCtx{Expr: j.Env.exprCtx(), Epoch: n}
		if err := j.op.Advance(sc, 0, rec.Watermark); err == nil {
			j.op.Emit(sc)
		}
	}
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

// minEpochOf is the oldest epoch whose input the current state depends on
// (the operator's MinEpoch; next when there is no state).
func (j *StreamJob) minEpochOf(next int64) int64 {
	if j.op == nil {
		return next
	}
	return j.op.MinEpoch(next)
}

// newStreamOperator builds the plan's stateful operator (nil: none, a
// stateless query): a stream tree's graph, or the operator of the
// single-stage plan's stateful node.
func newStreamOperator(plan *planner.StreamPlan) (StreamOperator, error) {
	if plan.Tree != nil {
		return newGraphOp(plan)
	}
	switch plan.Stages.Kind {
	case planner.StageSessionAggNode:
		return newSessionOp(plan), nil
	case planner.StageWindowAggNode:
		return newWindowAggOp(plan), nil
	case planner.StageDedupNode:
		return newDedupOp(plan), nil
	}
	return nil, nil
}

// setOperator builds a fresh operator for the plan.
func (j *StreamJob) setOperator() {
	op, err := newStreamOperator(j.plan)
	j.op, j.opErr = op, err
	if op == nil {
		j.op = nil // not a typed nil: a stateless plan has no operator
	}
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

// NewStreamJob prepares a job for a plan.
func NewStreamJob(plan *planner.StreamPlan, env *Env, source connector.Source) *StreamJob {
	j := &StreamJob{plan: plan, Env: env, Source: source, MaxBatchesPerEpoch: 64,
		watermark: math.MinInt64, proj: newStreamProjection(nil, plan.Output, plan.Cols),
		outSchema: planner.Schema(plan.Cols), history: newChangeHistory()}
	j.setOperator()
	empty := []arrow.RecordBatch{}
	j.snapshot.Store(&empty)
	j.recovered = make(chan struct{})
	j.progress.Watermark = math.MinInt64
	j.snapshots = PlanSnapshotsState(plan)
	j.id = jobIDs.Add(1)
	j.arrivals.start = time.Now()
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
	if j.opErr != nil {
		return false, j.opErr
	}
	// The epoch's processing time: now, or the logged one of a re-run
	// epoch (read before readInputs moves past it).
	epochNow := started.UnixMicro()
	if replaying && len(j.ReplayNow) > 0 && j.ReplayNow[0] != 0 {
		epochNow = j.ReplayNow[0]
	}
	reads, ok, err := j.readInputs(ctx, replaying)
	if err != nil || !ok {
		return false, err
	}
	readDone := time.Now()
	rd := reads[0]
	end := rd.Next
	batches := rd.Batches
	var backlog, waiting int64
	var all []arrow.RecordBatch // every source's batches
	for _, r := range reads {
		backlog += r.Backlog
		all = append(all, r.Batches...)
	}
	for _, b := range all {
		waiting += b.NumRows()
	}
	// Until the epoch commits its rows still wait: a failing epoch leaves
	// backlog_rows counting them (and everything after them).
	j.mu.Lock()
	j.progress.BacklogRows = backlog + waiting
	j.mu.Unlock()
	if len(all) == 0 {
		j.arrivals.read(readDone, 0, backlog)
		j.mu.Lock()
		j.progress.BacklogRows = backlog
		j.mu.Unlock()
		if len(j.Replay) == 0 {
			j.markRecovered()
		}
		return false, nil
	}
	inRows := waiting
	j.rowsSince += inRows
	j.epochsSince++
	ectx := j.epochCtx(epochNow)
	var late int64
	var changes []ChangeBatch
	if j.plan.Tree != nil {
		changes, late, err = j.runTree(ectx, reads)
	} else {
		changes, late, err = j.runSingle(ctx, ectx, rd, batches)
	}
	if err != nil {
		return false, err
	}
	stateRows, stateBytes := j.stateSize()
	if j.StateLimit > 0 && stateBytes > j.StateLimit {
		return false, j.stateLimitError(stateRows, stateBytes)
	}
	j.offset = end
	for i := 1; i < j.sourceCount(); i++ {
		j.setOffset(i, reads[i].Next)
	}
	inRate := j.arrivals.read(readDone, inRows, backlog)
	j.figures = EpochFigures{Job: j.id, Start: started, Read: readDone.Sub(started), Process: time.Since(readDone), InputRows: inRows, LateRows: late,
		StateRows: stateRows, StateBytes: stateBytes, Watermark: j.watermark, HasWatermark: j.plan.EventTime != nil && j.watermark != math.MinInt64,
		InputRowsPerSecond: inRate}
	step := StreamStep{Epoch: j.progress.Epoch + 1, Ends: append([]int64{end}, j.moreEnds(reads)...), Watermark: j.watermark, Now: epochNow,
		Changes: changes, Late: j.late, LateRows: late, InputRows: inRows}
	j.late = nil
	if err := j.commit(ectx, &step, replaying); err != nil {
		return false, err
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
	// The rate rows arrived at the inputs, not the rate they were read
	// at (which is the processing rate whenever the table is behind).
	p.InputRowsPerSecond = inRate
	j.mu.Unlock()
	return true, nil
}

// runSingle runs an epoch of a single-stage plan: the watermark candidate
// (the largest event time delivered, minus the delay; it takes effect at
// the end of the epoch), the stateless part, the operator.
func (j *StreamJob) runSingle(ctx context.Context, ectx *expr.Ctx, rd connector.Read, batches []arrow.RecordBatch) ([]ChangeBatch, int64, error) {
	candidate := j.watermark
	if c, has, err := watermarkCandidate(ectx, j.plan.EventTime, j.plan.Delay, rd); err != nil {
		return nil, 0, err
	} else if has && c > candidate {
		candidate = c
	}
	pre, err := j.runPre(ctx, ectx, batches)
	if err != nil {
		return nil, 0, err
	}
	if candidate > j.watermark {
		j.watermark = candidate
	}
	return j.runOperator(ectx, pre)
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

func (j *StreamJob) runPre(ctx context.Context, ectx *expr.Ctx, batches []arrow.RecordBatch) ([]arrow.RecordBatch, error) {
	env := &Env{Tables: &streamSource{input: j.plan.Input.OID, batches: batches, other: j.Env.Tables}, Ctx: ectx}
	return Run(ctx, env, j.plan.Pre)
}

// runOperator pushes the epoch's rows (the stateless part's output) into
// the operator, advances its watermark to the job's, and takes the
// changes the epoch produced; it returns how many rows were dropped as
// late. A stateless query's rows are projected to the table's columns.
func (j *StreamJob) runOperator(ectx *expr.Ctx, pre []arrow.RecordBatch) ([]ChangeBatch, int64, error) {
	var changes []ChangeBatch
	var late int64
	if j.op == nil {
		for _, b := range pre {
			if b.NumRows() == 0 {
				continue
			}
			out, err := j.proj.project(ectx, b, nil)
			if err != nil {
				return nil, 0, err
			}
			if out.NumRows() > 0 {
				changes = append(changes, Inserts(out))
			}
		}
	} else {
		sc := &StreamCtx{Expr: ectx, Epoch: j.progress.Epoch + 1, Replaying: j.replayingFor(j.progress.Epoch + 1), KeepLate: j.KeepLate}
		lateBefore := j.op.Late()
		for _, b := range pre {
			if err := j.op.Push(sc, 0, Inserts(b)); err != nil {
				return nil, 0, err
			}
		}
		if err := j.op.Advance(sc, 0, j.watermark); err != nil {
			return nil, 0, err
		}
		var err error
		if changes, err = j.op.Emit(sc); err != nil {
			return nil, 0, err
		}
		late = j.op.Late() - lateBefore
		j.late = append(j.late, j.op.LateRows()...)
	}
	return changes, late, nil
}

// commit makes the epoch durable (CommitEpoch, with a state snapshot when
// one is due; StoreOutput for a re-run epoch whose output was not stored),
// then publishes it, unless logged epochs remain to be re-run. Readers
// that ReadPublished see the table of one published epoch, never one
// whose commit and publication are half done.
func (j *StreamJob) commit(ectx *expr.Ctx, step *StreamStep, replaying bool) error {
	j.commitMu.Lock()
	defer j.commitMu.Unlock()
	epoch := step.Epoch
	if err := j.Expectations.check(ectx, step.Changes); err != nil {
		return err
	}
	output := j.epochOutput(step)
	if j.CheckOutput != nil && !replaying {
		rows := make([]arrow.RecordBatch, len(step.Changes))
		for i, c := range step.Changes {
			rows[i] = c.Rows
		}
		if err := j.CheckOutput(epoch, rows); err != nil {
			return err
		}
	}
	j.committing = step.Changes
	defer func() { j.committing = nil }()
	var epochRows int64
	for _, b := range output {
		epochRows += b.NumRows()
	}
	j.figures.CommitStart = time.Now()
	j.figures.OutputRows = epochRows
	if output == nil {
		j.figures.OutputRows = changedRows(step.Changes)
	}
	switch {
	case j.CommitEpoch != nil && !replaying:
		rec := EpochRecord{End: step.Ends[0], MoreEnds: step.Ends[1:], Now: step.Now, Watermark: j.watermark, MinEpoch: j.minEpochOf(epoch + 1),
			InputRows: j.progress.InputRows + step.InputRows, LateRows: j.progress.LateRows + step.LateRows, OutputRows: j.outRows + epochRows,
			Figures: j.figures}
		var snap []arrow.RecordBatch
		if j.snapshotDue() {
			var err error
			if snap, err = j.SaveState(ectx); err != nil {
				return err
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
		if err := j.CommitEpoch(epoch, rec, step.Late, output, snap); err != nil {
			return err
		}
		if snap != nil {
			j.snapEpoch, j.rowsSince, j.epochsSince, j.snapRows = epoch, 0, 0, batchRows(snap)
		}
	case replaying && j.StoreOutput != nil && epoch > j.StoredOutputEpochs && j.plan.Mode == planner.AppendMode:
		if err := j.StoreOutput(epoch, output); err != nil {
			return err
		}
	}
	if replaying && j.RerunSinks != nil {
		if err := j.RerunSinks(epoch, step.Changes); err != nil {
			return err
		}
	}
	j.outRows += epochRows
	if replaying && len(j.Replay) == 0 && j.HasReplayOutputRows && j.plan.Mode == planner.AppendMode {
		j.outRows = j.ReplayOutputRows
	}
	if replaying {
		// Readers hold the table as published before the re-run (or
		// nothing): these changes start from another state.
		j.history.restart(epoch)
	} else {
		j.history.record(epoch, step.Changes)
	}
	if len(j.Replay) == 0 {
		j.publish()
		j.markRecovered()
	}
	return nil
}

// epochOutput is what the epoch appends to the stored table: the rows the
// root inserted, unless the table's rows are the operator's (update and
// complete mode, tableRows). An append-mode epoch with no new rows still
// has an output (empty), which counts as stored.
func (j *StreamJob) epochOutput(step *StreamStep) []arrow.RecordBatch {
	if j.tableRows() != nil {
		return nil
	}
	var out []arrow.RecordBatch
	if j.plan.Mode == planner.AppendMode {
		out = []arrow.RecordBatch{}
	}
	for _, c := range step.Changes {
		if c.Rows.NumRows() > 0 {
			out = append(out, c.Rows)
		}
	}
	return out
}

// tableRows is the current rows of an update- or complete-mode table: what
// its aggregation emitted (nil in append mode).
func (j *StreamJob) tableRows() *currentRows {
	if h, ok := j.op.(interface{ emittedTable() *emittedRows }); ok {
		if e := h.emittedTable(); e != nil {
			return e.rows
		}
	}
	return nil
}

// publish makes the epoch's output visible to readers in one step.
func (j *StreamJob) publish() { j.publishEpoch(j.progress.Epoch + 1) } // Step counts the epoch right after publishing it

// publishEpoch publishes the current state as that of the given epoch.
func (j *StreamJob) publishEpoch(epoch int64) {
	var snap []arrow.RecordBatch
	var n int64
	if j.plan.Mode == planner.AppendMode {
		n = j.outRows // the rows themselves are in the stored table
	} else if rows := j.tableRows(); rows != nil {
		snap = rows.batches(j.outSchema, j.plan.Cols)
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

// stateSize is the operator's state (rows and estimated bytes).
func (j *StreamJob) stateSize() (rows, bytes int64) {
	if j.op == nil {
		return 0, 0
	}
	return j.op.StateSize()
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
	j.moreOffsets = nil
	j.ReplayMore = nil
	j.ReplayNow = nil
	j.watermark = math.MinInt64
	j.setOperator()
	j.outRows = 0
	j.history.restart(math.MaxInt64)
	j.late = nil
	j.Replay = replay
	j.snapEpoch, j.rowsSince, j.epochsSince, j.snapRows = 0, 0, 0, 0
	j.mu.Lock()
	published := j.progress.OutputRows
	j.progress = Progress{Watermark: math.MinInt64, OutputRows: published}
	j.mu.Unlock()
}
