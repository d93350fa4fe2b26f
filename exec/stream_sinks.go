package exec

// A streaming table's sinks (CREATE SINK) receive the root's changes of
// each epoch: the engine's CommitEpoch reads them with CommittingChanges
// and stages them in the epoch's commit; the epochs a restart re-runs go
// to RerunSinks, which writes them to the sinks that had not committed
// them (connector.Sink's LastCommitted).

// CommittingChanges is the root's changes of the epoch being committed:
// valid only inside CommitEpoch (and StoreOutput), nil elsewhere. The
// batches are the job's and must not be modified.
func (j *StreamJob) CommittingChanges() []ChangeBatch { return j.committing }

// replayingFor is StreamCtx.Replaying for the epoch being computed: true
// while logged epochs are re-run, so that update mode's operators may
// leave out the rows of windows still open (nothing is published until
// the last re-run epoch), except from SinkChangesFrom on. A sink that has
// committed epoch k gets the re-run epochs after k as a change feed that
// must continue exactly what it holds: each change must be the one the
// first run produced, a delete of the row the sink holds before the
// insert of its new value. So the epochs from k on are computed in full:
// after epoch k the operator's emitted rows are again those the first run
// had (the changes of k itself, which the sink holds, are dropped by
// RerunSinks), and every later epoch's changes are the first run's.
// Left out, the open windows' rows would be emitted first at the last
// re-run epoch, as inserts over an empty emitted table: no deletes of the
// rows the sink holds.
func (j *StreamJob) replayingFor(epoch int64) bool {
	return len(j.Replay) > 0 && (j.SinkChangesFrom == 0 || epoch < j.SinkChangesFrom)
}
