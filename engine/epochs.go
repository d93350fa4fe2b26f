package engine

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/internal/failpoint"
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

// commitEpoch makes an epoch durable in one commit: its end offset, the
// rows it appended to the streaming table (append mode) and the late rows
// it wrote to the table's late_rows table (lateOID 0: none).
func (e *Engine) commitEpoch(oid uint32, epoch int64, rec exec.EpochRecord, lateOID uint32, late, output []arrow.RecordBatch) error {
	tx := e.store.Begin(true)
	defer tx.Discard()
	if err := tx.Set(epochKey(oid, epoch), encodeEpoch(rec)); err != nil {
		return err
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

// storedOutputEpochs is how many epochs' rows the table's chunks hold.
func (e *Engine) storedOutputEpochs(oid uint32) (int64, error) {
	tx := e.store.Begin(false)
	defer tx.Discard()
	v, err := tx.Get(outputKey(oid))
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

// prepareRecovery sets a job up to continue after the logged epochs: it
// resumes after the last epoch the state no longer depends on and re-runs
// the rest. In append mode that skips every epoch whose windows, sessions
// and keys are all closed, so a restart re-reads only the input of the
// open state.
func prepareRecovery(job *exec.StreamJob, recs []exec.EpochRecord) {
	if len(recs) == 0 {
		return
	}
	from := recs[len(recs)-1].MinEpoch // first epoch to re-run (1-based)
	if from < 1 {
		from = 1
	}
	if from > int64(len(recs))+1 {
		from = int64(len(recs)) + 1
	}
	if from > 1 {
		job.Resume(from-1, recs[from-2])
	}
	ends := make([]int, 0, len(recs)-int(from)+1)
	for _, r := range recs[from-1:] {
		ends = append(ends, r.End)
	}
	job.Replay = ends
	all := make([]int, len(recs))
	for i, r := range recs {
		all[i] = r.End
	}
	job.NoteRecovered(all, recs[len(recs)-1].MinEpoch)
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
	// The stored rows go with the epochs that produced them.
	if err := tx.DropTable(oid); err != nil {
		return err
	}
	return tx.Commit()
}

// moveEpochs gives a replaced streaming table the epoch log of the table it
// replaces (CREATE OR REFRESH with compatible state).
func (e *Engine) moveEpochs(from, to uint32) error {
	tx := e.store.Begin(true)
	defer tx.Discard()
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
		if err := tx.Set(epochKey(to, int64(epoch)), m.v); err != nil {
			return err
		}
		if err := tx.Delete(m.k); err != nil {
			return err
		}
	}
	return tx.Commit()
}
