package connector

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/state"
)

// Sink is one output of a streaming table: it receives the table's
// changes epoch by epoch.
//
// Contract:
//   - Write(tx, epoch, changes) stages the changes of one epoch. tx is
//     the state transaction of the epoch's commit, which also holds the
//     epoch's checkpoint record: a sink that keeps what it writes in weir's
//     store writes it in tx, so that output and checkpoint commit together
//     or not at all. A sink outside the store prepares (Kafka: produce in a
//     transaction) and must not make anything visible yet.
//   - Committed(epoch) is called once tx committed: the sink publishes
//     what it staged (an external sink commits its own transaction, and
//     records that it did). Nothing is called for an epoch whose tx did
//     not commit; the epoch is re-run, and written again, later.
//   - LastCommitted reports the last epoch whose changes the sink holds
//     durably (0: none). Recovery re-runs the logged epochs after a crash
//     and writes to the sink only those after LastCommitted, so every
//     epoch reaches it once.
//   - changes belong to the caller until Write returns; a sink that keeps
//     them keeps the batches (they are never modified), not a copy.
//   - Errors are sqlerr values with their SQLSTATE; an error from Write or
//     Committed fails the epoch (53xxx and 58030 pause the table instead).
//   - One goroutine (the table's runner) calls Write and Committed, in
//     epoch order; LastCommitted may be called from any goroutine.
type Sink interface {
	Write(tx *state.Txn, epoch int64, changes []arrow.RecordBatch) error
	Committed(epoch int64) error
	LastCommitted() (int64, error)
}

// WriteEpoch writes an epoch to sink alone, in its own transaction: the
// output of an epoch that is already in the checkpoint (re-run after
// recovery) but not yet in the sink.
func WriteEpoch(st *state.Store, sink Sink, epoch int64, changes []arrow.RecordBatch) error {
	tx := st.Begin(true)
	defer tx.Discard()
	if err := sink.Write(tx, epoch, changes); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return sink.Committed(epoch)
}
