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
