package engine

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/checkpoint"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/internal/failpoint"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// A streaming table's checkpoint is package checkpoint's: the epoch
// records (e/<table>/<epoch>), written before the epoch's output is
// published, so every output a client could have seen is reproducible: on
// restart the job re-runs the same epochs over the same input and reaches
// the same state and table. This file wires a job to it.

// toRecord is the checkpoint record of what the job reports of an epoch
// (one source: its input table's log).
func toRecord(r exec.EpochRecord) checkpoint.Epoch {
	return checkpoint.Epoch{Offsets: append([]int64{r.End}, r.MoreEnds...), Now: r.Now, Watermark: r.Watermark, MinEpoch: r.MinEpoch,
		InputRows: r.InputRows, LateRows: r.LateRows, OutputRows: r.OutputRows}
}

// fromRecord is the job's view of a checkpoint record.
func fromRecord(e checkpoint.Epoch) exec.EpochRecord {
	var more []int64
	if len(e.Offsets) > 1 {
		more = e.Offsets[1:]
	}
	return exec.EpochRecord{End: e.Offset(0), MoreEnds: more, Now: e.Now, Watermark: e.Watermark, MinEpoch: e.MinEpoch,
		InputRows: e.InputRows, LateRows: e.LateRows, OutputRows: e.OutputRows}
}

// commitEpoch makes an epoch durable in one commit: its record and, when
// snap is not nil, the snapshot of the state after it, replacing the
// previous one (checkpoint.Stage); the rows it appended to the streaming
// table (append mode), staged by the table's output sink; the late rows it
// wrote to the table's late_rows table (lateOID 0: none).
//
// The table's sinks (sinks.go) stage the epoch's changes in the same
// transaction and publish them once it committed.
func (e *Engine) commitEpoch(oid uint32, epoch int64, rec exec.EpochRecord, lateOID uint32, late, output, snap []arrow.RecordBatch, changes []exec.ChangeBatch) (err error) {
	sink := e.outputSink(oid) // flows.go: a flow's writes into its target
	defer e.flows.lockTarget(oid)()
	tx := e.store.Begin(true)
	defer tx.Discard()
	if err := checkpoint.Stage(tx, checkpoint.Commit{Table: oid, Epoch: epoch, Record: toRecord(rec),
		Snapshot: snap, SnapshotFormat: exec.SnapshotFormat}); err != nil {
		return err
	}
	if err := sink.Write(tx, epoch, output); err != nil {
		return err
	}
	if lateOID != 0 && len(late) > 0 {
		if err := tx.AppendChunks(lateOID, late); err != nil {
			return err
		}
	}
	if err := e.stageExpectations(tx, oid, epoch); err != nil { // expectations.go
		return err
	}
	batch, err := e.stageBatch(tx, oid, epoch, rec) // batches.go: streaming_batches' row
	if err != nil {
		return err
	}
	sinks := e.writeSinks(tx, oid, epoch, changes)
	committed := false
	defer func() { e.sinksCommitted(sinks, epoch, committed) }()
	failpoint.Hit("epoch-before-commit")
	if failpoint.Err("epoch-commit") != nil {
		return sqlerr.New(sqlerr.DiskFull, "could not write the epoch of a streaming table: no space left on device")
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	committed = true
	e.batchCommitted(oid, batch, rec.Figures)
	failpoint.Hit("epoch-after-commit")
	if err := sink.Committed(epoch); err != nil {
		return err
	}
	e.notifyCommit()
	return nil
}

// storeOutput writes the append-mode rows of a re-run epoch, which the
// checkpoint holds but the output sink not yet.
func (e *Engine) storeOutput(oid uint32, epoch int64, output []arrow.RecordBatch) error {
	defer e.flows.lockTarget(oid)()
	if err := connector.WriteEpoch(e.store, e.outputSink(oid), epoch, output); err != nil {
		return err
	}
	e.notifyCommit()
	return nil
}

// recoverJob sets a job up to continue after its table's logged epochs
// (at start, and after storage trouble left the job ahead of the log), as
// checkpoint.Decide says. It reports whether the appended rows of every
// logged epoch are stored (then readers need not wait for the re-run), and
// returns the restoring of the snapshot, if any, for the runner to call
// before its first epoch. guard learns the offsets a restart re-reads
// from.
func (e *Engine) recoverJob(job *exec.StreamJob, guard *checkpoint.ResumeGuard, oid uint32, name, mode string) (outputStored bool, restoreState func() error, err error) {
	recs, err := checkpoint.LoadEpochs(e.store, oid)
	if err != nil {
		return false, nil, err
	}
	stored, err := e.outputSink(oid).LastCommitted()
	if err != nil {
		return false, nil, err
	}
	snapEpoch, err := checkpoint.SnapshotEpoch(e.store, oid, exec.SnapshotFormat)
	if err != nil {
		return false, nil, err
	}
	job.StoredOutputEpochs = stored
	in := checkpoint.Stored{Epochs: recs, SnapshotEpoch: snapEpoch, OutputEpochs: stored, AppendMode: mode == planner.AppendMode}
	d := e.sinksDecision(oid, checkpoint.Decide(in), in) // sinks.go: far enough back for every sink
	guard.Recovered(recs, d.From)
	e.noteRecovery(oid, d, len(recs)) // event_log_recovery.go: the started and recovered events say how
	switch d.Action {
	case checkpoint.StartEmpty:
		return d.OutputStored, nil, nil
	case checkpoint.RestoreSnapshot:
		// Reading and loading the snapshot is the expensive part: the
		// runner does it, so the server accepts connections meanwhile.
		rec := fromRecord(recs[d.Snapshot-1])
		snapEpoch, later := d.Snapshot, d.To-d.Snapshot
		restoreState = func() error {
			snap, err := checkpoint.ReadSnapshot(e.store, oid)
			if err != nil {
				return err
			}
			if err := job.RestoreState(snapEpoch, rec, snap); err != nil {
				return err
			}
			e.snapshotRestored(oid, snapEpoch, later)
			return nil
		}
	case checkpoint.ResumeEmpty:
		job.Resume(d.From-1, fromRecord(recs[d.From-2]))
	}
	// The re-run epochs, each with exactly its logged input.
	rerun := d.Rerun(recs)
	ends := make([]int64, len(rerun))
	var more [][]int64
	nows := make([]int64, len(rerun))
	for i, r := range rerun {
		ends[i] = r.Offset(0)
		nows[i] = r.Now
		if len(r.Offsets) > 1 {
			more = append(more, r.Offsets[1:])
		} else {
			more = append(more, nil)
		}
	}
	job.Replay, job.ReplayMore, job.ReplayNow = ends, more, nows
	if d.Action != checkpoint.RerunAll && len(rerun) > 0 {
		// The stored rows are the first run's: the count is the last
		// re-run record's (a re-run of every epoch counts its own, which
		// after CREATE OR REFRESH with a new query is the right one).
		job.ReplayOutputRows, job.HasReplayOutputRows = rerun[len(rerun)-1].OutputRows, true
	}
	return d.OutputStored, restoreState, nil
}

// dropEpochs forgets a table's epochs (DROP, REFRESH ... FULL).
func (e *Engine) dropEpochs(oid uint32) error {
	tx := e.store.Begin(true)
	defer tx.Discard()
	if err := checkpoint.Drop(tx, oid); err != nil {
		return err
	}
	// The stored rows go with the epochs that produced them.
	if err := e.outputSink(oid).Drop(tx); err != nil {
		return err
	}
	if err := dropFilesLogs(tx, oid); err != nil { // files_input.go
		return err
	}
	if err := e.dropExpectationCounts(tx, oid); err != nil { // expectations.go
		return err
	}
	if err := e.dropBatches(tx, oid); err != nil { // batches.go
		return err
	}
	return tx.Commit()
}

// moveEpochs gives a replaced streaming table the epoch log of the table it
// replaces (CREATE OR REFRESH with compatible state).
func (e *Engine) moveEpochs(from, to uint32) error {
	if err := e.moveFilesLogs(from, to); err != nil { // files_input.go
		return err
	}
	if err := e.moveExpectationCounts(from, to); err != nil { // expectations.go
		return err
	}
	if err := e.moveBatches(from, to); err != nil { // batches.go
		return err
	}
	return checkpoint.Move(e.store, from, to)
}
