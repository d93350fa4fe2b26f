package engine

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/changelog"
	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
)

// Change logs: an update- or complete-mode streaming table (an aggregate
// without windows, an AUTO CDC target, a changelog table over a
// postgres-cdc source) keeps, beside its current rows, the log of every
// epoch's changes (connector/changelog), so that another streaming table
// can read it as a stream and receive its inserts and deletes: filters and
// projections pass them, aggregates subtract, joins retract.
//
// The log is kept from when a streaming table first reads the table as a
// stream (ensureChangeLogs, as that reader's job starts): it begins with
// the table's rows as of its latest published epoch, as inserts (as a
// sink created on a table with rows does, backfill), then every epoch's
// changes. A table nobody reads as a stream keeps none. The log is one
// more sink of the table, attached with its others (attachSinks): written
// in each epoch's transaction, and on a restart given the re-run epochs it
// lacks, as any sink is (sinksDecision); a log enabled while its table's
// job was not running gets the table's whole history by one re-run from
// the first epoch when the job starts.

// changeLogSink is the change log of a table in update or complete mode,
// as one of the table's running sinks; nil when the table keeps none.
func (e *Engine) attachedChangeLog(rel *catalog.Relation, mode string) *liveSink {
	on, err := changelog.New(e.store, rel.OID).Enabled()
	if err == nil && !on {
		return nil
	}
	l := e.changeLogSink(rel, mode)
	if err != nil {
		l.fail(err)
	}
	return l
}

// changeLogSink is the change log of a table as a live sink.
func (e *Engine) changeLogSink(rel *catalog.Relation, mode string) *liveSink {
	log := changelog.New(e.store, rel.OID)
	def := &catalog.Sink{Name: "change log of " + rel.Name, From: rel.OID, Owner: rel.Owner, Connector: "changelog"}
	l := &liveSink{def: def, append: false, status: sinkRunning, consolidate: true}
	l.failed = func(se *sqlerr.Error) { e.sinkFailed(rel, def, se) }
	base, err := log.Base()
	if err != nil {
		l.fail(err)
		return l
	}
	def.EpochBase = base
	l.sink, l.schema = log, changeLogSchema(planner.Schema(tableColumns(rel)))
	return l
}

// ensureChangeLogs makes every update-mode table that plan reads as a
// stream keep its change log, before the plan's job reads it.
func (e *Engine) ensureChangeLogs(sp *planner.StreamPlan) error {
	if sp.Tree == nil {
		return nil
	}
	for _, leaf := range sp.Tree.Sources {
		if !leaf.Changelog {
			continue
		}
		rel, ok := e.cat.RelationByOID(leaf.Input.OID)
		if !ok {
			continue
		}
		if err := e.enableChangeLog(rel); err != nil {
			return err
		}
	}
	return nil
}

// enableChangeLog starts table rel's change log, if it has none, with
// its rows as of its latest published epoch.
func (e *Engine) enableChangeLog(rel *catalog.Relation) error {
	log := changelog.New(e.store, rel.OID)
	if on, err := log.Enabled(); err != nil || on {
		return err
	}
	r := e.runnerFor(rel.OID)
	ts := e.sinksOf(rel.OID)
	if r == nil || r.job == nil || r.plan == nil || ts == nil {
		// Not running: its job attaches the log when it starts, and a
		// re-run from the first epoch writes the table's history into it.
		tx := e.store.Begin(true)
		defer tx.Discard()
		if err := log.Enable(tx); err != nil {
			return err
		}
		return tx.Commit()
	}
	return r.job.ReadPublished(func(at int64) error {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		l := e.changeLogSink(rel, r.plan.Mode)
		if l.sink == nil {
			_, msg := l.state()
			return sqlerr.New(sqlerr.IOError, "%s", msg)
		}
		var batches []arrow.RecordBatch
		if at > 0 {
			rows, err := e.publishedRows(r)
			if err != nil {
				return err
			}
			if batches, err = l.batches(at+l.def.EpochBase, rowsAs(rows, exec.ChangeInsert)); err != nil {
				return err
			}
		}
		tx := e.store.Begin(true)
		defer tx.Discard()
		if err := log.Enable(tx); err != nil {
			return err
		}
		if at > 0 {
			if err := log.Write(tx, at+l.def.EpochBase, batches); err != nil {
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		ts.sinks = append(ts.sinks, l)
		return nil
	})
}

// changeLogsReadBy is the update-mode tables whose change logs the jobs
// of streaming table rel read.
func (e *Engine) changeLogsReadBy(rel *catalog.Relation) []uint32 {
	var out []uint32
	for _, r := range e.jobsOf(rel) { // flows.go: its own job, or its flows'
		if r.plan == nil || r.plan.Tree == nil {
			continue
		}
		for _, leaf := range r.plan.Tree.Sources {
			if leaf.Changelog {
				out = append(out, leaf.Input.OID)
			}
		}
	}
	return out
}

// changeLogReaderOf names a streaming table that reads table oid's
// change log, or "".
func (e *Engine) changeLogReaderOf(oid uint32) string {
	for _, rel := range e.cat.Relations() {
		if rel.Kind != catalog.KindStreamingTable {
			continue
		}
		for _, read := range e.changeLogsReadBy(rel) {
			if read == oid {
				return rel.Name
			}
		}
	}
	return ""
}

// releaseChangeLogs stops and drops the change logs of tables that no
// streaming table reads as a stream any more (their last reader was
// dropped): a later reader starts a new one from the rows of the moment.
func (e *Engine) releaseChangeLogs(oids []uint32) error {
	for _, oid := range oids {
		if e.changeLogReaderOf(oid) != "" {
			continue
		}
		if err := e.disableChangeLog(oid); err != nil {
			return err
		}
	}
	return nil
}

// disableChangeLog takes table oid's change log out of its running sinks
// (waiting for an epoch being written) and drops it.
func (e *Engine) disableChangeLog(oid uint32) error {
	if ts := e.sinksOf(oid); ts != nil {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		kept := ts.sinks[:0]
		for _, l := range ts.sinks {
			if l.def.OID != 0 || l.def.Connector != "changelog" {
				kept = append(kept, l)
			}
		}
		ts.sinks = kept
	}
	return e.dropChangeLog(oid)
}

// rowsAs is rows as changes of one kind: a table's rows inserted (a
// backfill), or deleted (REFRESH ... FULL's retraction).
func rowsAs(rows []arrow.RecordBatch, kind int8) []exec.ChangeBatch {
	out := make([]exec.ChangeBatch, 0, len(rows))
	for _, b := range rows {
		c := exec.ChangeBatch{Rows: b}
		if kind != exec.ChangeInsert {
			c.Diff = make([]int8, b.NumRows())
			for i := range c.Diff {
				c.Diff[i] = kind
			}
		}
		out = append(out, c)
	}
	return out
}

// changeLogSchema is the schema of a change log's rows: the table's
// columns, then _change_type and _commit_version (sinkColumns' types).
func changeLogSchema(schema *arrow.Schema) *arrow.Schema {
	fields := append(append([]arrow.Field(nil), schema.Fields()...),
		arrow.Field{Name: changelog.ChangeTypeColumn, Type: types.Text.Arrow(), Nullable: true},
		arrow.Field{Name: changelog.CommitVersionColumn, Type: types.Int8.Arrow(), Nullable: true})
	return arrow.NewSchema(fields, nil)
}

// changeLogSource is the change log of update- or complete-mode streaming
// table input, read as a stream by a streaming table (source_input.go).
func (e *Engine) changeLogSource(input *planner.Relation, schema *arrow.Schema) connector.Source {
	return e.logs.Source(state.ChangesRelation(input.OID), changeLogSchema(schema))
}

// tableColumns is a catalog table's columns as the planner's.
func tableColumns(rel *catalog.Relation) []planner.Column {
	cols := make([]planner.Column, len(rel.Columns))
	for i, c := range rel.Columns {
		cols[i] = planner.Column{Name: c.Name, T: c.Type}
	}
	return cols
}

// dropChangeLog forgets a dropped table's change log.
func (e *Engine) dropChangeLog(oid uint32) error {
	tx := e.store.Begin(true)
	defer tx.Discard()
	if err := changelog.New(e.store, oid).Drop(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// rebaseChangeLog prepares a table's change log for REFRESH ... FULL,
// which recomputes the table from epoch 1: one more logged epoch deletes
// every row the log's readers hold (its changes folded), so that the
// recomputed table's epochs, numbered after it, insert the new rows into
// an empty table. The table's job is stopped.
func (e *Engine) rebaseChangeLog(rel *catalog.Relation) error {
	log := changelog.New(e.store, rel.OID)
	last, err := log.LastCommitted()
	if err != nil || last == 0 {
		return err
	}
	chunks, err := e.store.ReadChunks(log.Relation())
	if err != nil {
		return err
	}
	cols := tableColumns(rel)
	held, err := exec.FoldChangeLog(cols, chunks)
	if err != nil {
		return err
	}
	l := e.changeLogSink(rel, planner.UpdateMode)
	batches, err := l.batches(last+1, rowsAs(held, exec.ChangeDelete))
	if err != nil {
		return err
	}
	tx := e.store.Begin(true)
	defer tx.Discard()
	if err := log.Write(tx, last+1, batches); err != nil {
		return err
	}
	if err := log.SetBase(tx, last+1); err != nil {
		return err
	}
	return tx.Commit()
}
