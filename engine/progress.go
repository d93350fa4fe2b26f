package engine

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// weir_catalog holds weir's own virtual relations.
const weirCatalogSchema = "weir_catalog"

// progressOID is the fixed OID of weir_catalog.streaming_progress.
const progressOID uint32 = 14000

var progressColumns = []planner.RelColumn{
	{Name: "name", T: types.Text},
	{Name: "status", T: types.Text},
	{Name: "epoch", T: types.Int8},
	{Name: "input_rows", T: types.Int8},
	{Name: "late_rows", T: types.Int8},
	{Name: "watermark", T: types.TimestampTZ},
	{Name: "state_rows", T: types.Int8},
	{Name: "state_bytes", T: types.Int8},
	{Name: "input_rows_per_second", T: types.Float8},
	{Name: "processed_rows_per_second", T: types.Float8},
	{Name: "backlog_rows", T: types.Int8},
	{Name: "last_batch_duration_ms", T: types.Float8},
	{Name: "last_error", T: types.Text},
	{Name: "output_rows", T: types.Int8},
	// state_bytes may reach this before the table fails with 53200
	// (state_memory_limit option, or weir serve --streaming-state-memory)
	{Name: "state_memory_limit", T: types.Int8},
	// flow: the append flow the row is of (flows.go: a table declared
	// without a query has a row per flow, each its own job); NULL for a
	// table's own query
	{Name: "flow", T: types.Text},
	// files found and not read yet by a table reading files (NULL for
	// other inputs; files_input.go)
	{Name: "backlog_files", T: types.Int8},
	{Name: "backlog_bytes", T: types.Int8},
	// files reported and not read since the table started: vanished
	// before reading, changed after, unreadable, damaged (files_events.go;
	// each is a files event in the event log)
	{Name: "files_skipped", T: types.Int8},
	// the WAL bytes the replication slots of the postgres-cdc sources it
	// reads hold beyond what weir confirmed (NULL for other inputs;
	// pgcdc_progress.go)
	{Name: "replication_slot_lag_bytes", T: types.Int8},
}

func progressRelation() *planner.Relation {
	return &planner.Relation{OID: progressOID, Schema: weirCatalogSchema, Name: "streaming_progress", Kind: planner.VirtualTable, Cols: progressColumns}
}

// progressRows builds weir_catalog.streaming_progress: one row per
// streaming table.
func (e *Engine) progressRows(sees func(*catalog.Relation) bool) arrow.RecordBatch {
	cols := make([][]any, len(progressColumns))
	for _, rel := range e.cat.Relations() {
		if rel.Kind != catalog.KindStreamingTable || !sees(rel) { // sees: privilege_checks_monitor.go
			continue
		}
		if rel.Streaming != nil && rel.Streaming.NoQuery {
			for _, row := range e.flowProgressRows(rel) { // flows_describe.go
				appendRow(cols, row)
			}
			continue
		}
		appendRow(cols, progressRow(rel.Name, e.runnerFor(rel.OID), nil))
	}
	wc := make([]wire.Column, len(progressColumns))
	for i, c := range progressColumns {
		wc[i] = wire.Column{Name: c.Name, Type: c.T}
	}
	return anyBatch(wc, cols)
}

// progressRow is the streaming_progress row of one job (r nil: not
// running); flow is the flow's name or nil.
func progressRow(name string, r *runner, flow any) []any {
	status, lastErr := statusStopped, ""
	var backlogFiles, backlogBytes, filesSkipped any
	if r != nil {
		status, lastErr = r.state()
		// Files inputs are keyed by the job's OID (a flow's own).
		if nf, nb, ok := r.eng.filesBacklog(r.oid); ok {
			backlogFiles, backlogBytes = nf, nb
		}
		if n, ok := r.eng.filesSkipped(r.oid); ok {
			filesSkipped = n
		}
	}
	if r != nil && r.job != nil {
		p := r.job.Progress()
		var wm any
		if p.HasWatermark && p.Watermark != math.MinInt64 {
			wm = p.Watermark
		}
		return []any{name, status, p.Epoch, p.InputRows, p.LateRows, wm, p.StateRows, p.StateBytes,
			p.InputRowsPerSecond, p.ProcessedRowsPerSecond, p.BacklogRows,
			float64(p.LastBatchDuration.Microseconds()) / 1000, nullIfEmpty(lastErr), p.OutputRows, stateLimitValue(r.job.StateLimit), flow,
			backlogFiles, backlogBytes, filesSkipped, pgcdcSlotLag(r)}
	}
	return []any{name, status, int64(0), int64(0), int64(0), nil, int64(0), int64(0), 0.0, 0.0, int64(0), 0.0, nullIfEmpty(lastErr), int64(0), nil, flow,
		backlogFiles, backlogBytes, filesSkipped, pgcdcSlotLag(r)}
}

func appendRow(cols [][]any, vals []any) {
	for i, v := range vals {
		cols[i] = append(cols[i], v)
	}
}

// stateLimitValue is the state_memory_limit column: NULL when unlimited.
func stateLimitValue(n int64) any {
	if n <= 0 {
		return nil
	}
	return n
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// anyBatch builds a batch from Go values (int64, float64, string, nil),
// one slice per column.
func anyBatch(cols []wire.Column, vals [][]any) arrow.RecordBatch {
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	n := 0
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: true}
		ds := make([]expr.Datum, len(vals[i]))
		for k, v := range vals[i] {
			ds[k] = v
		}
		arrs[i] = expr.ArrayFromDatums(nil, c.Type, ds)
		n = len(ds)
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(n))
}
