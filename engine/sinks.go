package engine

import (
	"fmt"
	"log/slog"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/checkpoint"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/filesink"
	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/internal/failpoint"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
)

// A streaming table's sinks at run time. Every sink of a table receives
// each epoch's changes once: the runner's commit of an epoch stages them
// in every sink (Write, in the epoch's transaction) and publishes them
// once the transaction committed (Committed); epochs a restart re-runs go
// to the sinks whose LastCommitted is before them (rerunSinks), and a
// restart re-runs from early enough that every sink catches up
// (sinksDecision). A sink's failure (its folder gone, the disk full)
// fails that sink, shown by SHOW SINKS, and not the table; a restart, or
// REFRESH STREAMING TABLE (which starts the table's job again), tries it
// again from its LastCommitted.
//
// What a sink receives: an append-mode table's appended rows, with the
// table's columns. An update- or complete-mode table's changes, as
// Databricks' change data feed writes them: the table's columns, then
// _change_type ('insert' or 'delete'; an updated row is its delete then
// its insert) and _commit_version (the epoch).

// Change columns of the changes of update- and complete-mode tables.
const (
	changeTypeColumn    = "_change_type"
	commitVersionColumn = "_commit_version"
)

// Sink states, as SHOW SINKS shows them.
const (
	sinkRunning = "running"
	sinkFailed  = "failed"
	sinkStopped = "stopped" // its table is not running
)

// tableSinks is the sinks of one running streaming table (Engine.sinks,
// by the table's OID). mu is held while an epoch is written to them, so
// that DROP SINK and CREATE SINK wait for the epoch.
type tableSinks struct {
	mu    sync.Mutex
	sinks []*liveSink
	// rerunnable is false when retention removed input of the table's
	// first epochs: a sink behind the table's restart point cannot catch
	// up by a re-run from the first epoch.
	rerunnable bool
	// job is the table's, told by sinksDecision from which re-run epoch
	// on the sinks need its changes exactly as first computed.
	job *exec.StreamJob
}

// liveSink is one sink of a running table.
type liveSink struct {
	def    *catalog.Sink
	sink   connector.Sink // nil when it could not be opened
	append bool           // the table's output mode is append
	schema *arrow.Schema  // the batches it gets

	mu      sync.Mutex
	status  string
	lastErr string
	staged  bool // Write succeeded for the epoch being committed
	// consolidate nets each epoch's changes first (a change log's readers
	// need it, change_log.go).
	consolidate bool

	// failed, when set, records the sink's failure as an event of its
	// table (Engine.sinkFailed): the sink has no other handle on the
	// engine. Called once per failure, on the change to failed.
	failed func(e *sqlerr.Error)
}

func (l *liveSink) fail(err error) {
	e := sqlerr.From(err)
	l.mu.Lock()
	was := l.status
	l.status, l.lastErr = sinkFailed, e.Message
	l.mu.Unlock()
	if l.failed != nil {
		if was != sinkFailed {
			l.failed(e)
		}
		return
	}
	slog.Error("sink "+l.def.Name+" failed; its table goes on; REFRESH STREAMING TABLE or a restart retries it", "sink", l.def.Name, "error", e.Message, "sqlstate", e.Code)
}

func (l *liveSink) running() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.status == sinkRunning
}

func (l *liveSink) state() (string, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.status, l.lastErr
}

func (e *Engine) sinksOf(oid uint32) *tableSinks {
	if v, ok := e.sinks.Load(oid); ok {
		return v.(*tableSinks)
	}
	return nil
}

// openSink maps a catalog sink to its connector. This is where a new
// connector plugs in (issue 14's postgres and kafka; iceberg's is
// sink_iceberg.go).
func (e *Engine) openSink(def *catalog.Sink, table *catalog.Relation, mode string) (connector.Sink, *arrow.Schema, error) {
	cols := sinkColumns(table, mode)
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	switch def.Connector {
	case "files":
		s, err := e.openFilesSink(def.Files, cols)
		return s, schema, err
	case "iceberg":
		s, err := e.openIcebergSink(def, table, mode)
		return s, schema, err
	case "kafka":
		s, err := e.openKafkaSink(def, table, mode, schema) // kafka_sink.go
		return s, schema, err
	case "postgres":
		s, err := e.openPostgresSink(def, table, mode) // pgsink.go
		return s, schema, err
	}
	return nil, nil, sqlerr.New(sqlerr.FeatureNotSupported, "sinks of connector \"%s\" are not supported yet", def.Connector)
}

// sinkColumns is what a sink of table gets: its columns, and for a table
// that is not append-only the change columns.
func sinkColumns(table *catalog.Relation, mode string) []filesink.Column {
	cols := make([]filesink.Column, 0, len(table.Columns)+2)
	for _, c := range table.Columns {
		cols = append(cols, filesink.Column{Name: c.Name, Type: c.Type})
	}
	if mode != planner.AppendMode {
		cols = append(cols, filesink.Column{Name: changeTypeColumn, Type: types.Text}, filesink.Column{Name: commitVersionColumn, Type: types.Int8})
	}
	return cols
}

func (e *Engine) openFilesSink(o *catalog.FilesSink, cols []filesink.Column) (*filesink.Sink, error) {
	part := map[string]bool{}
	for _, p := range o.PartitionBy {
		part[p] = true
	}
	var names []string
	var ts []types.T
	for _, c := range cols {
		if !part[c.Name] {
			names = append(names, c.Name)
			ts = append(ts, c.Type)
		}
	}
	ctx := e.systemSession().exprCtx(nil)
	return filesink.Open(filesink.Options{Dir: o.Path, Format: o.Format, Columns: cols, TargetFileSize: o.TargetFileSize,
		PartitionBy: o.PartitionBy, Crash: failpoint.Hit,
		RowJSON: func(buf []byte, arrs []arrow.Array, i int) []byte {
			return expr.AppendRowJSON(ctx, buf, names, ts, arrs, i)
		}})
}

// attachSinks opens the sinks of a streaming table whose job starts (at
// open, CREATE, REFRESH), before its recovery decides where to re-run
// from (sinksDecision).
func (e *Engine) attachSinks(rel *catalog.Relation, sp *planner.StreamPlan, job *exec.StreamJob) {
	ts := &tableSinks{rerunnable: true, job: job}
	if n, err := e.logs.Trimmed(sp.Input.OID); err != nil || n > 0 {
		ts.rerunnable = false
	}
	if sp.Mode != planner.AppendMode {
		if l := e.attachedChangeLog(rel, sp.Mode); l != nil { // change_log.go
			ts.sinks = append(ts.sinks, l)
		}
	}
	for _, def := range e.cat.SinksOf(rel.OID) {
		ts.sinks = append(ts.sinks, e.newLiveSink(def, rel, sp.Mode))
	}
	e.sinks.Store(rel.OID, ts)
	oid := rel.OID
	job.RerunSinks = func(epoch int64, changes []exec.ChangeBatch) error {
		e.rerunSinks(oid, epoch, changes)
		return nil
	}
}

func (e *Engine) newLiveSink(def *catalog.Sink, rel *catalog.Relation, mode string) *liveSink {
	l := &liveSink{def: def, append: mode == planner.AppendMode, status: sinkRunning}
	l.failed = func(se *sqlerr.Error) { e.sinkFailed(rel, def, se) }
	if err := e.sinkReadable(def, rel); err != nil { // privilege_checks_stream.go: a sink reads as its owner
		l.fail(err)
		return l
	}
	s, schema, err := e.openSink(def, rel, mode)
	if err != nil {
		l.fail(err)
		return l
	}
	l.sink, l.schema = s, schema
	return l
}

// sinkFailed records a sink's failure as a "sink" event of its table
// (event_log('t'), weir_catalog.event_log) and the server's log line.
func (e *Engine) sinkFailed(rel *catalog.Relation, def *catalog.Sink, se *sqlerr.Error) {
	e.emit(eventlog.Event{Object: rel.OID, Name: qualifiedName(rel.Schema, rel.Name), Kind: eventlog.KindSink, Level: eventlog.LevelError,
		Message: "sink " + def.Name + " failed; its table goes on; REFRESH STREAMING TABLE or a restart retries it",
		Error:   se.Message, Code: se.Code, Details: details(map[string]any{"sink": def.Name, "status": sinkFailed})})
}

// sinksDecision moves a restart's first re-run epoch back when a sink has
// not committed the epochs before it (a crash between the table's commit
// and the sink's, or a sink that failed for a while): the table re-runs
// from its first epoch, which rebuilds the same state and changes, and
// rerunSinks gives each sink the epochs after its LastCommitted. When
// retention removed the first epochs' input, such a sink fails instead.
//
// It also tells the job the oldest epoch a sink holds: from there on the
// re-run computes every epoch's changes as the first run did
// (StreamJob.SinkChangesFrom), so that the epochs a sink gets continue
// its contents (an update-mode table's delete of the row the sink holds,
// then the insert of its new value).
func (e *Engine) sinksDecision(oid uint32, d checkpoint.Decision, s checkpoint.Stored) checkpoint.Decision {
	ts := e.sinksOf(oid)
	if ts == nil {
		return d
	}
	floor := int64(-1) // the oldest epoch a sink behind the re-run's start holds
	held := int64(-1)  // the oldest epoch any sink holds
	for _, l := range ts.sinks {
		if l.sink == nil {
			continue
		}
		last, err := l.sink.LastCommitted()
		if err != nil {
			l.fail(err)
			continue
		}
		last -= l.def.EpochBase // in the table's epochs
		if last < d.From-1 && d.From > 1 {
			if !ts.rerunnable {
				l.fail(sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "sink %s holds epochs up to %d, and the input of the later epochs its table would re-run is gone (retention)", l.def.Name, last))
				continue
			}
			if floor < 0 || last < floor {
				floor = last
			}
		}
		if held < 0 || last < held {
			held = last
		}
	}
	if ts.job != nil {
		ts.job.SinkChangesFrom = 0
		if held >= 0 {
			ts.job.SinkChangesFrom = max(held, 1)
		}
	}
	if floor < 0 {
		return d
	}
	s.SnapshotEpoch = 0
	s.OutputEpochs = min(s.OutputEpochs, floor)
	d2 := checkpoint.Decide(s)
	d2.OutputStored = d.OutputStored
	e.logger().Info(fmt.Sprintf("streaming table OID %d: a sink holds epochs up to %d only: re-running from epoch %d", oid, floor, d2.From), "oid", oid, "sink_epoch", floor, "rerun_from", d2.From)
	return d2
}

// writeSinks stages an epoch's changes in every running sink of the
// table, in tx; it returns with ts.mu held (sinksCommitted releases it),
// so that no sink comes or goes between an epoch's staging and its
// publication. A sink whose Write fails is failed, not the epoch.
func (e *Engine) writeSinks(tx *state.Txn, oid uint32, epoch int64, changes []exec.ChangeBatch) *tableSinks {
	ts := e.sinksOf(oid)
	if ts == nil {
		return nil
	}
	ts.mu.Lock()
	for _, l := range ts.sinks {
		l.staged = false
		if !l.running() {
			continue
		}
		se := epoch + l.def.EpochBase
		if last, err := l.sink.LastCommitted(); err != nil {
			l.fail(err)
			continue
		} else if se <= last {
			continue
		} else if se > last+1 {
			// Never skip epochs silently: a restart re-runs the missing ones.
			l.fail(sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "sink %s holds epochs up to %d and epoch %d is being committed", l.def.Name, last, se))
			continue
		}
		batches, err := l.batches(se, changes)
		if err == nil {
			err = l.sink.Write(tx, se, batches)
		}
		for _, b := range batches {
			b.Release()
		}
		if err != nil {
			l.fail(err)
			continue
		}
		l.staged = true
	}
	return ts
}

// sinksCommitted publishes the epoch in the sinks that staged it, once
// its transaction committed (committed false: it did not; the sinks
// discard what they staged at their next Write).
func (e *Engine) sinksCommitted(ts *tableSinks, epoch int64, committed bool) {
	if ts == nil {
		return
	}
	defer ts.mu.Unlock()
	for _, l := range ts.sinks {
		if !l.staged {
			continue
		}
		l.staged = false
		if !committed {
			continue
		}
		if err := l.sink.Committed(epoch + l.def.EpochBase); err != nil {
			l.fail(err)
		}
	}
}

// rerunSinks writes a re-run epoch to the sinks that have not committed
// it, each in its own transaction (connector.WriteEpoch).
func (e *Engine) rerunSinks(oid uint32, epoch int64, changes []exec.ChangeBatch) {
	ts := e.sinksOf(oid)
	if ts == nil {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, l := range ts.sinks {
		if !l.running() {
			continue
		}
		last, err := l.sink.LastCommitted()
		if err != nil {
			l.fail(err)
			continue
		}
		se := epoch + l.def.EpochBase
		if se <= last {
			continue
		}
		if se > last+1 {
			l.fail(sqlerr.New(sqlerr.InternalError, "sink %s holds epochs up to %d and was given epoch %d", l.def.Name, last, se))
			continue
		}
		batches, err := l.batches(se, changes)
		if err == nil {
			err = connector.WriteEpoch(e.store, l.sink, se, batches)
		}
		for _, b := range batches {
			b.Release()
		}
		if err != nil {
			l.fail(err)
		}
	}
}

// batches is what the sink gets of an epoch's changes (the file's
// comment says what).
func (l *liveSink) batches(epoch int64, changes []exec.ChangeBatch) ([]arrow.RecordBatch, error) {
	out := []arrow.RecordBatch{}
	if l.consolidate {
		changes = exec.ConsolidateChanges(changes)
	}
	width := len(l.schema.Fields())
	if !l.append {
		width -= 2
	}
	for _, c := range changes {
		n := c.Rows.NumRows()
		if n == 0 {
			continue
		}
		if int(c.Rows.NumCols()) != width {
			return nil, sqlerr.New(sqlerr.InternalError, "sink %s: the changes have %d columns, the table %d", l.def.Name, c.Rows.NumCols(), width)
		}
		cols := append([]arrow.Array(nil), c.Rows.Columns()...)
		for i, col := range cols {
			if !arrow.TypeEqual(col.DataType(), l.schema.Field(i).Type) {
				return nil, sqlerr.New(sqlerr.InternalError, "sink %s: column %s is %s in the changes, %s in the table", l.def.Name, l.schema.Field(i).Name, col.DataType(), l.schema.Field(i).Type)
			}
		}
		if l.append {
			if c.Diff != nil {
				// An append-only table has only inserts; keep them.
				keep := false
				for _, d := range c.Diff {
					keep = keep || d == exec.ChangeDelete
				}
				if keep {
					return nil, sqlerr.New(sqlerr.InternalError, "sink %s: an append-mode table deleted rows", l.def.Name)
				}
			}
			out = append(out, array.NewRecordBatch(l.schema, cols, n))
			continue
		}
		tb := array.NewStringBuilder(memory.DefaultAllocator)
		vb := array.NewInt64Builder(memory.DefaultAllocator)
		tb.Reserve(int(n))
		vb.Reserve(int(n))
		for i := 0; i < int(n); i++ {
			if c.Diff != nil && c.Diff[i] == exec.ChangeDelete {
				tb.Append("delete")
			} else {
				tb.Append("insert")
			}
			vb.UnsafeAppend(epoch)
		}
		ta, va := tb.NewArray(), vb.NewArray()
		tb.Release()
		vb.Release()
		out = append(out, array.NewRecordBatch(l.schema, append(cols, ta, va), n))
		ta.Release()
		va.Release()
	}
	return out, nil
}

// backfill gives a sink created on a table that already has rows the
// table's contents as of its latest published epoch, as that epoch (as
// RisingWave's sinks start from a snapshot): then every later epoch's
// changes. It runs while no epoch commits (StreamJob.ReadPublished), and
// adds the sink to the table's running sinks in the same step.
func (e *Engine) backfill(r *runner, rel *catalog.Relation, def *catalog.Sink) error {
	ts := e.sinksOf(r.oid)
	if ts == nil {
		return nil // the table's job did not start: it attaches its sinks when it does
	}
	return r.job.ReadPublished(func(at int64) error {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		l := e.newLiveSink(def, rel, r.plan.Mode)
		ts.sinks = append(ts.sinks, l)
		if l.sink == nil {
			_, msg := l.state()
			return sqlerr.New(sqlerr.IOError, "%s", msg)
		}
		if at == 0 {
			return nil
		}
		at += def.EpochBase
		if last, err := l.sink.LastCommitted(); err != nil || last >= at {
			return err
		}
		rows, err := e.publishedRows(r)
		if err != nil {
			return err
		}
		batches, err := l.batches(at, rowsAs(rows, exec.ChangeInsert)) // change_log.go
		if err == nil {
			err = connector.WriteEpoch(e.store, l.sink, at, batches)
		}
		for _, b := range batches {
			b.Release()
		}
		if err != nil {
			l.fail(err)
			return fmt.Errorf("writing the contents of %s to the sink: %w", rel.Name, err)
		}
		return nil
	})
}

// rebaseSinks makes the sinks of a table whose epochs start again from 1
// (REFRESH ... FULL) number the new epochs after the last they committed.
// The table's job is stopped.
func (e *Engine) rebaseSinks(oid uint32) error {
	ts := e.sinksOf(oid)
	if ts == nil {
		return nil
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, l := range ts.sinks {
		if l.sink == nil || l.def.OID == 0 {
			continue // never opened: its folder keeps the old numbering; the change log rebases itself (change_log.go)
		}
		last, err := l.sink.LastCommitted()
		if err != nil {
			return err
		}
		if err := e.cat.SetSinkEpochBase(l.def.OID, last); err != nil {
			return err
		}
	}
	return nil
}

// hasFailedSinks reports whether a sink of the table failed.
func (e *Engine) hasFailedSinks(oid uint32) bool {
	ts := e.sinksOf(oid)
	if ts == nil {
		return false
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, l := range ts.sinks {
		if !l.running() {
			return true
		}
	}
	return false
}

// detachSink takes a dropped sink out of its table's running sinks
// (waiting for an epoch being written to it).
func (e *Engine) detachSink(def *catalog.Sink) {
	ts := e.sinksOf(def.From)
	if ts == nil {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	out := ts.sinks[:0]
	for _, l := range ts.sinks {
		if l.def.OID != def.OID {
			out = append(out, l)
		}
	}
	ts.sinks = out
}

// sinkState is a sink's state and last committed epoch for SHOW SINKS.
func (e *Engine) sinkState(def *catalog.Sink) (status, lastErr string, last int64) {
	ts := e.sinksOf(def.From)
	if ts == nil || e.runnerFor(def.From) == nil {
		return sinkStopped, "", -1
	}
	ts.mu.Lock()
	var l *liveSink
	for _, x := range ts.sinks {
		if x.def.OID == def.OID {
			l = x
		}
	}
	ts.mu.Unlock()
	if l == nil {
		return sinkStopped, "", -1
	}
	status, lastErr = l.state()
	last = -1
	if l.sink != nil {
		if n, err := l.sink.LastCommitted(); err == nil {
			last = n
		}
	}
	return status, lastErr, last
}
