package engine

import (
	"context"
	"encoding/json"
	"log/slog"
	"sort"
	"time"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// What happens to a streaming table (created, started, recovered,
// refreshed, failed, dropped, its inputs trimmed) is written twice: as an
// event of the durable event log (package catalog/eventlog, read by
// event_log('t') and weir_catalog.event_log) and as a line of the server's
// log. Both come from emit, so they never disagree: the log line carries
// the event's fields as attributes.

// Defaults of the event log's bounds (weir serve --event-log-retention,
// --event-log-max-rows).
const (
	DefaultEventLogRetention = 7 * 24 * time.Hour
	DefaultEventLogMaxRows   = 100000
)

// eventLogTrimEvery is how often the retention loop trims the event log.
const eventLogTrimEvery = 10 * time.Second

// logger is the server's structured logger (Config.Logger; slog's default
// when none was given).
func (e *Engine) logger() *slog.Logger {
	if e.log != nil {
		return e.log
	}
	return slog.Default()
}

// emit writes ev's line to the server's log, then ev to the event log.
// The line comes first: a crash between the two leaves the line, which
// says more than an event without one would. An event that cannot be
// written (the store is full) is logged a second time, with the reason.
func (e *Engine) emit(ev eventlog.Event) {
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	if ev.Level == "" {
		ev.Level = eventlog.LevelInfo
	}
	attrs := eventAttrs(ev)
	e.logger().LogAttrs(context.Background(), slogLevel(ev.Level), ev.Message, attrs...)
	if err := eventlog.Append(e.store, ev); err != nil {
		attrs = append(attrs, slog.String("event_log_error", sqlerr.From(err).Message))
		e.logger().LogAttrs(context.Background(), slog.LevelWarn, "event log: could not record: "+ev.Message, attrs...)
	}
}

// eventAttrs are ev's fields as log attributes.
func eventAttrs(ev eventlog.Event) []slog.Attr {
	attrs := []slog.Attr{slog.String("event", ev.Kind)}
	if ev.Name != "" {
		attrs = append(attrs, slog.String("table", ev.Name))
	}
	if ev.Flow != "" {
		attrs = append(attrs, slog.String("flow", ev.Flow))
	}
	if ev.Epoch != 0 {
		attrs = append(attrs, slog.Int64("epoch", ev.Epoch))
	}
	if ev.Error != "" {
		attrs = append(attrs, slog.String("error", ev.Error), slog.String("sqlstate", ev.Code))
	}
	if ev.Details != "" {
		var d map[string]any
		if json.Unmarshal([]byte(ev.Details), &d) == nil {
			keys := make([]string, 0, len(d))
			for k := range d {
				keys = append(keys, k)
			}
			sort.Strings(keys) // a line reads the same every time
			for _, k := range keys {
				attrs = append(attrs, slog.Any(k, d[k]))
			}
		}
	}
	return attrs
}

func slogLevel(level string) slog.Level {
	switch level {
	case eventlog.LevelWarn:
		return slog.LevelWarn
	case eventlog.LevelError:
		return slog.LevelError
	}
	return slog.LevelInfo
}

// details is a JSON object of kv (nil: "").
func details(kv map[string]any) string {
	if len(kv) == 0 {
		return ""
	}
	b, err := json.Marshal(kv)
	if err != nil {
		return ""
	}
	return string(b)
}

// jobOrigin is what events of job oid are of: the streaming table (a
// flow's target) and the flow's name ("" for a table's own query).
func (e *Engine) jobOrigin(oid uint32) (table uint32, name, flow string) {
	table = oid
	if t, ok := e.flows.target(oid); ok {
		table = t
	}
	rel, ok := e.cat.RelationByOID(table)
	if !ok {
		return table, "", ""
	}
	name = qualifiedName(rel.Schema, rel.Name)
	if table != oid && rel.Streaming != nil {
		for _, f := range rel.Streaming.Flows {
			if flowCheckpoint(rel, f) == oid {
				flow = f.Name
			}
		}
	}
	return table, name, flow
}

// jobEvent emits an event of job oid.
func (e *Engine) jobEvent(oid uint32, kind, level, msg string, kv map[string]any, err error) {
	table, name, flow := e.jobOrigin(oid)
	ev := eventlog.Event{Object: table, Name: name, Flow: flow, Kind: kind, Level: level, Message: msg, Details: details(kv)}
	if err != nil {
		se := sqlerr.From(err)
		ev.Error, ev.Code = se.Message, se.Code
	}
	e.emit(ev)
}

// relEvent emits an event of relation rel (which may be gone from the
// catalog: a dropped table's event).
func (e *Engine) relEvent(rel *catalog.Relation, kind, msg string, kv map[string]any) {
	e.emit(eventlog.Event{Object: rel.OID, Name: qualifiedName(rel.Schema, rel.Name), Kind: kind, Message: msg, Details: details(kv)})
}

// tableCreated records CREATE [OR REFRESH] STREAMING TABLE.
func (e *Engine) tableCreated(rel *catalog.Relation, replaced bool) {
	kv := map[string]any{"replaced": replaced}
	if rel.Streaming != nil {
		kv["output_mode"], kv["trigger"] = rel.Streaming.OutputMode, rel.Streaming.Trigger
	}
	e.relEvent(rel, eventlog.KindCreated, "streaming table "+qualifiedName(rel.Schema, rel.Name)+" created", kv)
}

// tableDropped records DROP STREAMING TABLE.
func (e *Engine) tableDropped(rel *catalog.Relation) {
	e.relEvent(rel, eventlog.KindDropped, "streaming table "+qualifiedName(rel.Schema, rel.Name)+" dropped", nil)
	if rel.Streaming != nil && rel.Streaming.NoQuery {
		// Its flows' batch histories go with it (a table's own goes with
		// its epochs, dropEpochs).
		for _, f := range rel.Streaming.Flows {
			if err := e.dropBatchesOf(flowCheckpoint(rel, f)); err != nil {
				e.logger().Warn("could not delete the batch history of flow "+f.Name, "table", qualifiedName(rel.Schema, rel.Name), "error", sqlerr.From(err).Message)
			}
		}
	}
}

// jobFailed records that job r failed with err (it stops until REFRESH).
func (e *Engine) jobFailed(r *runner, err error) {
	se := sqlerr.From(err)
	_, name, _ := e.jobOrigin(r.oid)
	msg := "streaming table " + name + " failed: " + se.Message
	kv := map[string]any{}
	if r.job != nil {
		kv["epoch"] = r.job.Progress().Epoch + 1 // the epoch that failed: nothing of it committed
	}
	e.jobEvent(r.oid, eventlog.KindFailed, eventlog.LevelError, msg, kv, err)
}

// tableRefreshed records a completed REFRESH STREAMING TABLE [FULL].
func (e *Engine) tableRefreshed(rel *catalog.Relation, full bool, began time.Time) {
	kv := map[string]any{"full": full, "duration_ms": float64(time.Since(began).Microseconds()) / 1000}
	if r := e.runnerFor(rel.OID); r != nil && r.job != nil {
		p := r.job.Progress()
		kv["epoch"], kv["input_rows"] = p.Epoch, p.InputRows
	}
	what := "refreshed"
	if full {
		what = "fully refreshed (recomputed from its retained input)"
	}
	e.relEvent(rel, eventlog.KindRefreshed, "streaming table "+qualifiedName(rel.Schema, rel.Name)+" "+what, kv)
}

// flowCreated records CREATE [OR REFRESH] FLOW name into target.
func (e *Engine) flowCreated(target *catalog.Relation, name string) {
	tn := qualifiedName(target.Schema, target.Name)
	e.emit(eventlog.Event{Object: target.OID, Name: tn, Flow: name, Kind: eventlog.KindCreated, Message: "flow " + name + " into " + tn + " created"})
}

// flowDropped records DROP FLOW name of target.
func (e *Engine) flowDropped(target *catalog.Relation, name string) {
	tn := qualifiedName(target.Schema, target.Name)
	e.emit(eventlog.Event{Object: target.OID, Name: tn, Flow: name, Kind: eventlog.KindDropped, Message: "flow " + name + " of " + tn + " dropped"})
}

// jobPaused records that job r waits for the store, which could not
// write (disk full, I/O error); the event itself may not be writable then,
// and is logged either way.
func (e *Engine) jobPaused(r *runner, err error) {
	_, name, _ := e.jobOrigin(r.oid)
	e.jobEvent(r.oid, eventlog.KindPaused, eventlog.LevelWarn, "streaming table "+name+" paused: the store cannot write: "+sqlerr.From(err).Message+"; retrying every second", nil, err)
}

// jobResumed records that job r resumed after a pause, from its epoch log.
func (e *Engine) jobResumed(r *runner) {
	_, name, _ := e.jobOrigin(r.oid)
	var kv map[string]any
	if r.job != nil {
		kv = map[string]any{"epoch": r.job.Progress().Epoch}
	}
	e.jobEvent(r.oid, eventlog.KindResumed, "", "streaming table "+name+" resumed", kv, nil)
}
