package engine

import (
	"context"
	"fmt"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// The statements of append flows (flows.go): CREATE [OR REFRESH] FLOW,
// DROP FLOW, and what REFRESH STREAMING TABLE and a schedule's change do
// to a target's flows.

// createFlow runs CREATE [OR REFRESH] FLOW name AS INSERT INTO target BY
// NAME query: a job of its own, with its own checkpoint, appending into
// target, a streaming table declared without a query. CREATE OR REFRESH
// of an existing flow replaces its query and keeps its checkpoint (the
// new query applies to the input it has not read yet, as in Databricks),
// when the query keeps the same state.
func (s *Session) createFlow(st *parse.StreamingStmt, text string, io noticer) (wire.Result, error) {
	spec := st.Spec
	if spec.ChangelogTable != "" {
		return s.createChangelogTable(st, text, io) // flows_cdc_table.go
	}
	if spec.TableFlow {
		return s.createTargetAndCDCFlow(st, text, text, "CREATE STREAMING TABLE", io) // flows_cdc_table.go
	}
	target, err := s.eng.cat.LookupRelation(s.searchPath(), st.Schema, st.Name)
	if err != nil {
		return nil, err
	}
	if target.Kind != catalog.KindStreamingTable {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "\"%s\" is not a streaming table", target.Name).
			WithHint("A flow's target is a streaming table: CREATE OR REFRESH STREAMING TABLE " + target.Name + ";")
	}
	if !target.Streaming.NoQuery {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "streaming table \"%s\" has its own query: flows go into a streaming table declared without one", target.Name).
			WithHint("CREATE OR REFRESH STREAMING TABLE name; then CREATE FLOW ... INSERT INTO name BY NAME SELECT ...")
	}
	if spec.CDC != nil {
		return s.createCDCFlow(st, target, text, io) // flows_cdc.go
	}
	if err := cdcTargetTakesNoFlow(target); err != nil { // flows_cdc.go
		return nil, err
	}
	if spec.FlowOnce {
		return s.createOnceFlow(st, target, text, io) // flows_once.go
	}
	var replacing *catalog.Flow
	if owner, f, ok := s.findFlow(target.Schema, spec.Flow); ok {
		if !st.OrReplace || owner.OID != target.OID {
			return nil, sqlerr.New(sqlerr.DuplicateObject, "flow \"%s\" already exists", spec.Flow).
				WithDetail(fmt.Sprintf("It inserts into streaming table %s.", owner.Name)).
				WithHint("CREATE OR REFRESH FLOW replaces a flow's query; DROP FLOW " + spec.Flow + " drops it.")
		}
		if f.Once {
			return nil, sqlerr.New(sqlerr.WrongObjectType, "flow \"%s\" is an INSERT INTO ONCE flow", spec.Flow).
				WithHint("DROP FLOW " + spec.Flow + " first.")
		}
		replacing = &f
	}
	if replacing != nil {
		// The replaced flow's files logs count batches of the schemas it
		// inferred: the new query binds the same ones.
		s.storedFiles = replacing.Files
	}
	sp, trig, err := s.planFlow(st, target, spec.Flow)
	s.storedFiles = nil
	if err != nil {
		return nil, err
	}
	if err := s.checkAccesses(sp.Accesses); err != nil { // privilege_checks.go: it runs at once
		return nil, err
	}
	flow := catalog.Flow{Name: spec.Flow, Definition: text, StateFingerprint: sp.StateFingerprint(),
		Files: s.eng.storedFilesInputs(sp)} // files_input.go: the flow's read_files schemas
	if spec.Comment != nil {
		flow.Comment = *spec.Comment
	}
	if replacing != nil {
		if replacing.StateFingerprint != "" && replacing.StateFingerprint != flow.StateFingerprint {
			return nil, sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "the new query of flow \"%s\" keeps different state than its checkpoint", spec.Flow).
				WithDetail("Only output expressions and filters may change while keeping a flow's checkpoint.").
				WithHint(fmt.Sprintf("DROP FLOW %s and create it again (it then reads its input from the start), or REFRESH STREAMING TABLE %s FULL after the change.", spec.Flow, target.Name))
		}
		flow.OID = replacing.OID
		s.eng.stopRunner(flowCheckpoint(target, *replacing))
	} else if flow.OID, err = s.eng.cat.NewFlowOID(); err != nil {
		return nil, err
	}
	updated, err := s.eng.cat.UpdateStreamingTable(target.OID, func(r *catalog.Relation) error {
		t := r.Streaming
		placed := false
		for i := range t.Flows {
			if t.Flows[i].Name == flow.Name {
				if replacing == nil { // created meanwhile by another session
					return sqlerr.New(sqlerr.DuplicateObject, "flow \"%s\" already exists", flow.Name)
				}
				t.Flows[i], placed = flow, true
			}
		}
		if !placed {
			t.Flows = append(t.Flows, flow)
		}
		t.OutputMode, t.Trigger = planner.AppendMode, trig.kind
		if len(r.Columns) == 0 {
			// An undeclared target takes its first flow's columns.
			for _, c := range sp.Cols {
				r.Columns = append(r.Columns, catalog.Column{Name: c.Name, Type: queryType(c.T)})
			}
		}
		if r.ViewSQL == "" || t.Flows[0].Name == flow.Name {
			r.ViewSQL = st.Query // the first flow's, for pg_get_viewdef
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.startCreatedFlow(updated, flow, sp, trig, io), nil // flows_ddl.go
}

// startCreatedFlow ends a CREATE FLOW whose flow is stored: the plan's
// warnings, the created event, and the flow started.
func (s *Session) startCreatedFlow(updated *catalog.Relation, flow catalog.Flow, sp *planner.StreamPlan, trig trigger, io noticer) wire.Result {
	for _, w := range sp.Warnings {
		io.Notice("WARNING", sqlerr.Warning, w)
	}
	s.eng.flowCreated(updated, flow.Name) // event_log.go
	s.eng.startFlow(updated, flow, sp, trig)
	return commandResult("CREATE FLOW")
}

// dropFlow runs DROP FLOW [IF EXISTS] name: the flow stops and its
// checkpoint goes; the rows it wrote stay in its target (until the target
// is dropped or refreshed FULL), as in Databricks.
func (s *Session) dropFlow(st *parse.StreamingStmt, io noticer) (wire.Result, error) {
	target, f, ok := s.findFlow(st.Schema, st.Spec.Flow)
	if !ok {
		if st.IfExists {
			io.Notice("NOTICE", sqlerr.UndefinedObject, fmt.Sprintf("flow \"%s\" does not exist, skipping", st.Spec.Flow))
			return commandResult("DROP FLOW"), nil
		}
		return nil, sqlerr.New(sqlerr.UndefinedObject, "flow \"%s\" does not exist", st.Spec.Flow)
	}
	oid := flowCheckpoint(target, f)
	s.eng.stopRunner(oid)
	if _, err := s.eng.cat.UpdateStreamingTable(target.OID, withoutFlow(f.Name)); err != nil {
		return nil, err
	}
	// After the catalog: a crash in between leaves an unused checkpoint,
	// never a flow without one (which would read its input again).
	tx := s.eng.store.Begin(true)
	defer tx.Discard()
	if err := dropFlowCheckpoint(tx, s.eng.store, target, f); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	if err := s.eng.dropBatchesOf(oid); err != nil { // batches.go
		return nil, err
	}
	if oid != target.OID {
		s.eng.flows.remove(oid)
	}
	s.eng.flowDropped(target, f.Name) // event_log.go
	return commandResult("DROP FLOW"), nil
}

// withoutFlow is the catalog change that removes flow name from its
// target.
func withoutFlow(name string) func(*catalog.Relation) error {
	return func(r *catalog.Relation) error {
		kept := r.Streaming.Flows[:0]
		for _, g := range r.Streaming.Flows {
			if g.Name != name {
				kept = append(kept, g)
			}
		}
		r.Streaming.Flows = kept
		return nil
	}
}

// refreshFlows runs REFRESH STREAMING TABLE target [FULL]: every flow
// runs now (a failed one starts again from its checkpoint); FULL forgets
// the target's rows and every flow's checkpoint in one commit and runs the
// flows from their inputs' start (ONCE flows run again). It returns when
// every flow has consumed what its input held when the statement began.
func (s *Session) refreshFlows(ctx context.Context, target *catalog.Relation, full bool, io wire.ExecIO) (wire.Result, error) {
	if len(target.Streaming.Flows) == 0 {
		return nil, sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "streaming table \"%s\" has no flow yet", target.Name).
			WithHint("CREATE FLOW name AS INSERT INTO " + target.Name + " BY NAME SELECT ...")
	}
	if full {
		// Plan first: a flow that no longer plans fails the statement
		// before anything is forgotten.
		for _, f := range target.Streaming.Flows {
			if f.Once {
				continue
			}
			if _, _, err := s.planFlowOf(target, f); err != nil {
				return nil, err
			}
		}
		s.eng.stopFlows(target)
		if err := s.eng.rebaseChangeLog(target); err != nil { // change_log.go: its readers see the old rows deleted
			return nil, err
		}
		if err := s.eng.dropTargetData(target); err != nil {
			return nil, err
		}
		io.Notice("NOTICE", sqlerr.SuccessfulCompletion, fmt.Sprintf("recomputing streaming table %s from its flows' retained input", target.Name))
	}
	var wait []*runner
	for _, f := range target.Streaming.Flows {
		if f.Once {
			if full {
				if err := s.runOnceFlow(target, f); err != nil {
					return nil, err
				}
			}
			continue
		}
		oid := flowCheckpoint(target, f)
		r := s.eng.runnerFor(oid)
		failed := r == nil || r.plan == nil
		if r != nil {
			status, _ := r.state()
			failed = failed || status == statusFailed
		}
		if full || failed {
			sp, trig, err := s.planFlowOf(target, f)
			if err != nil {
				return nil, err
			}
			s.eng.stopRunner(oid)
			r = s.eng.startFlow(target, f, sp, trig)
		} else {
			select {
			case r.kick <- struct{}{}:
			default:
			}
		}
		wait = append(wait, r)
	}
	for _, r := range wait {
		if err := s.eng.waitRefreshed(ctx, r, false, io); err != nil {
			return nil, err
		}
	}
	return commandResult("REFRESH STREAMING TABLE"), nil
}

// restartFlows starts target's flows again with the trigger their plans
// give now (after its schedule changed).
func (e *Engine) restartFlows(target *catalog.Relation) error {
	sys := e.systemSession()
	for _, f := range target.Streaming.Flows {
		if f.Once {
			continue
		}
		sp, trig, err := sys.planFlowOf(target, f)
		if err != nil {
			return err
		}
		if r := e.runnerFor(flowCheckpoint(target, f)); r != nil && r.plan != nil && r.trigger.kind == trig.kind {
			continue
		}
		e.stopRunner(flowCheckpoint(target, f))
		e.startFlow(target, f, sp, trig)
	}
	return nil
}
