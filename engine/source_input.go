package engine

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/nexmark"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Sources as inputs: a streaming table whose input is a source relation
// reads it through its connector's connector.Source, and a batch SELECT
// reads what the source holds now. Everything a source needs is in its
// typed catalog object (catalog.Source), so it reopens identically after
// a restart.

// sourceRelation is the source relation with that OID, or nil.
func (e *Engine) sourceRelation(oid uint32) *catalog.Relation {
	if oid >= inlineOIDBase {
		if r, ok := e.inline.Load(oid); ok {
			return r.(*catalog.Relation)
		}
	}
	rel, ok := e.cat.RelationByOID(oid)
	if !ok || rel.Kind != catalog.KindSource || rel.Source == nil {
		return nil
	}
	return rel
}

// inputSource is the connector.Source a streaming table reads its input
// from: the source's connector for a source relation, else the table log
// (a table's chunks, or an append-mode streaming table's stored rows).
// reader is the streaming table: an inline source's pace counts from its
// creation (a named source's from its own), and a files source keeps its
// processed-file log under its OID (files_input.go).
func (e *Engine) inputSource(input *planner.Relation, schema *arrow.Schema, reader *catalog.Relation) connector.Source {
	if rel := e.sourceRelation(input.OID); rel != nil {
		if rel.Source.Files != nil {
			return e.openFilesInput(reader, rel, schema, input.Reads)
		}
		if rel.Source.Kafka != nil {
			return e.openKafkaInput(reader, rel, schema) // kafka_input.go
		}
		if rel.Source.PgCDC != nil {
			return e.openPgCDCInput(rel, schema) // pgcdc_source.go
		}
		if rel.Created.IsZero() {
			cp := *rel
			cp.Created = reader.Created
			rel = &cp
		}
		src, err := openSource(rel)
		if err != nil {
			return failingSource{err}
		}
		return relabel{src, schema}
	}
	if input.Streaming && !input.AppendOnly {
		return e.changeLogSource(input, schema) // change_log.go: its inserts and deletes
	}
	return e.logs.Source(input.OID, schema)
}

// openSource opens a source relation's connector. Its pacing counts from
// the source's creation, so every reader and every restart sees one feed.
func openSource(rel *catalog.Relation) (*nexmark.Source, error) {
	if rel.Source.Connector != "nexmark" || rel.Source.Nexmark == nil {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "source \"%s\" has connector \"%s\", which this server cannot read", rel.Name, rel.Source.Connector)
	}
	return nexmark.NewSourceAt(nexmarkOptions(rel.Source.Nexmark), rel.Created)
}

// nexmarkOptions is the connector's form of a stored nexmark source.
func nexmarkOptions(n *catalog.NexmarkSource) nexmark.Options {
	t, _ := nexmark.TableByName(n.Table)
	return nexmark.Options{Table: t, BatchRows: n.BatchRows, Paced: n.Paced, Config: nexmark.Config{
		Seed: n.Seed, EventsPerSecond: n.EventsPerSecond, MaxEvents: n.MaxEvents,
		Disorder: time.Duration(n.DisorderUS) * time.Microsecond, LateFraction: n.LateFraction,
		LateBy: time.Duration(n.LateByUS) * time.Microsecond,
	}}
}

// catalogNexmark is the catalog's form of parsed nexmark options.
func catalogNexmark(o nexmark.Options) *catalog.NexmarkSource {
	return &catalog.NexmarkSource{Table: o.Table.String(), EventsPerSecond: o.Config.EventsPerSecond, MaxEvents: o.Config.MaxEvents,
		Seed: o.Config.Seed, BatchRows: o.BatchRows, DisorderUS: o.Config.Disorder.Microseconds(), LateFraction: o.Config.LateFraction,
		LateByUS: o.Config.LateBy.Microseconds(), Paced: o.Paced}
}

// scanSource is a batch SELECT's read of a source: all it holds now. A
// bounded nexmark source holds all its events (the pace limits only what
// streaming tables are offered); an unbounded one has no end to read to,
// and is refused.
func (e *Engine) scanSource(ctx context.Context, rel *catalog.Relation, schema *arrow.Schema) ([]arrow.RecordBatch, error) {
	if rel.Source.Files != nil {
		return e.readFilesNow(ctx, rel, schema) // files_source.go
	}
	if rel.Source.Kafka != nil {
		return e.readKafkaNow(ctx, rel, schema) // kafka_source.go
	}
	if rel.Source.PgCDC != nil {
		return e.scanPgCDC(rel, schema) // pgcdc_source.go
	}
	n := rel.Source.Nexmark
	if n == nil {
		_, err := openSource(rel)
		return nil, err
	}
	if n.MaxEvents == 0 {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "cannot read all of source \"%s\": it is unbounded (no max_events)", rel.Name).
			WithHint("Read it incrementally with CREATE STREAMING TABLE ... AS SELECT ... FROM STREAM " + rel.Name +
				", give the source max_events, or query a bounded sample: SELECT * FROM nexmark('" + n.Table + "', max_events => 100000).")
	}
	o := nexmarkOptions(n)
	o.Paced = false
	// The rows are generated whole, as a stored table's are held: more
	// than the server's query memory could hold is refused up front
	// rather than exhausting it (the nexmark() table function streams).
	rows := nexmark.RowsIn(o.Table, n.MaxEvents)
	limit := e.queryBudget.Limit()
	if limit <= 0 {
		limit = unboundedQuerySourceBytes
	}
	if rows > limit/sourceRowBytes {
		return nil, sqlerr.New(sqlerr.OutOfMemory, "source \"%s\" holds %d rows, more than a batch query can hold in the server's query memory", rel.Name, rows).
			WithHint("Read it incrementally with a streaming table (FROM STREAM " + rel.Name + "), or stream a prefix of its rows with the nexmark() table function: " +
				rel.ViewSQL + " LIMIT 1000.")
	}
	src, err := nexmark.NewSource(o)
	if err != nil {
		return nil, err
	}
	rd, err := src.Read(ctx, 0, 0)
	if err != nil {
		return nil, err
	}
	out := make([]arrow.RecordBatch, len(rd.Batches))
	for i, b := range rd.Batches {
		out[i] = array.NewRecordBatch(schema, b.Columns(), b.NumRows())
	}
	return out, nil
}

// sourceRowBytes is a generous size of one generated row in memory (a
// person, the widest, is about 150 bytes of Arrow data).
const sourceRowBytes = 256

// unboundedQuerySourceBytes stands for the query memory when the server
// has no bound (--query-memory 0): a batch read of a source still stops at
// 4 GiB of rows.
const unboundedQuerySourceBytes = 4 << 30

// sourceRows estimates a source's rows for the join planner.
func sourceRows(rel *catalog.Relation) float64 {
	if n := rel.Source.Nexmark; n != nil && n.MaxEvents > 0 {
		t, _ := nexmark.TableByName(n.Table)
		return float64(max(1, nexmark.RowsIn(t, n.MaxEvents)))
	}
	return 1000
}

// relabel gives a source's batches the schema the plan expects (the
// relation's column names and types; the arrays are shared).
type relabel struct {
	connector.Source
	schema *arrow.Schema
}

func (r relabel) Read(ctx context.Context, from int64, limit int) (connector.Read, error) {
	rd, err := r.Source.Read(ctx, from, limit)
	if err != nil {
		return rd, err
	}
	for i, b := range rd.Batches {
		rd.Batches[i] = array.NewRecordBatch(r.schema, b.Columns(), b.NumRows())
	}
	return rd, nil
}

// failingSource is a source that cannot be opened: every Read fails with
// why, so the streaming table fails with it (and REFRESH retries).
type failingSource struct{ err error }

func (f failingSource) Read(context.Context, int64, int) (connector.Read, error) {
	return connector.Read{}, f.err
}
func (f failingSource) Start() (int64, error) { return 0, nil }

// refreshTarget is the input rows REFRESH waits for a streaming table to
// have read: an input table's rows now; for a source 0, so that REFRESH
// waits until the table has read what the source offers (backlog 0).
func (e *Engine) refreshTarget(input uint32) (int64, error) {
	if e.sourceRelation(input) != nil {
		return 0, nil
	}
	rows, _, err := e.store.TableStats(input)
	return rows, err
}

// pollInterval is how long a continuous streaming table waits for a
// signal before looking at its input again: a second for inputs that
// signal their commits (tables) or are polled as a safety net; for a
// paced source, the time its next batch takes to become readable (10 ms
// to 1 s), since a clock, not a commit, makes its rows appear.
func (e *Engine) pollInterval(sp *planner.StreamPlan) time.Duration {
	if sp == nil || sp.Input == nil {
		return time.Second
	}
	rel := e.sourceRelation(sp.Input.OID)
	if rel != nil && rel.Source.Files != nil {
		// Files found by the source's watcher become readable without a
		// commit to signal them: look often, a Read finding nothing is cheap.
		return filesPollInterval
	}
	if rel != nil && rel.Source.Kafka != nil {
		return kafkaPollInterval // kafka_input.go
	}
	if rel == nil || rel.Source.Nexmark == nil {
		return time.Second
	}
	n := rel.Source.Nexmark
	if !n.Paced && n.MaxEvents > 0 {
		return time.Second
	}
	t, _ := nexmark.TableByName(n.Table)
	perSecond := nexmark.RowsIn(t, n.EventsPerSecond)
	if perSecond <= 0 {
		return time.Second
	}
	d := time.Duration(float64(n.BatchRows) / float64(perSecond) * float64(time.Second))
	return min(max(d, 10*time.Millisecond), time.Second)
}
