package checkpoint

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// Commit is what one epoch's commit records for its table, besides what
// the sinks stage: the epoch record and, when the state was snapshotted
// after the epoch, that snapshot.
type Commit struct {
	Table  uint32
	Epoch  int64
	Record Epoch
	// Snapshot, when not nil, is the operator state after the epoch; it
	// replaces the table's previous snapshot (an empty, non-nil snapshot is
	// the snapshot of an empty state). SnapshotFormat numbers its layout
	// (exec.SnapshotFormat), so that a weir that cannot read it ignores it.
	Snapshot       []arrow.RecordBatch
	SnapshotFormat uint32
}

// Stage writes c into tx, the epoch's one transaction, in which the sinks
// stage the epoch's output too: committing tx commits the epoch. The
// record is written before any output is published, so everything a
// reader could have seen is reproducible by re-running the logged epochs.
func Stage(tx *state.Txn, c Commit) error {
	if err := tx.Set(state.EpochKey(c.Table, c.Epoch), encodeEpoch(c.Record)); err != nil {
		return err
	}
	if c.Snapshot == nil {
		return nil
	}
	if err := tx.DropTable(state.StateRelation(c.Table)); err != nil {
		return err
	}
	if err := tx.AppendChunks(state.StateRelation(c.Table), c.Snapshot); err != nil {
		return err
	}
	v := binary.BigEndian.AppendUint64(nil, uint64(c.Epoch))
	return tx.Set(state.SnapshotRecordKey(c.Table), binary.BigEndian.AppendUint32(v, c.SnapshotFormat))
}

// LoadEpochs returns a table's committed epoch records in order (epoch
// i+1 at index i).
func LoadEpochs(st *state.Store, table uint32) ([]Epoch, error) {
	tx := st.Begin(false)
	defer tx.Discard()
	var out []Epoch
	err := tx.IteratePrefix(state.EpochPrefix(table), func(_, val []byte) error {
		rec, ok := decodeEpoch(val)
		if !ok {
			return errUnreadableEpoch()
		}
		out = append(out, rec)
		return nil
	})
	return out, err
}

func errUnreadableEpoch() error {
	return sqlerr.New(sqlerr.DataCorrupted, "unreadable epoch record of a streaming table")
}

// SnapshotEpoch is the epoch of the table's state snapshot, 0 when there
// is none or when it was written in another format than format (by a weir
// whose snapshots this one cannot read: the table recovers without it, by
// re-running the logged epochs).
func SnapshotEpoch(st *state.Store, table uint32, format uint32) (int64, error) {
	tx := st.Begin(false)
	defer tx.Discard()
	v, err := tx.Get(state.SnapshotRecordKey(table))
	if err == state.ErrNotFound {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(v) != 12 || binary.BigEndian.Uint32(v[8:]) != format {
		return 0, nil
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// ReadSnapshot reads the batches of the table's state snapshot.
func ReadSnapshot(st *state.Store, table uint32) ([]arrow.RecordBatch, error) {
	return st.ReadChunks(state.StateRelation(table))
}

// dropSnapshot deletes a table's state snapshot in tx.
func dropSnapshot(tx *state.Txn, table uint32) error {
	if err := tx.DropTable(state.StateRelation(table)); err != nil {
		return err
	}
	return tx.Delete(state.SnapshotRecordKey(table))
}

// Drop forgets a table's checkpoint in tx: its epoch records and its state
// snapshot (DROP, REFRESH ... FULL). The sinks drop what they stored.
func Drop(tx *state.Txn, table uint32) error {
	var keys [][]byte
	if err := tx.IteratePrefix(state.EpochPrefix(table), func(k, _ []byte) error {
		keys = append(keys, append([]byte(nil), k...))
		return nil
	}); err != nil {
		return err
	}
	for _, k := range keys {
		if err := tx.Delete(k); err != nil {
			return err
		}
	}
	return dropSnapshot(tx, table)
}

// Move gives a replacing streaming table the epoch records of the table it
// replaces (CREATE OR REFRESH with the same identity, see CheckIdentity),
// in one commit. The state snapshot is not kept: its table rows are the old
// query's, so the new table re-runs the logged epochs from the first (which
// the caller checked retention still allows, CheckRerunnable); every moved
// record says so (MinEpoch 1), so that a restart before the new table's
// next epoch does the same.
func Move(st *state.Store, from, to uint32) error {
	tx := st.Begin(true)
	defer tx.Discard()
	if err := dropSnapshot(tx, from); err != nil {
		return err
	}
	type kv struct{ k, v []byte }
	var moved []kv
	if err := tx.IteratePrefix(state.EpochPrefix(from), func(k, v []byte) error {
		moved = append(moved, kv{append([]byte(nil), k...), append([]byte(nil), v...)})
		return nil
	}); err != nil {
		return err
	}
	for _, m := range moved {
		epoch := binary.BigEndian.Uint64(m.k[len(m.k)-8:])
		rec, ok := decodeEpoch(m.v)
		if !ok {
			return errUnreadableEpoch()
		}
		rec.MinEpoch = 1
		if err := tx.Set(state.EpochKey(to, int64(epoch)), encodeEpoch(rec)); err != nil {
			return err
		}
		if err := tx.Delete(m.k); err != nil {
			return err
		}
	}
	return tx.Commit()
}
