package engine

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
)

// Expectations of streaming tables (Databricks' CONSTRAINT name EXPECT
// (condition) [ON VIOLATION DROP ROW | FAIL UPDATE]): bound at CREATE
// against the query's columns, checked by the job on the rows each epoch
// writes (exec.ExpectationStage), and counted durably: each epoch's counts
// are added to the table's totals (state.ExpectationCountsKey), its
// dropped rows appended to the quarantine table and an expectations event
// staged in the event log, all in the epoch's own transaction
// (stageExpectations, called by commitEpoch). An epoch re-run after a
// restart does not commit, so nothing is counted twice; an epoch lost in a
// crash is counted when it runs again.

// expectationJob is what commitEpoch needs of a job's expectations.
type expectationJob struct {
	stage *exec.ExpectationStage
	name  string // the table's qualified name (event log)
	flow  string
	// quarantine is the quarantine table (0: none) and the schema its
	// rows are stored with.
	quarantine       uint32
	quarantineSchema *arrow.Schema
}

// planExpectations binds a CREATE STREAMING TABLE's expectations against
// its plan's columns (sp.Expectations), so that a bad one is refused
// before anything is stored, and EXPLAIN lists them.
func (s *Session) planExpectations(st *parse.StreamingStmt, sp *planner.StreamPlan) error {
	q := st.Options["quarantine"]
	if st.Spec == nil || len(st.Spec.Expectations) == 0 {
		if q != "" {
			return sqlerr.New(sqlerr.InvalidParameterValue, "quarantine needs an expectation ON VIOLATION DROP ROW: only dropped rows are quarantined")
		}
		return nil
	}
	list := make([]catalog.Expectation, len(st.Spec.Expectations))
	for i, e := range st.Spec.Expectations {
		list[i] = catalog.Expectation{Name: e.Name, Expr: e.Expr, OnViolation: e.OnViolation}
	}
	bound, err := bindExpectations(s.catalogView(), list, sp)
	if err != nil {
		return err
	}
	drops := false
	for _, e := range bound {
		drops = drops || e.Action == planner.ExpectDrop
	}
	if q != "" && !drops {
		return sqlerr.New(sqlerr.InvalidParameterValue, "quarantine needs an expectation ON VIOLATION DROP ROW: only dropped rows are quarantined")
	}
	sp.Expectations, sp.Quarantine = bound, q
	return nil
}

// checkDeclaredExpectations binds the expectations of a table that flows
// fill against its declared columns (without a column list they are
// bound when its first flow starts, against that flow's columns).
func (s *Session) checkDeclaredExpectations(rel *catalog.Relation) error {
	if len(rel.Columns) == 0 || len(rel.Streaming.Expectations) == 0 {
		return nil
	}
	sp := &planner.StreamPlan{Mode: planner.AppendMode}
	for _, c := range rel.Columns {
		sp.Cols = append(sp.Cols, planner.Column{Name: c.Name, T: c.Type})
	}
	_, err := bindExpectations(s.catalogView(), rel.Streaming.Expectations, sp)
	return err
}

// bindExpectations binds list over sp's columns. DROP ROW needs an
// append-mode table: in update mode a row is a group's current value,
// which the table cannot leave out while its aggregation keeps it.
func bindExpectations(cat planner.Catalog, list []catalog.Expectation, sp *planner.StreamPlan) ([]planner.Expectation, error) {
	if len(list) > planner.MaxExpectations {
		return nil, sqlerr.New(sqlerr.ProgramLimitExceeded, "a streaming table can have at most %d expectations", planner.MaxExpectations)
	}
	out := make([]planner.Expectation, 0, len(list))
	for _, e := range list {
		b, err := planner.BindExpectation(cat, sp.Cols, e.Name, e.Expr, e.OnViolation)
		if err != nil {
			return nil, err
		}
		if b.Action == planner.ExpectDrop && sp.Mode != planner.AppendMode {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "expectation \"%s\": ON VIOLATION DROP ROW needs an append-mode streaming table, and this one is in %s mode", e.Name, sp.Mode).
				WithHint("In update mode a row is a group's current value. Check the rows before they are aggregated (a streaming table with the expectation, read by this one), or use a warning or FAIL UPDATE.")
		}
		out = append(out, b)
	}
	return out, nil
}

// ensureQuarantineTable creates the quarantine table of a streaming table
// (its columns, then failed_expectations text[]), or checks that an
// existing one has that shape; rel.Streaming.Quarantine names it.
func (s *Session) ensureQuarantineTable(schema string, sp *planner.StreamPlan, rel *catalog.Relation, io noticer) error {
	name := sp.Quarantine
	if name == "" {
		return nil
	}
	cols := exec.QuarantineColumns(sp.Cols)
	for i := range cols {
		if cols[i].T.OID == types.OidUnknown {
			cols[i].T = types.Text
		}
	}
	if existing, err := s.eng.cat.LookupRelation(s.searchPath(), "", name); err == nil {
		if !hasShape(existing, cols) {
			return sqlerr.New(sqlerr.DatatypeMismatch, "quarantine table \"%s\" exists with another shape", name).
				WithDetail("It must have the streaming table's columns, then failed_expectations text[]: " + columnList(cols) + ".")
		}
	} else {
		q := &catalog.Relation{Schema: schema, Name: name, Kind: catalog.KindTable}
		for _, c := range cols {
			q.Columns = append(q.Columns, catalog.Column{Name: c.Name, Type: c.T})
		}
		q.Owner = s.ownerOfNew(q) // owner.go
		if _, err := s.eng.cat.CreateRelation(q, false); err != nil {
			return err
		}
		io.Notice("NOTICE", sqlerr.SuccessfulCompletion, fmt.Sprintf("created table %s for rows dropped by expectations (%s)", name, columnList(cols)))
	}
	rel.Streaming.Quarantine = name
	return nil
}

// attachExpectations gives job the checks of rel's expectations (a flow's
// are its target's), binding them over sp's columns. An expectation that
// no longer binds (its column is gone) fails the job with the reason.
func (e *Engine) attachExpectations(rel *catalog.Relation, sp *planner.StreamPlan, job *exec.StreamJob) {
	e.expect.Delete(rel.OID)
	if rel.Streaming == nil || len(rel.Streaming.Expectations) == 0 {
		return
	}
	sys := e.systemSession()
	bound, err := bindExpectations(sys.catalogView(), rel.Streaming.Expectations, sp)
	if err != nil {
		job.Expectations = exec.FailedExpectationStage(err)
		return
	}
	ej := &expectationJob{name: qualifiedName(rel.Schema, rel.Name)}
	if f := e.flowNameOf(rel); f != "" {
		ej.flow = f
	}
	if q := rel.Streaming.Quarantine; q != "" {
		if qr, err := e.cat.LookupRelation(sys.searchPath(), rel.Schema, q); err == nil {
			cols := make([]planner.Column, len(qr.Columns))
			for i, c := range qr.Columns {
				cols[i] = planner.Column{Name: c.Name, T: c.Type}
			}
			ej.quarantine, ej.quarantineSchema = qr.OID, planner.Schema(cols)
		}
	}
	sp.Expectations, sp.Quarantine = bound, rel.Streaming.Quarantine
	ej.stage = exec.NewExpectationStage(rel.Name, bound, sp.Cols, ej.quarantine != 0)
	job.Expectations = ej.stage
	e.expect.Store(rel.OID, ej)
}

// refuseDropQuarantine refuses to drop rel while a streaming table writes
// the rows its expectations drop to it (2BP01, as for a table a streaming
// table reads).
func (e *Engine) refuseDropQuarantine(rel *catalog.Relation) error {
	if rel.Kind != catalog.KindTable {
		return nil
	}
	var writer string
	e.expect.Range(func(_, v any) bool {
		if ej := v.(*expectationJob); ej.quarantine == rel.OID {
			writer = ej.name
			return false
		}
		return true
	})
	if writer == "" {
		return nil
	}
	return sqlerr.New("2BP01", "cannot drop table %s because streaming table %s writes the rows its expectations drop to it", rel.Name, writer).
		WithHint("Drop the streaming table first, or create it again without WITH (quarantine = ...).")
}

// flowNameOf is the flow whose job rel is (flowJobRelation: a target's
// clone under the flow's checkpoint OID), or "".
func (e *Engine) flowNameOf(rel *catalog.Relation) string {
	if rel.Streaming == nil || !rel.Streaming.NoQuery {
		return ""
	}
	for _, f := range rel.Streaming.Flows {
		if flowCheckpointOID(rel, f) == rel.OID {
			return f.Name
		}
	}
	return ""
}

// flowCheckpointOID is flowCheckpoint for a target whose OID may already
// be the flow's (a job's relation).
func flowCheckpointOID(rel *catalog.Relation, f catalog.Flow) uint32 {
	if f.OID == 0 {
		return rel.OID
	}
	return f.OID
}

// expectationTotals are a job's counts so far, by expectation name.
type expectationTotals map[string][2]int64 // passed, failed

// stageExpectations writes, in the epoch's transaction tx, what job oid's
// expectations found in the epoch just checked: the quarantined rows, the
// new totals, and an expectations event.
func (e *Engine) stageExpectations(tx *state.Txn, oid uint32, epoch int64) error {
	v, ok := e.expect.Load(oid)
	if !ok {
		return nil
	}
	ej := v.(*expectationJob)
	ep := ej.stage.Epoch()
	if ep.Rows == 0 {
		return nil
	}
	if ej.quarantine != 0 && len(ep.Quarantined) > 0 {
		rows := make([]arrow.RecordBatch, len(ep.Quarantined))
		for i, b := range ep.Quarantined {
			rows[i] = array.NewRecordBatch(ej.quarantineSchema, b.Columns(), b.NumRows())
		}
		if err := tx.AppendChunks(ej.quarantine, rows); err != nil {
			return err
		}
	}
	list, counts := ej.stage.Expectations(), ep.Counts
	totals, err := readExpectationTotals(tx, oid)
	if err != nil {
		return err
	}
	type detail struct {
		Name    string `json:"name"`
		Dataset string `json:"dataset"`
		Action  string `json:"action"`
		Passed  int64  `json:"passed_records"`
		Failed  int64  `json:"failed_records"`
	}
	details := make([]detail, len(list))
	next := expectationTotals{} // the current expectations' only
	for i, ex := range list {
		t := totals[ex.Name]
		t[0] += counts[i].Passed
		t[1] += counts[i].Failed
		next[ex.Name] = t
		details[i] = detail{Name: ex.Name, Dataset: ej.name, Action: ex.Action, Passed: counts[i].Passed, Failed: counts[i].Failed}
	}
	val, err := json.Marshal(next)
	if err != nil {
		return sqlerr.New(sqlerr.InternalError, "expectation counts: %v", err)
	}
	if err := tx.Set(state.ExpectationCountsKey(oid), val); err != nil {
		return err
	}
	// Databricks' flow_progress event carries details.data_quality.
	d, err := json.Marshal(map[string]any{"flow": ej.flow, "data_quality": map[string]any{"dropped_records": ep.Dropped, "expectations": details}})
	if err != nil {
		return sqlerr.New(sqlerr.InternalError, "expectation counts: %v", err)
	}
	return eventlog.Stage(e.store, tx, eventlog.Event{Object: oid, Name: ej.name, Kind: eventlog.KindExpectations, Epoch: epoch,
		Message: fmt.Sprintf("epoch %d: %d rows checked against %d expectations, %d dropped", epoch, ep.Rows, len(list), ep.Dropped),
		Details: string(d)})
}

// readExpectationTotals reads job oid's totals (empty when none).
func readExpectationTotals(tx *state.Txn, oid uint32) (expectationTotals, error) {
	totals := expectationTotals{}
	v, err := tx.Get(state.ExpectationCountsKey(oid))
	if errors.Is(err, state.ErrNotFound) {
		return totals, nil
	}
	if err != nil {
		return nil, err
	}
	if json.Unmarshal(v, &totals) != nil {
		return nil, sqlerr.New(sqlerr.DataCorrupted, "unreadable expectation counts of streaming table with OID %d", oid)
	}
	return totals, nil
}

// dropExpectationCounts forgets job oid's counts (DROP, REFRESH ... FULL).
func (e *Engine) dropExpectationCounts(tx *state.Txn, oid uint32) error {
	e.expect.Delete(oid)
	return tx.Delete(state.ExpectationCountsKey(oid))
}

// moveExpectationCounts gives a replacing streaming table the counts of
// the table it replaces, with its checkpoint (CREATE OR REFRESH): the
// epochs they count are the ones it keeps. An expectation the new
// definition no longer has is forgotten when the next epoch commits.
func (e *Engine) moveExpectationCounts(from, to uint32) error {
	e.expect.Delete(from) // the replaced table's job is stopped
	tx := e.store.Begin(true)
	defer tx.Discard()
	v, err := tx.Get(state.ExpectationCountsKey(from))
	if errors.Is(err, state.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := tx.Set(state.ExpectationCountsKey(to), v); err != nil {
		return err
	}
	if err := tx.Delete(state.ExpectationCountsKey(from)); err != nil {
		return err
	}
	return tx.Commit()
}

// expectationCounts are job oid's expectations with their committed
// counts, in declaration order.
func (e *Engine) expectationCounts(oid uint32) []ExpectationCount {
	v, ok := e.expect.Load(oid)
	if !ok {
		return nil
	}
	ej := v.(*expectationJob)
	tx := e.store.Begin(false)
	defer tx.Discard()
	totals, err := readExpectationTotals(tx, oid)
	if err != nil {
		totals = expectationTotals{} // Monitor never fails: the figures stay zero
	}
	var out []ExpectationCount
	for _, ex := range ej.stage.Expectations() {
		t := totals[ex.Name]
		out = append(out, ExpectationCount{Name: ex.Name, Action: ex.Action, Passed: t[0], Failed: t[1]})
	}
	return out
}
