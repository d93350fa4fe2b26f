package exec

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/expr"
)

// A streaming plan runs as a tree of stream operators, one per stateful
// stage (window aggregation, session windows, deduplication, joins,
// Top-N), with stateless parts (filters, projections, window assignment,
// joins with static tables) between them. Each epoch the job pushes the
// rows its sources delivered into the leaves, advances the watermarks,
// and collects from the root the changes the epoch produced; that result
// is the epoch's value (StreamStep), which the checkpoint commits and the
// sinks consume.

// Change kinds of a changelog row: +1 inserts the row, -1 deletes one
// equal row. An update is a delete of the old row followed, in the same
// batch, by an insert of its new value (an update pair).
const (
	ChangeInsert int8 = 1
	ChangeDelete int8 = -1
)

// ChangeBatch is a batch of changes: the rows, in the producing
// operator's output columns, and for each row its kind. Diff == nil means
// every row is an insert (the common case of an append-only stream, which
// costs nothing to mark).
type ChangeBatch struct {
	Rows arrow.RecordBatch
	Diff []int8
}

// Inserts wraps append-only rows as changes.
func Inserts(b arrow.RecordBatch) ChangeBatch { return ChangeBatch{Rows: b} }

// AppendOnly reports whether every change inserts.
func (c ChangeBatch) AppendOnly() bool {
	for _, d := range c.Diff {
		if d != ChangeInsert {
			return false
		}
	}
	return true
}

// StreamCtx is what an operator's calls need besides their arguments.
type StreamCtx struct {
	Expr *expr.Ctx
	// Epoch is the number of the epoch being computed (1 for the first).
	Epoch int64
	// Replaying is true while the job re-runs epochs committed before a
	// restart: their output is already stored, so an operator may skip
	// emitting what only readers of intermediate epochs would see (update
	// mode's rows of windows still open).
	Replaying bool
	// KeepLate asks operators to keep the late rows they drop (with
	// their window), for the table's late_rows table.
	KeepLate bool
	// Tables gives the rows of the relations read as static tables (a
	// join of a stream with a table reads the table as it is when the
	// epoch runs).
	Tables TableSource
}

// StreamOperator is one stateful stage of a streaming plan.
//
// Contract:
//   - Inputs() is the number of inputs (1; 2 for a join of two streams).
//     Push(sc, i, c) adds changes arriving on input i (0-based) in the
//     current epoch; their columns are that input's columns. An operator
//     whose planner checked that its input only ever inserts may treat
//     every change as an insert.
//   - Advance(sc, i, wm) raises input i's watermark to wm (microseconds;
//     never lowered, math.MinInt64 before any event): no later row on that
//     input has an event time below it. Rows pushed after it with an
//     earlier event time are late: dropped, counted in Late, and kept for
//     LateRows when sc.KeepLate. Advance is where windows close, join state
//     expires and outer rows without a match are emitted. The job advances
//     the watermarks once per epoch, after pushing the epoch's rows.
//   - Emit(sc) returns the changes produced since the previous Emit, in
//     the order they happened, and forgets them. The job calls it once per
//     epoch, after the watermarks advanced; those changes are the input of
//     the operator above, or the table's output at the root.
//   - Watermark() is the watermark of the operator's output, which the job
//     passes to the operator above: the minimum over the inputs, shifted by
//     what the operator holds back (a window aggregation's output event
//     time is its window's end).
//   - Late() is the number of late rows dropped since the operator was
//     created or its state loaded; LateRows returns the rows kept since the
//     previous call and forgets them.
//   - SaveState(sc) returns the state as Arrow batches whose schema
//     metadata says what they hold; LoadState(sc, batches) replaces the
//     state with one that SaveState returned (by this operator kind, for
//     the same plan fingerprint). A snapshot taken after an epoch's Emit
//     holds everything needed to compute the next epochs exactly as if the
//     job never stopped.
//   - MinEpoch(next) is the oldest epoch whose input the state depends on
//     (next when it holds nothing that an epoch's input built): a restart
//     without a snapshot re-runs the logged epochs from there.
//   - StateSize() estimates the rows and bytes held (streaming_progress's
//     state_rows and state_bytes, and the state limit).
//   - Errors are sqlerr values; after an error the job resets the whole
//     tree (the epoch is re-run from the checkpoint), so an operator need
//     not undo a half-applied Push.
//   - One goroutine calls an operator's methods, except StateSize, which
//     the job calls between epochs from the same goroutine too.
type StreamOperator interface {
	Inputs() int
	Push(sc *StreamCtx, input int, c ChangeBatch) error
	Advance(sc *StreamCtx, input int, watermark int64) error
	Emit(sc *StreamCtx) ([]ChangeBatch, error)
	Watermark() int64
	Late() int64
	LateRows() []arrow.RecordBatch
	SaveState(sc *StreamCtx) ([]arrow.RecordBatch, error)
	LoadState(sc *StreamCtx, state []arrow.RecordBatch) error
	MinEpoch(next int64) int64
	StateSize() (rows, bytes int64)
}

// StreamStep is one epoch's result as a value: what the job read, what it
// produced, and the state it leaves, for the checkpoint to commit and the
// sinks to consume.
type StreamStep struct {
	Epoch int64
	// Ends is each source's offset after the epoch (the next to read), in
	// the order of the plan's inputs.
	Ends []int64
	// Watermark is the root's output watermark after the epoch.
	Watermark int64
	// Changes is the epoch's changelog at the root.
	Changes []ChangeBatch
	// Late is the rows dropped as late in this epoch, with their window.
	Late     []arrow.RecordBatch
	LateRows int64
	// InputRows is the number of rows read in this epoch.
	InputRows int64
	// Now is the epoch's processing time (microseconds).
	Now int64
}
