package engine

import (
	"encoding/json"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// weir_catalog.event_log is every event a session may read; event_log('t')
// (Databricks' table function, planner/bind_event_log.go) is its rows of
// streaming table t. The columns are Databricks' (id, sequence, origin,
// timestamp, message, level, maturity_level, error, details, event_type;
// the JSON ones as jsonb), then weir's: the origin's table and flow as
// columns, the epoch the event is of, and the table's OID.
//
// Who reads what: a superuser or a member of pg_monitor reads every event;
// another role the events of the relations it may SELECT (on the table
// or some column); events of dropped objects and the server's own (the event log's
// retention trims) are the monitors' only.

// eventLogOID is the fixed OID of weir_catalog.event_log.
const eventLogOID uint32 = 14020

var eventLogColumns = []planner.RelColumn{
	{Name: "id", T: types.Text},
	{Name: "sequence", T: types.JSONB},
	{Name: "origin", T: types.JSONB},
	{Name: "timestamp", T: types.TimestampTZ},
	{Name: "message", T: types.Text},
	{Name: "level", T: types.Text},
	{Name: "maturity_level", T: types.Text},
	{Name: "error", T: types.JSONB},
	{Name: "details", T: types.JSONB},
	{Name: "event_type", T: types.Text},
	{Name: "table_name", T: types.Text},
	{Name: "flow_name", T: types.Text},
	{Name: "epoch", T: types.Int8},
	{Name: "table_oid", T: types.Oid},
}

func eventLogRelation() *planner.Relation {
	return &planner.Relation{OID: eventLogOID, Schema: weirCatalogSchema, Name: "event_log", Kind: planner.VirtualTable, Cols: eventLogColumns}
}

// mayReadEvents reports whether s reads every event (superuser, pg_monitor).
func (s *Session) mayReadEvents() bool {
	return s.superuser || s.hasPrivsOf("pg_monitor")
}

// mayReadEventsOf reports whether s reads the events of relation oid.
func (s *Session) mayReadEventsOf(oid uint32) bool {
	if s.mayReadEvents() {
		return true
	}
	rel, ok := s.eng.cat.RelationByOID(oid)
	return ok && oid != 0 && s.requireRelationPrivilege(rel, catalog.PrivSelect, nil) == nil // privilege_checks.go
}

// eventLogRows builds weir_catalog.event_log for s.
func (s *Session) eventLogRows() (arrow.RecordBatch, error) {
	all := s.mayReadEvents()
	evs, err := eventlog.Read(s.eng.store, func(ev *eventlog.Event) bool {
		s.eng.eventOrigin(ev)
		return all || s.mayReadEventsOf(ev.Object)
	})
	if err != nil {
		return nil, err
	}
	cols := make([][]any, len(eventLogColumns))
	for i := range evs {
		appendRow(cols, eventRow(&evs[i]))
	}
	wc := make([]wire.Column, len(eventLogColumns))
	for i, c := range eventLogColumns {
		wc[i] = wire.Column{Name: c.Name, Type: c.T}
	}
	return anyBatch(wc, cols), nil
}

// eventRow is ev's row of event_log.
func eventRow(ev *eventlog.Event) []any {
	seq := map[string]any{"seq_no": ev.Seq}
	if ev.Epoch != 0 {
		seq["epoch"] = ev.Epoch
	}
	origin := map[string]any{}
	if ev.Name != "" {
		origin["table_name"] = ev.Name
	}
	if ev.Flow != "" {
		origin["flow_name"] = ev.Flow
	}
	if ev.Object != 0 {
		origin["table_oid"] = ev.Object
	}
	var errCol, det, epoch, table any
	if ev.Error != "" {
		errCol = jsonText(map[string]any{"message": ev.Error, "sqlstate": ev.Code})
	}
	if ev.Details != "" {
		if s, err := types.NormalizeJSONB(ev.Details); err == nil {
			det = s
		}
	}
	if ev.Epoch != 0 {
		epoch = ev.Epoch
	} else if d := epochOfDetails(ev.Details); d != nil {
		epoch = d
	}
	if ev.Object != 0 {
		table = int64(ev.Object)
	}
	return []any{strconv.FormatUint(ev.Seq, 10), jsonText(seq), jsonText(origin), ev.Time.UnixMicro(), ev.Message, ev.Level, "STABLE",
		errCol, det, ev.Kind, nullIfEmpty(ev.Name), nullIfEmpty(ev.Flow), epoch, table}
}

// epochOfDetails is the "epoch" of a details object (nil: none).
func epochOfDetails(d string) any {
	if d == "" {
		return nil
	}
	var v struct {
		Epoch *int64 `json:"epoch"`
	}
	if json.Unmarshal([]byte(d), &v) != nil || v.Epoch == nil || *v.Epoch == 0 {
		return nil
	}
	return *v.Epoch
}

// jsonText is v as normalized jsonb text.
func jsonText(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	s, err := types.NormalizeJSONB(string(b))
	if err != nil {
		return nil
	}
	return s
}

// EventLogQuery implements planner.EventLogCatalog: the rows of
// event_log(table) are event_log's of that streaming table.
func (v *catalogView) EventLogQuery(table string) (string, error) {
	schema, name := splitQualified(table)
	rel, err := v.s.eng.cat.LookupRelation(v.s.searchPath(), schema, name)
	if err != nil {
		if sqlerr.Code(err) == sqlerr.UndefinedTable {
			return "", sqlerr.New(sqlerr.UndefinedTable, "relation \"%s\" does not exist", table)
		}
		return "", err
	}
	if rel.Kind != catalog.KindStreamingTable {
		return "", sqlerr.New(sqlerr.WrongObjectType, "\"%s\" is not a streaming table", table).
			WithHint("event_log reads the events of a streaming table; weir_catalog.event_log holds every event.")
	}
	if !v.s.mayReadEventsOf(rel.OID) { // its SELECT, or pg_monitor
		return "", relationDenied(rel)
	}
	return "SELECT * FROM weir_catalog.event_log WHERE table_oid = " + strconv.FormatUint(uint64(rel.OID), 10) + "::oid", nil
}

// eventOrigin makes an event written of a flow's job (its checkpoint OID,
// as an epoch's events are staged) an event of the flow's target, with the
// flow's name, and names an event's table when its writer did not.
func (e *Engine) eventOrigin(ev *eventlog.Event) {
	if ev.Object == 0 {
		return
	}
	if t, ok := e.flows.target(ev.Object); ok && t != ev.Object {
		table, name, flow := e.jobOrigin(ev.Object)
		ev.Object = table
		if ev.Flow == "" {
			ev.Flow = flow
		}
		if name != "" {
			ev.Name = name
		}
	}
	if ev.Name == "" {
		if r, ok := e.cat.RelationByOID(ev.Object); ok {
			ev.Name = qualifiedName(r.Schema, r.Name)
		}
	}
}
