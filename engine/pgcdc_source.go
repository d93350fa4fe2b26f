package engine

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/pgcdc"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// CREATE SOURCE name WITH (connector = 'postgres-cdc', hostname = ...,
// password = secret('pw'), database.name = ..., table.name = ...,
// slot.name = ..., publication = ...): PostgreSQL change data capture
// (connector/pgcdc). CREATE checks the source can be read (clear
// SQLSTATEs), reads the table's columns and starts the source's
// replicator: the initial snapshot, then the stream, into the source
// relation's own log in weir's store. Every streaming table reading the
// source reads that log (tablelog), each at its own offsets; a batch
// SELECT reads all of it. One replicator per source, owning its slot.

// pgcdcOpened are the running replicators, by source OID.
type pgcdcOpened struct {
	mu   sync.Mutex
	open map[uint32]*pgcdc.Replicator
}

// pgcdcEventKind is the event log kind of a replicator's events.
const pgcdcEventKind = "cdc"

func (s *Session) createPgCDCSource(ss *parse.StreamingStmt, text string, io wire.ExecIO) (wire.Result, error) {
	opts := make(map[string]string, len(ss.Options))
	for k, v := range ss.Options {
		if k != "connector" {
			opts[k] = v
		}
	}
	o, err := s.eng.pgcdcOptions(s.currentRoleOID(), opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cols, err := pgcdc.Prepare(ctx, o)
	if err != nil {
		return nil, err
	}
	def := &catalog.PgCDCSource{Options: opts}
	rel := &catalog.Relation{Schema: ss.Schema, Name: ss.Name, Kind: catalog.KindSource,
		ViewSQL: "SELECT * FROM " + quoteIdentIfNeeded(o.Schema) + "." + quoteIdentIfNeeded(o.Table) + " /* postgres-cdc */",
		Source:  &catalog.Source{Connector: "postgres-cdc", PgCDC: def, Definition: text}}
	for _, c := range cols {
		rel.Columns = append(rel.Columns, catalog.Column{Name: c.Name, Type: c.Type})
		if c.Key {
			def.Keys = append(def.Keys, c.Name)
		}
	}
	rel.Columns = append(rel.Columns, catalog.Column{Name: pgcdc.OpColumn, Type: types.T{OID: types.OidText, Typmod: -1}},
		catalog.Column{Name: pgcdc.LSNColumn, Type: types.T{OID: types.OidInt8, Typmod: -1}})
	res, err := s.storeSource(ss, rel, io) // source_stmts.go
	if err != nil {
		return nil, err
	}
	if created, err := s.eng.cat.LookupRelation(nil, rel.Schema, rel.Name); err == nil && created.Source != nil && created.Source.PgCDC != nil {
		s.eng.pgcdcReplicator(created) // the snapshot starts now
	}
	return res, nil
}

// pgcdcOptions resolves a source's options: secret('name') opened now,
// for role (the source's owner, or its creator at CREATE), which needs
// USAGE on the secrets named.
func (e *Engine) pgcdcOptions(role uint32, opts map[string]string) (pgcdc.Options, error) {
	resolved, err := e.resolveSecrets(role, opts) // secrets.go
	if err != nil {
		return pgcdc.Options{}, err
	}
	return pgcdc.ParseOptions(resolved)
}

// pgcdcColumns are the captured table's columns of a source relation.
func pgcdcColumns(rel *catalog.Relation) []pgcdc.Column {
	keys := map[string]bool{}
	for _, k := range rel.Source.PgCDC.Keys {
		keys[k] = true
	}
	var cols []pgcdc.Column
	for _, c := range rel.Columns {
		if c.Name == pgcdc.OpColumn || c.Name == pgcdc.LSNColumn {
			continue
		}
		cols = append(cols, pgcdc.Column{Name: c.Name, Type: c.Type, Key: keys[c.Name]})
	}
	return cols
}

// pgcdcReplicator is the running replicator of source rel, started on
// first use (CREATE SOURCE, a reader opening after a restart).
func (e *Engine) pgcdcReplicator(rel *catalog.Relation) (*pgcdc.Replicator, error) {
	e.pgcdc.mu.Lock()
	defer e.pgcdc.mu.Unlock()
	if r := e.pgcdc.open[rel.OID]; r != nil {
		return r, nil
	}
	o, err := e.pgcdcOptions(rel.Owner, rel.Source.PgCDC.Options)
	if err != nil {
		return nil, err
	}
	r := pgcdc.NewReplicator(e.store, rel.OID, o, pgcdcColumns(rel))
	r.OnCommit = e.notifyCommit // streaming.go: wake the readers
	oid, name := rel.OID, rel.Schema+"."+rel.Name
	r.OnEvent = func(level, msg string) {
		lv := eventlog.LevelInfo
		if level == "warn" {
			lv = eventlog.LevelWarn
		}
		if err := eventlog.Append(e.store, eventlog.Event{Time: time.Now(), Object: oid, Name: name, Kind: pgcdcEventKind, Level: lv, Message: msg}); err != nil {
			e.logger().Warn("could not record a postgres-cdc event", "source", name, "err", err)
		}
		e.logger().Info(msg, "source", name)
	}
	if e.pgcdc.open == nil {
		e.pgcdc.open = map[uint32]*pgcdc.Replicator{}
	}
	e.pgcdc.open[rel.OID] = r
	r.Start()
	return r, nil
}

// openPgCDCInput is a streaming table's input from source rel: the
// source's log, its replicator running.
func (e *Engine) openPgCDCInput(rel *catalog.Relation, schema *arrow.Schema) connector.Source {
	if _, err := e.pgcdcReplicator(rel); err != nil {
		return failingSource{err}
	}
	return e.logs.Source(rel.OID, schema)
}

// scanPgCDC is a batch SELECT of source rel: every change row logged.
func (e *Engine) scanPgCDC(rel *catalog.Relation, schema *arrow.Schema) ([]arrow.RecordBatch, error) {
	if _, err := e.pgcdcReplicator(rel); err != nil {
		return nil, err
	}
	return e.store.ScanTable(rel.OID, schema)
}

// dropPgCDC stops source rel's replicator, drops its replication slot
// (so that PostgreSQL stops keeping WAL for it; a failure is a notice)
// and removes its log.
func (e *Engine) dropPgCDC(rel *catalog.Relation, io wire.ExecIO) {
	e.pgcdc.mu.Lock()
	r := e.pgcdc.open[rel.OID]
	delete(e.pgcdc.open, rel.OID)
	e.pgcdc.mu.Unlock()
	if r != nil {
		r.Close()
	}
	if o, err := e.pgcdcOptions(rel.Owner, rel.Source.PgCDC.Options); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := pgcdc.DropSlot(ctx, o); err != nil {
			io.Notice("WARNING", "01000", "could not drop replication slot \""+o.Slot+"\" on the source's server: "+err.Error())
		}
		cancel()
	}
	tx := e.store.Begin(true)
	defer tx.Discard()
	if tx.DropTable(rel.OID) == nil && tx.Delete(pgcdc.ProgressKey(rel.OID)) == nil {
		tx.Commit()
	}
}

// startPgCDC starts the replicator of every postgres-cdc source at open,
// read or not: the slot keeps WAL until weir confirms it.
func (e *Engine) startPgCDC() {
	for _, rel := range e.cat.Relations() {
		if rel.Kind == catalog.KindSource && rel.Source != nil && rel.Source.PgCDC != nil {
			if _, err := e.pgcdcReplicator(rel); err != nil {
				e.logger().Warn("could not start a postgres-cdc source", "source", rel.Name, "err", err)
			}
		}
	}
}

// closePgCDC stops every replicator (server shutdown).
func (e *Engine) closePgCDC() {
	e.pgcdc.mu.Lock()
	open := e.pgcdc.open
	e.pgcdc.open = nil
	e.pgcdc.mu.Unlock()
	for _, r := range open {
		r.Close()
	}
}

// pgcdcTable is the captured table, as SHOW SOURCES shows it.
func pgcdcTable(rel *catalog.Relation) string {
	opts := rel.Source.PgCDC.Options
	names := make([]string, 0, len(opts))
	for k := range opts {
		names = append(names, k)
	}
	sort.Strings(names)
	schema, table := "public", ""
	for _, k := range names {
		switch strings.ToLower(k) {
		case "schema.name", "schema":
			schema = opts[k]
		case "table.name", "table":
			table = opts[k]
		}
	}
	if strings.Contains(table, ".") {
		return table
	}
	return schema + "." + table
}

// PgCDCStatus is the status of source oid's replicator (false: none runs).
func (e *Engine) PgCDCStatus(oid uint32) (pgcdc.Status, bool) {
	e.pgcdc.mu.Lock()
	defer e.pgcdc.mu.Unlock()
	r := e.pgcdc.open[oid]
	if r == nil {
		return pgcdc.Status{}, false
	}
	return r.Status(), true
}

// pgcdcLag is the WAL the source rel's slot holds beyond what weir
// confirmed, in bytes, as the server last reported it; ok is false when
// the source's replicator is not running.
func (e *Engine) pgcdcLag(rel *catalog.Relation) (lag int64, ok bool) {
	e.pgcdc.mu.Lock()
	r := e.pgcdc.open[rel.OID]
	e.pgcdc.mu.Unlock()
	if r == nil {
		return 0, false
	}
	return r.Status().Lag(), true
}
