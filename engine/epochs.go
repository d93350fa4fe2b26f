package engine

import (
	"encoding/binary"
	"log"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/internal/failpoint"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// A streaming table's epoch log: for each committed epoch, the input
// offset (batches consumed) at its end, under e/<table OID>/<epoch>. It is
// written before the epoch's output is published, so every output a
// client could have seen is reproducible: on restart the job re-runs the
// same epochs over the same input and reaches the same state and table.

func epochPrefix(oid uint32) []byte {
	k := make([]byte, 0, len(state.PrefixEpoch)+5)
	k = append(k, state.PrefixEpoch...)
	k = binary.BigEndian.AppendUint32(k, oid)
	return append(k, '/')
}

func epochKey(oid uint32, epoch int64) []byte {
	return binary.BigEndian.AppendUint64(epochPrefix(oid), uint64(epoch))
}

// outputKey holds how many epochs' append-mode rows are stored in the
// streaming table's chunks (they are written by the same commit as the
// epoch, or by the re-run of an epoch after CREATE OR REFRESH).
func outputKey(oid uint32) []byte {
	k := append([]byte(state.PrefixEpoch), binary.BigEndian.AppendUint32(nil, oid)...)
	return append(k, ".out"...)
}

// snapshotKey holds the epoch of a streaming table's state snapshot, whose
// batches are the chunks of state.StateRelation(oid), and the snapshot's
// format (exec.SnapshotFormat).
func snapshotKey(oid uint32) []byte {
	k := append([]byte(state.PrefixEpoch), binary.BigEndian.AppendUint32(nil, oid)...)
	return append(k, ".snap"...)
}

// commitEpoch makes an epoch durable in one commit: its end offset, the
// rows it appended to the streaming table (append mode), the late rows it
// wrote to the table's late_rows table (lateOID 0: none) and, when snap is
// not nil, the snapshot of the state after it, replacing the previous one.
func (e *Engine) commitEpoch(oid uint32, epoch int64, rec exec.EpochRecord, lateOID uint32, late, output, snap []arrow.RecordBatch) error {
	tx := e.store.Begin(true)
	defer tx.Discard()
	if err := tx.Set(epochKey(oid, epoch), encodeEpoch(rec)); err != nil {
		return err
	}
	if snap != nil {
		if err := tx.DropTable(state.StateRelation(oid)); err != nil {
			return err
		}
		if err := tx.AppendChunks(state.StateRelation(oid), snap); err != nil {
			return err
		}
		v := binary.BigEndian.AppendUint64(nil, uint64(epoch))
		if err := tx.Set(snapshotKey(oid), binary.BigEndian.AppendUint32(v, exec.SnapshotFormat)); err != nil {
			return err
		}
	}
	if err := e.stageOutput(tx, oid, epoch, output); err != nil {
		return err
	}
	if lateOID != 0 && len(late) > 0 {
		if err := tx.AppendChunks(lateOID, late); err != nil {
			return err
		}
	}
	failpoint.Hit("epoch-before-commit")
	if failpoint.Err("epoch-commit") != nil {
		return sqlerr.New(sqlerr.DiskFull, "could not write the epoch of a streaming table: no space left on device")
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	failpoint.Hit("epoch-after-commit")
	e.notifyCommit()
	return nil
}

// storeOutput writes the append-mode rows of a re-run epoch.
func (e *Engine) storeOutput(oid uint32, epoch int64, output []arrow.RecordBatch) error {
	tx := e.store.Begin(true)
	defer tx.Discard()
	if err := e.stageOutput(tx, oid, epoch, output); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	e.notifyCommit()
	return nil
}

func (e *Engine) stageOutput(tx *state.Txn, oid uint32, epoch int64, output []arrow.RecordBatch) error {
	if output == nil {
		return nil
	}
	if len(output) > 0 {
		if err := tx.AppendChunks(oid, output); err != nil {
			return err
		}
	}
	return tx.Set(outputKey(oid), binary.BigEndian.AppendUint64(nil, uint64(epoch)))
}

// snapshotEpoch is the epoch of the table's state snapshot (0: none).
func (e *Engine) snapshotEpoch(oid uint32) (int64, error) {
	tx := e.store.Begin(false)
	defer tx.Discard()
	v, err := tx.Get(snapshotKey(oid))
	if err == state.ErrNotFound {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(v) != 12 || binary.BigEndian.Uint32(v[8:]) != exec.SnapshotFormat {
		// Written by a weir whose snapshots this one cannot read: recover
		// without it, by re-running the logged epochs.
		return 0, nil
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// dropSnapshot deletes a table's state snapshot in tx.
func dropSnapshot(tx *state.Txn, oid uint32) error {
	if err := tx.DropTable(state.StateRelation(oid)); err != nil {
		return err
	}
	return tx.Delete(snapshotKey(oid))
}

// storedOutputEpochs is how many epochs' rows the table's chunks hold.
func (e *Engine) storedOutputEpochs(oid uint32) (int64, error) {
	return e.readCount(outputKey(oid))
}

// readCount reads a big-endian uint64 count stored under key (0 when the
// key is missing).
func (e *Engine) readCount(key []byte) (int64, error) {
	tx := e.store.Begin(false)
	defer tx.Discard()
	v, err := tx.Get(key)
	if err == state.ErrNotFound {
		return 0, nil
	}
	if err != nil || len(v) != 8 {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// encodeEpoch is an epoch record's value: six big-endian int64s.
func encodeEpoch(r exec.EpochRecord) []byte {
	b := make([]byte, 0, 48)
	for _, v := range []int64{int64(r.End), r.Watermark, r.MinEpoch, r.InputRows, r.LateRows, r.OutputRows} {
		b = binary.BigEndian.AppendUint64(b, uint64(v))
	}
	return b
}

func decodeEpoch(v []byte) (exec.EpochRecord, bool) {
	if len(v) != 48 {
		return exec.EpochRecord{}, false
	}
	f := func(i int) int64 { return int64(binary.BigEndian.Uint64(v[8*i:])) }
	return exec.EpochRecord{End: int(f(0)), Watermark: f(1), MinEpoch: f(2), InputRows: f(3), LateRows: f(4), OutputRows: f(5)}, true
}

// loadEpochs returns a table's committed epoch records in order.
func (e *Engine) loadEpochs(oid uint32) ([]exec.EpochRecord, error) {
	tx := e.store.Begin(false)
	defer tx.Discard()
	var out []exec.EpochRecord
	err := tx.IteratePrefix(epochPrefix(oid), func(_, val []byte) error {
		rec, ok := decodeEpoch(val)
		if !ok {
			return sqlerr.New(sqlerr.DataCorrupted, "unreadable epoch record of a streaming table")
		}
		out = append(out, rec)
		return nil
	})
	return out, err
}

// recoverJob sets a job up to continue after its table's logged epochs
// (at start, and after storage trouble left the job ahead of the log). It
// starts from the first epoch the latest record says a restart must re-run
// (MinEpoch): right after the state snapshot, restored first, or, in
// append mode, after the last epoch whose windows, sessions and keys are
// all closed, with an empty state. Either way a restart re-reads only the
// input since the snapshot or of the open state. A table whose appended
// rows are not all stored (CREATE OR REFRESH with a new output) or that
// has no snapshot to start from in update or complete mode re-runs from
// the first epoch. It reports whether the appended rows of every logged
// epoch are stored (then readers need not wait for the re-run), and
// returns the restoring of the snapshot, if any, for the runner to call
// before its first epoch.
func (e *Engine) recoverJob(job *exec.StreamJob, oid uint32, name, mode string) (outputStored bool, restoreState func() error, err error) {
	recs, err := e.loadEpochs(oid)
	if err != nil {
		return false, nil, err
	}
	stored, err := e.storedOutputEpochs(oid)
	if err != nil {
		return false, nil, err
	}
	snapEpoch, err := e.snapshotEpoch(oid)
	if err != nil {
		return false, nil, err
	}
	job.StoredOutputEpochs = stored
	outputStored = stored >= int64(len(recs))
	if len(recs) == 0 {
		return outputStored, nil, nil
	}
	from := recs[len(recs)-1].MinEpoch // first epoch to re-run (1-based)
	from = min(max(from, 1), int64(len(recs))+1)
	restore := snapEpoch > 0 && snapEpoch == from-1 && snapEpoch <= int64(len(recs))
	switch {
	case mode == planner.AppendMode && stored < int64(len(recs)):
		from, restore = 1, false
	case mode != planner.AppendMode && !restore:
		from = 1
	}
	if restore {
		// Reading and loading the snapshot is the expensive part: the
		// runner does it, so the server accepts connections meanwhile.
		rec := recs[snapEpoch-1]
		later := int64(len(recs)) - snapEpoch
		restoreState = func() error {
			snap, err := e.store.ReadChunks(state.StateRelation(oid))
			if err != nil {
				return err
			}
			if err := job.RestoreState(snapEpoch, rec, snap); err != nil {
				return err
			}
			log.Printf("streaming table %s: restored the state snapshot of epoch %d; re-running %d later epochs", name, snapEpoch, later)
			return nil
		}
	} else if from > 1 {
		job.Resume(from-1, recs[from-2])
		log.Printf("streaming table %s: no state before epoch %d is open; re-running %d epochs", name, from, int64(len(recs))-from+1)
	} else {
		log.Printf("streaming table %s: re-running all %d epochs", name, len(recs))
	}
	prepareReplay(job, recs, from)
	return outputStored, restoreState, nil
}

// prepareReplay gives the job the boundaries of the epochs it re-runs,
// from epoch `from` on.
func prepareReplay(job *exec.StreamJob, recs []exec.EpochRecord, from int64) {
	ends := make([]int, 0, len(recs)-int(from)+1)
	for _, r := range recs[from-1:] {
		ends = append(ends, r.End)
	}
	job.Replay = ends
	all := make([]int, len(recs))
	for i, r := range recs {
		all[i] = r.End
	}
	job.NoteRecovered(all, from)
}

// dropEpochs forgets a table's epochs (DROP, REFRESH ... FULL).
func (e *Engine) dropEpochs(oid uint32) error {
	tx := e.store.Begin(true)
	defer tx.Discard()
	var keys [][]byte
	if err := tx.IteratePrefix(epochPrefix(oid), func(k, _ []byte) error {
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
	if err := tx.Delete(outputKey(oid)); err != nil {
		return err
	}
	if err := dropSnapshot(tx, oid); err != nil {
		return err
	}
	// The stored rows go with the epochs that produced them.
	if err := tx.DropTable(oid); err != nil {
		return err
	}
	return tx.Commit()
}

// moveEpochs gives a replaced streaming table the epoch log of the table it
// replaces (CREATE OR REFRESH with compatible state). The state snapshot
// is not kept: its table rows are the old query's, so the new table
// re-runs the logged epochs from the first (which the caller checked
// retention still allows).
func (e *Engine) moveEpochs(from, to uint32) error {
	tx := e.store.Begin(true)
	defer tx.Discard()
	if err := dropSnapshot(tx, from); err != nil {
		return err
	}
	type kv struct{ k, v []byte }
	var moved []kv
	if err := tx.IteratePrefix(epochPrefix(from), func(k, v []byte) error {
		moved = append(moved, kv{append([]byte(nil), k...), append([]byte(nil), v...)})
		return nil
	}); err != nil {
		return err
	}
	for _, m := range moved {
		epoch := binary.BigEndian.Uint64(m.k[len(m.k)-8:])
		rec, ok := decodeEpoch(m.v)
		if !ok {
			return sqlerr.New(sqlerr.DataCorrupted, "unreadable epoch record of a streaming table")
		}
		// Without the snapshot, a restart before the new table's next
		// epoch re-runs from the first epoch, as the new table does now.
		rec.MinEpoch = 1
		if err := tx.Set(epochKey(to, int64(epoch)), encodeEpoch(rec)); err != nil {
			return err
		}
		if err := tx.Delete(m.k); err != nil {
			return err
		}
	}
	return tx.Commit()
}
