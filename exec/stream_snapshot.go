package exec

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
)

// A state snapshot is the job's whole state after an epoch, as Arrow
// batches that the epoch's commit stores with it: the open windows' group
// keys and accumulator states, the open sessions' rows, the deduplication
// keys, and (update and complete mode) the table's current rows. A restart
// restores the latest snapshot and re-runs only the epochs committed after
// it, so its cost is bounded by the state and the input since the
// snapshot, not by all the input ever read; and the input before the
// snapshot may be removed by retention.
//
// Each batch says what it holds in its schema metadata (stateKind), so a
// snapshot is a flat list of chunks.

// SnapshotFormat numbers the layout of the snapshot batches; a snapshot of
// another format is ignored (the table re-runs its epochs instead).
const SnapshotFormat = 4 // 3: binary partition and dedup keys; 4: window fields once per window

// SnapshotsState reports whether the job's state can be snapshotted (see
// PlanSnapshotsState).
func (j *StreamJob) SnapshotsState() bool { return j.snapshots }

// PlanSnapshotsState reports whether a plan's state can be snapshotted
// (planner.StreamPlan.SnapshotsState; a stream tree's when every
// aggregation in it can).
func PlanSnapshotsState(plan *planner.StreamPlan) bool {
	if plan.Tree != nil {
		return treeSnapshotsState(plan.Tree.Root)
	}
	return plan.SnapshotsState()
}

// SaveState returns the snapshot of the state after the epoch just run:
// the operator's.
func (j *StreamJob) SaveState(ectx *expr.Ctx) ([]arrow.RecordBatch, error) {
	if j.op == nil {
		return nil, nil
	}
	return j.op.SaveState(&StreamCtx{Expr: ectx, Epoch: j.progress.Epoch})
}

// RestoreState starts the job after epoch n (record rec) with the state of
// the snapshot taken then. The job must be fresh (or Reset).
func (j *StreamJob) RestoreState(n int64, rec EpochRecord, snapshot []arrow.RecordBatch) error {
	j.Resume(n, rec)
	if j.op == nil {
		if len(snapshot) > 0 {
			return unknownStatePart(snapshot[0])
		}
	} else if err := j.op.LoadState(&StreamCtx{Expr: j.Env.exprCtx(), Epoch: n}, snapshot); err != nil {
		return err
	}
	j.snapEpoch, j.snapRows = n, batchRows(snapshot)
	rows, bytes := j.stateSize()
	j.mu.Lock()
	j.progress.StateRows, j.progress.StateBytes = rows, bytes
	j.mu.Unlock()
	j.commitMu.Lock()
	defer j.commitMu.Unlock()
	j.history.restart(n)
	if j.pubEpoch <= n {
		// Not after a Reset whose readers still see a later epoch: they
		// keep it until the re-run of the epochs after the snapshot ends.
		j.publishEpoch(n)
	}
	return nil
}

// Snapshot policy. A snapshot costs about as much as its size in rows
// (state plus, in update and complete mode, the table's rows); a restart
// re-runs the epochs after it, at about one row's cost per input row plus a
// fixed cost per epoch (epochCostRows). Taking the next snapshot once the
// work since the last one reaches that one's size (at least
// minSnapshotRows) keeps the snapshots' total cost at most about that of
// processing the input, and bounds a restart's re-run by about one
// snapshot's worth of work. When every row makes a new group, snapshots
// come at doubling sizes, whose total cost is about twice the last one. A
// trickle of tiny epochs triggers one too, sooner for a small state than
// for a big one.
const (
	minSnapshotRows = 65536
	epochCostRows   = 1000
)

func (j *StreamJob) snapshotDue() bool {
	if !j.SnapshotsState() || j.rowsSince == 0 {
		return false
	}
	if j.SnapshotRows > 0 {
		return j.rowsSince >= j.SnapshotRows
	}
	return j.rowsSince+epochCostRows*j.epochsSince >= max(minSnapshotRows, j.snapRows)
}

// treeSnapshotsState: every aggregation of a stream tree can save its state.
func treeSnapshotsState(n *planner.StreamNode) bool {
	if n.Kind == planner.AggNode && !PlanSnapshotsState(n.Agg) {
		return false
	}
	for _, c := range n.Children {
		if !treeSnapshotsState(c) {
			return false
		}
	}
	return true
}
