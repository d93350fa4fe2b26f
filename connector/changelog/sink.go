// Package changelog is the change log of an update- or complete-mode
// streaming table: each epoch's changes at the table's root, as rows of
// the table's columns followed by _change_type ('insert' or 'delete') and
// _commit_version (the epoch), appended to a relation of their own
// (state.ChangesRelation) in the epoch's commit. It is what makes such a
// table readable as a stream: a streaming table downstream reads the log
// through connector/tablelog, from an offset, and so receives every change
// once — its aggregates subtract what a delete takes away, its joins
// retract — while SELECT reads the table's current rows.
//
// The log is a connector.Sink that the engine attaches to such a table
// beside the table's own sinks once a streaming table reads it (Enable),
// so the sinks' recovery rules hold for it: written in the epoch's
// transaction, re-run epochs after its LastCommitted written once. A table
// nobody reads as a stream keeps no log.
package changelog

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/state"
)

// Change columns, as Databricks' change data feed names them.
const (
	ChangeTypeColumn    = "_change_type"
	CommitVersionColumn = "_commit_version"
	Insert              = "insert"
	Delete              = "delete"
)

// Sink appends streaming table `table`'s changes to its change log.
type Sink struct {
	store *state.Store
	table uint32
}

var _ connector.Sink = (*Sink)(nil)

// New returns the change log of streaming table table.
func New(st *state.Store, table uint32) *Sink { return &Sink{store: st, table: table} }

// Relation is the relation whose chunks are the log.
func (s *Sink) Relation() uint32 { return state.ChangesRelation(s.table) }

// Write appends the epoch's changes (rows with the change columns) in tx,
// with the log's progress.
func (s *Sink) Write(tx *state.Txn, epoch int64, changes []arrow.RecordBatch) error {
	if len(changes) > 0 {
		if err := tx.AppendChunks(s.Relation(), changes); err != nil {
			return err
		}
	}
	return tx.Set(state.ChangesProgressKey(s.table), binary.BigEndian.AppendUint64(nil, uint64(epoch)))
}

// Committed does nothing: the changes are readable once tx committed.
func (s *Sink) Committed(int64) error { return nil }

// LastCommitted is the last epoch (in the log's numbering) whose changes
// the log holds.
func (s *Sink) LastCommitted() (int64, error) {
	return s.store.ReadUint64(state.ChangesProgressKey(s.table))
}

// Base is the log's epoch number of the table's epoch 0: a table's epoch
// n is the log's Base()+n.
func (s *Sink) Base() (int64, error) {
	return s.store.ReadUint64(state.ChangesBaseKey(s.table))
}

// SetBase records, in tx, the log's epoch of the table's epoch 0 (REFRESH
// ... FULL, which numbers the table's epochs from 1 again).
func (s *Sink) SetBase(tx *state.Txn, base int64) error {
	return tx.Set(state.ChangesBaseKey(s.table), binary.BigEndian.AppendUint64(nil, uint64(base)))
}

// Enabled reports whether the table keeps its log.
func (s *Sink) Enabled() (bool, error) {
	tx := s.store.Begin(false)
	defer tx.Discard()
	_, err := tx.Get(state.ChangesOnKey(s.table))
	if err == state.ErrNotFound {
		return false, nil
	}
	return err == nil, err
}

// Enable records, in tx, that the table keeps its log from now on.
func (s *Sink) Enable(tx *state.Txn) error { return tx.Set(state.ChangesOnKey(s.table), []byte{1}) }

// Drop deletes, in tx, the log and its records (DROP of the table).
func (s *Sink) Drop(tx *state.Txn) error {
	if err := tx.Delete(state.ChangesProgressKey(s.table)); err != nil {
		return err
	}
	if err := tx.Delete(state.ChangesBaseKey(s.table)); err != nil {
		return err
	}
	if err := tx.Delete(state.ChangesOnKey(s.table)); err != nil {
		return err
	}
	return tx.DropTable(s.Relation())
}
