package engine

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
	"github.com/weir-sql/weir/wire"
)

// The batch history (weir_catalog.streaming_batches): one row per recent
// epoch of every streaming job (a table's query, or each flow), written in
// the epoch's own commit (commitEpoch), so it holds exactly the committed
// epochs, across crashes; the newest batchHistory per job are kept, the
// older deleted in the same commit.
//
// An epoch's commit duration cannot be in the row its own commit writes:
// the row holds the time up to staging (the snapshot, the output and the
// sinks' changes written), and the next epoch's commit rewrites it with
// the whole commit, the store's sync included. Only the newest row of a
// job killed right after it committed keeps the shorter figure.

// batchHistory is how many epochs' rows each job keeps.
const batchHistory = 1000

// batchesOID is the fixed OID of weir_catalog.streaming_batches.
const batchesOID uint32 = 14021

var batchesColumns = []planner.RelColumn{
	{Name: "name", T: types.Text},
	{Name: "flow", T: types.Text},
	{Name: "epoch", T: types.Int8},
	{Name: "start", T: types.TimestampTZ},
	{Name: "duration_ms", T: types.Float8},
	{Name: "read_ms", T: types.Float8},
	{Name: "process_ms", T: types.Float8},
	{Name: "commit_ms", T: types.Float8},
	{Name: "input_rows", T: types.Int8},
	{Name: "input_rows_per_second", T: types.Float8},
	{Name: "processed_rows_per_second", T: types.Float8},
	{Name: "watermark", T: types.TimestampTZ},
	{Name: "state_rows", T: types.Int8},
	{Name: "state_bytes", T: types.Int8},
	{Name: "late_rows", T: types.Int8},
	{Name: "output_rows", T: types.Int8},
}

func batchesRelation() *planner.Relation {
	return &planner.Relation{OID: batchesOID, Schema: weirCatalogSchema, Name: "streaming_batches", Kind: planner.VirtualTable, Cols: batchesColumns}
}

// batchTail is, per job OID, its newest committed row (with its whole
// commit duration), which the next epoch's commit writes again, and the
// exec job that measured it (a row of an earlier job, before REFRESH ...
// FULL, is never written over a later one's).
type batchTail struct {
	mu   sync.Mutex
	rows map[uint32]tailRow
}

type tailRow struct {
	row BatchRow
	job uint64
}

func (t *batchTail) get(oid uint32) (tailRow, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.rows[oid]
	return r, ok
}

func (t *batchTail) set(oid uint32, r tailRow) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rows == nil {
		t.rows = map[uint32]tailRow{}
	}
	t.rows[oid] = r
}

func (t *batchTail) forget(oid uint32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.rows, oid)
}

func batchPrefix(oid uint32) []byte {
	k := binary.BigEndian.AppendUint32([]byte(state.PrefixBatches), oid)
	return append(k, '/')
}

func batchKey(oid uint32, epoch int64) []byte {
	return binary.BigEndian.AppendUint64(batchPrefix(oid), uint64(epoch))
}

// batchRowOf is the row of epoch from what it measured, its commit timed
// up to now.
func batchRowOf(epoch int64, f exec.EpochFigures, now time.Time) BatchRow {
	r := BatchRow{Epoch: epoch, Start: f.Start, ReadDuration: f.Read, ProcessDuration: f.Process,
		InputRows: f.InputRows, InputRowsPerSecond: f.InputRowsPerSecond, Watermark: f.Watermark, HasWatermark: f.HasWatermark,
		StateRows: f.StateRows, StateBytes: f.StateBytes, LateRows: f.LateRows, OutputRows: f.OutputRows}
	if !f.CommitStart.IsZero() {
		r.CommitDuration = now.Sub(f.CommitStart)
	}
	r.finish()
	return r
}

// finish derives the total and the processing rate from the phases.
func (r *BatchRow) finish() {
	r.Duration = r.ReadDuration + r.ProcessDuration + r.CommitDuration
	if secs := r.Duration.Seconds(); secs > 0 {
		r.ProcessedRowsPerSecond = float64(r.InputRows) / secs
	}
}

// stageBatch writes epoch's row of job oid into tx (the epoch's commit),
// rewrites the previous epoch's with its whole commit duration, and
// deletes the row that falls out of the history. It returns the row, for
// batchCommitted.
func (e *Engine) stageBatch(tx *state.Txn, oid uint32, epoch int64, rec exec.EpochRecord) (BatchRow, error) {
	row := batchRowOf(epoch, rec.Figures, time.Now())
	if prev, ok := e.batches.get(oid); ok && prev.job == rec.Figures.Job && prev.row.Epoch == epoch-1 {
		if err := setBatch(tx, oid, prev.row); err != nil {
			return row, err
		}
	}
	if err := setBatch(tx, oid, row); err != nil {
		return row, err
	}
	if old := epoch - batchHistory; old > 0 {
		if err := tx.Delete(batchKey(oid, old)); err != nil {
			return row, err
		}
	}
	return row, nil
}

// batchCommitted notes that row's epoch committed: its commit duration is
// now whole.
func (e *Engine) batchCommitted(oid uint32, row BatchRow, f exec.EpochFigures) {
	if !f.CommitStart.IsZero() {
		row.CommitDuration = time.Since(f.CommitStart)
		row.finish()
	}
	e.batches.set(oid, tailRow{row: row, job: f.Job})
}

func setBatch(tx *state.Txn, oid uint32, r BatchRow) error {
	v, err := json.Marshal(r)
	if err != nil {
		return sqlerr.New(sqlerr.InternalError, "batch history: %v", err)
	}
	return tx.Set(batchKey(oid, r.Epoch), v)
}

// dropBatches deletes job oid's history (DROP, REFRESH ... FULL: the
// epochs it describes are gone).
func (e *Engine) dropBatches(tx *state.Txn, oid uint32) error {
	e.batches.forget(oid)
	return dropBatchRows(tx, oid)
}

// dropBatchRows deletes job oid's stored history in tx.
func dropBatchRows(tx *state.Txn, oid uint32) error {
	var keys [][]byte
	err := tx.IteratePrefix(batchPrefix(oid), func(k, _ []byte) error {
		keys = append(keys, append([]byte(nil), k...))
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := tx.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// moveBatches gives a replaced streaming table the history of the one it
// replaces, with its epochs (CREATE OR REFRESH keeping the checkpoint).
func (e *Engine) moveBatches(from, to uint32) error {
	rows := e.readBatches(from, 0)
	tx := e.store.Begin(true)
	defer tx.Discard()
	if err := e.dropBatches(tx, from); err != nil {
		return err
	}
	for _, r := range rows {
		if err := setBatch(tx, to, r); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// readBatches are job oid's stored rows, oldest first; the newest n (0:
// all).
func (e *Engine) readBatches(oid uint32, n int) []BatchRow {
	tx := e.store.Begin(false)
	defer tx.Discard()
	var out []BatchRow
	_ = tx.IteratePrefix(batchPrefix(oid), func(_, v []byte) error {
		var r BatchRow
		if json.Unmarshal(v, &r) == nil {
			out = append(out, r)
		}
		return nil
	})
	if tail, ok := e.batches.get(oid); ok && len(out) > 0 && out[len(out)-1].Epoch == tail.row.Epoch && out[len(out)-1].Start.Equal(tail.row.Start) {
		out[len(out)-1] = tail.row // its whole commit duration
	}
	if n > 0 && len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// recentBatches are job oid's newest n epochs, oldest first.
func (e *Engine) recentBatches(oid uint32, n int) []BatchRow { return e.readBatches(oid, n) }

// batchesRows builds weir_catalog.streaming_batches: every job's history.
func (e *Engine) batchesRows(sees func(*catalog.Relation) bool) arrow.RecordBatch {
	cols := make([][]any, len(batchesColumns))
	for _, rel := range e.cat.Relations() {
		if rel.Kind != catalog.KindStreamingTable || !sees(rel) { // sees: privilege_checks_monitor.go
			continue
		}
		name := rel.Name // as streaming_progress names it, to join on
		type job struct {
			oid  uint32
			flow any
		}
		jobs := []job{{oid: rel.OID}}
		if rel.Streaming != nil && rel.Streaming.NoQuery {
			jobs = nil
			for _, f := range rel.Streaming.Flows {
				jobs = append(jobs, job{oid: flowCheckpoint(rel, f), flow: f.Name})
			}
		}
		for _, j := range jobs {
			for _, b := range e.readBatches(j.oid, 0) {
				appendRow(cols, batchRowValues(name, j.flow, b))
			}
		}
	}
	wc := make([]wire.Column, len(batchesColumns))
	for i, c := range batchesColumns {
		wc[i] = wire.Column{Name: c.Name, Type: c.T}
	}
	return anyBatch(wc, cols)
}

func batchRowValues(name string, flow any, b BatchRow) []any {
	var wm any
	if b.HasWatermark && b.Watermark != math.MinInt64 {
		wm = b.Watermark
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return []any{name, flow, b.Epoch, b.Start.UnixMicro(), ms(b.Duration), ms(b.ReadDuration), ms(b.ProcessDuration), ms(b.CommitDuration),
		b.InputRows, b.InputRowsPerSecond, b.ProcessedRowsPerSecond, wm, b.StateRows, b.StateBytes, b.LateRows, b.OutputRows}
}

// dropBatchesOf deletes job oid's history in a transaction of its own
// (DROP FLOW).
func (e *Engine) dropBatchesOf(oid uint32) error {
	tx := e.store.Begin(true)
	defer tx.Discard()
	if err := e.dropBatches(tx, oid); err != nil {
		return err
	}
	return tx.Commit()
}
