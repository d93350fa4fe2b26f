package checkpoint

import "fmt"

// Stored is what a streaming table has durably committed, as recovery
// reads it.
type Stored struct {
	// Epochs are the committed epoch records, epoch i+1 at index i.
	Epochs []Epoch
	// SnapshotEpoch is the epoch of the state snapshot (0: none, or one
	// this weir cannot read).
	SnapshotEpoch int64
	// OutputEpochs is the last epoch the stored-output sink committed:
	// how many epochs' appended rows the table holds.
	OutputEpochs int64
	// AppendMode: the table's rows are appended, never changed (they live
	// in the output sink); otherwise (update, complete) they are rebuilt
	// in memory from the state.
	AppendMode bool
}

// Action is how a restart starts.
type Action int

const (
	// StartEmpty: nothing committed; run from the sources' start.
	StartEmpty Action = iota
	// RestoreSnapshot: load the state snapshot of epoch Snapshot, then
	// re-run epochs From..To.
	RestoreSnapshot
	// ResumeEmpty: after epoch From-1 no state is open (append mode); start
	// from its record with an empty state and re-run epochs From..To.
	ResumeEmpty
	// RerunAll: re-run every committed epoch, 1..To, from an empty state.
	RerunAll
)

func (a Action) String() string {
	switch a {
	case StartEmpty:
		return "start empty"
	case RestoreSnapshot:
		return "restore snapshot"
	case ResumeEmpty:
		return "resume empty"
	case RerunAll:
		return "re-run all"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Decision is what a restart does.
type Decision struct {
	Action Action
	// Snapshot is the epoch whose snapshot is restored (RestoreSnapshot).
	Snapshot int64
	// From..To are the epochs re-run (none when From > To); To is the last
	// committed epoch. Each is re-run with exactly its logged input: up to
	// the offsets of its record.
	From, To int64
	// OutputStored: the output sink holds the rows of every committed epoch
	// (then readers need not wait for the re-run). Re-run epochs after the
	// sink's progress have their rows written to it again.
	OutputStored bool
}

// Decide is recovery as a pure decision. A restart starts from the first
// epoch the latest record says must be re-run (its MinEpoch): right after
// the state snapshot, restored first, or, in append mode, after the last
// epoch whose windows, sessions and keys are all closed, with an empty
// state. Either way it re-reads only the input since the snapshot or of
// the open state. A table whose appended rows are not all in the output
// sink (CREATE OR REFRESH with a new output, or a crash while re-writing
// them), or that has no snapshot to start from in update or complete
// mode (its rows live in memory), re-runs from the first epoch.
func Decide(s Stored) Decision {
	n := int64(len(s.Epochs))
	d := Decision{OutputStored: s.OutputEpochs >= n, To: n}
	if n == 0 {
		d.Action, d.From = StartEmpty, 1
		return d
	}
	from := min(max(s.Epochs[n-1].MinEpoch, 1), n+1)
	restore := s.SnapshotEpoch > 0 && s.SnapshotEpoch == from-1 && s.SnapshotEpoch <= n
	switch {
	case s.AppendMode && s.OutputEpochs < n:
		from, restore = 1, false
	case !s.AppendMode && !restore:
		from = 1
	}
	d.From = from
	switch {
	case restore:
		d.Action, d.Snapshot = RestoreSnapshot, s.SnapshotEpoch
	case from > 1:
		d.Action = ResumeEmpty
	default:
		d.Action = RerunAll
	}
	return d
}

// Rerun returns the records of the epochs d re-runs, in order.
func (d Decision) Rerun(epochs []Epoch) []Epoch {
	if d.From < 1 || d.From > int64(len(epochs)) {
		return nil
	}
	return epochs[d.From-1 : d.To]
}
