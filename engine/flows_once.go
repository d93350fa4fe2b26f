package engine

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector/tableout"
	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// ONCE flows (CREATE FLOW name AS INSERT INTO ONCE target BY NAME query):
// a backfill, as Databricks defines it — the query reads tables as they
// are (a batch query, no STREAM), runs once, and runs again only when the
// target is refreshed FULL. Its rows are appended to the target's chunks
// in one commit with the flow's output progress (epoch 1: done), under the
// target's commit lock; a ONCE flow in the catalog whose progress says it
// has not run (a crash between the catalog's commit and the rows') runs at
// the next start. So its rows are in the target exactly once.

// createOnceFlow runs CREATE FLOW name AS INSERT INTO ONCE target ...
func (s *Session) createOnceFlow(st *parse.StreamingStmt, target *catalog.Relation, text string, io noticer) (wire.Result, error) {
	spec := st.Spec
	if owner, _, ok := s.findFlow(target.Schema, spec.Flow); ok {
		return nil, sqlerr.New(sqlerr.DuplicateObject, "flow \"%s\" already exists", spec.Flow).
			WithDetail(fmt.Sprintf("It inserts into streaming table %s.", owner.Name)).
			WithHint("DROP FLOW " + spec.Flow + " first; a ONCE flow runs again on REFRESH STREAMING TABLE " + owner.Name + " FULL.")
	}
	if st.AnyStream || len(st.Inputs) > 0 {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "the query of ONCE flow \"%s\" reads a stream: a ONCE flow reads tables as they are", spec.Flow).
			WithHint("Leave out STREAM and WATERMARK, or leave out ONCE for a flow that goes on reading.")
	}
	// The query is checked and its columns fixed before anything is stored.
	q, cols, err := s.bindOnceFlow(st.Query, target, spec.Flow)
	if err != nil {
		return nil, err
	}
	oid, err := s.eng.cat.NewFlowOID()
	if err != nil {
		return nil, err
	}
	flow := catalog.Flow{Name: spec.Flow, OID: oid, Definition: text, Once: true}
	if spec.Comment != nil {
		flow.Comment = *spec.Comment
	}
	updated, err := s.eng.cat.UpdateStreamingTable(target.OID, func(r *catalog.Relation) error {
		r.Streaming.Flows = append(r.Streaming.Flows, flow)
		if len(r.Columns) == 0 {
			r.Columns = cols
		}
		if r.Streaming.OutputMode == "" {
			r.Streaming.OutputMode = planner.AppendMode
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.eng.appendOnce(context.Background(), s, updated, flow, q); err != nil {
		// Not run: the flow goes, so that the statement changed nothing.
		_, _ = s.eng.cat.UpdateStreamingTable(target.OID, withoutFlow(flow.Name))
		return nil, err
	}
	return commandResult("CREATE FLOW"), nil
}

// bindOnceFlow binds a ONCE flow's query BY NAME to target's columns (the
// query's own when the target has none yet): the plan to run, and the
// target's columns.
func (s *Session) bindOnceFlow(query string, target *catalog.Relation, name string) (*planner.Query, []catalog.Column, error) {
	bind := func(text string) (*planner.Query, error) {
		stmts, err := parse.Parse(text)
		if err != nil {
			return nil, err
		}
		if len(stmts) != 1 || stmts[0].Node.GetSelectStmt() == nil {
			return nil, sqlerr.New(sqlerr.SyntaxError, "the query of ONCE flow \"%s\" must be one SELECT", name)
		}
		return planner.BindQuery(s.catalogView(), stmts[0].Node, nil)
	}
	q, err := bind(query)
	if err != nil {
		return nil, nil, err
	}
	if err := s.checkAccesses(q.Accesses); err != nil { // privilege_checks.go: it reads as its creator
		return nil, nil, err
	}
	got := q.Plan.Columns()
	if len(target.Columns) == 0 {
		cols := make([]catalog.Column, len(got))
		for i, c := range got {
			cols[i] = catalog.Column{Name: c.Name, Type: queryType(c.T)}
		}
		return q, cols, nil
	}
	if err := checkFlowColumns(target, name, got); err != nil {
		return nil, nil, err
	}
	if !flowInShape(target.Columns, got) {
		fill, err := nullFilled(target, name, got)
		if err != nil {
			return nil, nil, err
		}
		text, ok := selectInDeclaredOrder(query, got, fill)
		if !ok {
			return nil, nil, sqlerr.New(sqlerr.InvalidColumnReference, "the query of flow \"%s\" gives its columns in another order than streaming table \"%s\" has them", name, target.Name).
				WithHint("List the query's columns in the table's order.")
		}
		if q, err = bind(text); err != nil {
			return nil, nil, err
		}
		if !flowInShape(target.Columns, q.Plan.Columns()) {
			return nil, nil, sqlerr.New(sqlerr.InvalidColumnReference, "the query of flow \"%s\" cannot be put in the column order of streaming table \"%s\"", name, target.Name)
		}
	}
	return q, target.Columns, nil
}

// appendOnce runs a ONCE flow's plan and appends its rows to target with
// the flow's progress, in one commit.
func (e *Engine) appendOnce(ctx context.Context, s *Session, target *catalog.Relation, f catalog.Flow, q *planner.Query) error {
	mem := s.queryMemory()
	defer mem.Close()
	env := &exec.Env{Tables: s.catalogView(), Ctx: s.exprCtx(nil), Memory: mem}
	batches, err := exec.Run(ctx, env, q.Plan)
	if err != nil {
		return err
	}
	if err := checkEpochNotNull(target.Name, notNullColumns(target), 1, batches); err != nil {
		return err
	}
	pc := make([]planner.Column, len(target.Columns))
	for i, c := range target.Columns {
		pc[i] = planner.Column{Name: c.Name, T: c.Type}
	}
	schema := planner.Schema(pc)
	out := make([]arrow.RecordBatch, 0, len(batches))
	for _, b := range batches {
		out = append(out, array.NewRecordBatch(schema, b.Columns(), b.NumRows()))
	}
	e.flows.add(f.OID, target.OID)
	unlock := e.flows.lockTarget(f.OID)
	defer unlock()
	tx := e.store.Begin(true)
	defer tx.Discard()
	if err := tableout.NewFlow(e.store, target.OID, f.OID).Write(tx, 1, out); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	e.notifyCommit()
	return nil
}

// runOnceFlow runs ONCE flow f of target (again: REFRESH ... FULL, or at
// start when its rows were never committed).
func (s *Session) runOnceFlow(target *catalog.Relation, f catalog.Flow) error {
	st, err := parse.ParseStreaming(f.Definition)
	if err != nil {
		return err
	}
	if st == nil {
		return sqlerr.New(sqlerr.InternalError, "flow \"%s\" has an unreadable definition", f.Name)
	}
	q, _, err := s.bindOnceFlow(st.Query, target, f.Name)
	if err != nil {
		return err
	}
	return s.eng.appendOnce(context.Background(), s, target, f, q)
}

// runPendingOnceFlows runs, at start, the ONCE flows of target whose rows
// were never committed.
func (e *Engine) runPendingOnceFlows(target *catalog.Relation) {
	sys := e.systemSession()
	for _, f := range target.Streaming.Flows {
		if !f.Once {
			continue
		}
		if done, err := tableout.NewFlow(e.store, target.OID, f.OID).LastCommitted(); err != nil || done > 0 {
			continue
		}
		if err := sys.runOnceFlow(target, f); err != nil {
			e.startFailedFlow(target, f, err)
		}
	}
}
