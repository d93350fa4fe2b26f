// Package tableout is the first connector.Sink: a streaming table's stored
// output. An append-mode table's rows are appended to the table's own
// chunks (which readers scan, and which an append-mode streaming table
// downstream reads as its source, connector/tablelog), in the epoch's
// commit; its progress, the last epoch whose rows the chunks hold, is
// e/<table>.out (state/keys.go).
package tableout

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/state"
)

// Sink stores streaming table `table`'s appended rows.
//
// Besides the connector.Sink contract: changes == nil says the epoch has
// no stored output at all (update and complete mode, whose rows live in
// the job's memory and are rebuilt from the state): nothing is written,
// not even progress. An empty, non-nil changes is an epoch that appended
// no rows, and counts as stored.
type Sink struct {
	store *state.Store
	table uint32
	// progress is whose progress record the sink keeps: the table's, or
	// one flow's of several writing into it (flow.go).
	progress uint32
	flow     bool
}

var _ connector.Sink = (*Sink)(nil)

// New returns the stored-output sink of streaming table table.
func New(st *state.Store, table uint32) *Sink { return &Sink{store: st, table: table, progress: table} }

// Write appends the epoch's rows to the table's chunks in tx, with the
// progress record.
func (s *Sink) Write(tx *state.Txn, epoch int64, changes []arrow.RecordBatch) error {
	if changes == nil {
		return nil
	}
	if len(changes) > 0 {
		if err := tx.AppendChunks(s.table, changes); err != nil {
			return err
		}
	}
	return tx.Set(state.OutputProgressKey(s.progress), binary.BigEndian.AppendUint64(nil, uint64(epoch)))
}

// Committed does nothing: the rows are visible once tx committed.
func (s *Sink) Committed(int64) error { return nil }

// LastCommitted is the last epoch whose rows the table's chunks hold.
func (s *Sink) LastCommitted() (int64, error) {
	return s.store.ReadUint64(state.OutputProgressKey(s.progress))
}

// Drop deletes, in tx, the stored rows and the progress record (the
// table's checkpoint is dropped with them: the rows go with the epochs
// that produced them).
func (s *Sink) Drop(tx *state.Txn) error {
	if err := tx.Delete(state.OutputProgressKey(s.progress)); err != nil {
		return err
	}
	if s.flow {
		return nil // the rows are the target's, and stay (flow.go)
	}
	return tx.DropTable(s.table)
}
