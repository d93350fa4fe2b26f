package engine

import (
	"fmt"
	"strings"

	"github.com/weir-sql/weir/catalog"
)

// How a target of flows (flows.go) shows itself: SHOW CREATE TABLE gives
// its flows' statements after its own, DESCRIBE EXTENDED a query, state
// and checkpoint per flow, SHOW STREAMING TABLES one line summing them.

// flowStatements are target's CREATE FLOW statements, each after a ";"
// and a blank line ("" for a table with its own query).
func flowStatements(rel *catalog.Relation) string {
	if rel.Streaming == nil || !rel.Streaming.NoQuery {
		return ""
	}
	var b strings.Builder
	for _, f := range rel.Streaming.Flows {
		b.WriteString(";\n\n" + strings.TrimRight(strings.TrimSpace(f.Definition), "; \t\r\n"))
	}
	return b.String()
}

// flowProgressRows are a target's streaming_progress rows, one per flow;
// a ONCE flow that ran is "done".
func (e *Engine) flowProgressRows(rel *catalog.Relation) [][]any {
	var out [][]any
	for _, nr := range e.flowRunners(rel) {
		row := progressRow(rel.Name, nr.r, nr.flow)
		if nr.once && nr.r == nil {
			row[1] = statusDone
		}
		out = append(out, row)
	}
	return out
}

// statusDone is a ONCE flow's status once its rows are committed.
const statusDone = "done"

// targetSummary is SHOW STREAMING TABLES' line of a target: failed if a
// flow failed, else running if one runs, else its flows' status; the
// inputs of its flows; the highest epoch; the rows all flows wrote.
func (e *Engine) targetSummary(rel *catalog.Relation) (status, input string, epoch, rows int64) {
	status = statusStopped
	var inputs []string
	seen := map[string]bool{}
	for i, nr := range e.flowRunners(rel) {
		st := statusStopped
		if nr.once && nr.r == nil {
			st = statusDone
		}
		if nr.r != nil {
			st, _ = nr.r.state()
			if nr.r.plan != nil && !seen[nr.r.plan.Input.Name] {
				seen[nr.r.plan.Input.Name] = true
				inputs = append(inputs, nr.r.plan.Input.Name)
			}
			if nr.r.job != nil {
				p := nr.r.job.Progress()
				epoch, rows = max(epoch, p.Epoch), rows+p.OutputRows
			}
		}
		switch {
		case i == 0, st == statusFailed, st == statusRunning && status != statusFailed:
			status = st
		}
	}
	return status, strings.Join(inputs, ", "), epoch, rows
}

// targetDetails are DESCRIBE EXTENDED's detailed rows of a target of
// flows.
func (s *Session) targetDetails(rel *catalog.Relation) [][2]string {
	st := rel.Streaming
	var out [][2]string
	if st.HasComment {
		out = append(out, [2]string{"Comment", st.Comment})
	}
	out = append(out, [2]string{"Table Properties", propertyList(tableOptions(rel))})
	out = append(out, keyDetails(rel)...) // column_constraints.go
	if len(st.Flows) == 0 {
		out = append(out, [2]string{"View Text", "(none: declared without a query, and no flow yet)"})
	} else {
		names := make([]string, len(st.Flows))
		for i, f := range st.Flows {
			names[i] = f.Name
		}
		out = append(out, [2]string{"Flows", strings.Join(names, ", ")})
		q, _, _ := writtenQuery(st.Flows[0].Definition)
		out = append(out, [2]string{"View Text", q})
	}
	out = append(out, [2]string{"Output Mode", st.OutputMode}, [2]string{"Trigger", st.Trigger})
	out = append(out, clauseDetails(st)...) // describe.go
	status, input, _, rows := s.eng.targetSummary(rel)
	if input != "" {
		out = append(out, [2]string{"Input", input})
	}
	out = append(out, [2]string{"State", fmt.Sprintf("%s, %d flows, %d output rows", status, len(st.Flows), rows)})
	for _, f := range st.Flows {
		out = append(out, s.flowDetails(rel, f)...)
	}
	return out
}

// flowDetails are one flow's rows: its statement, its state, its
// checkpoint.
func (s *Session) flowDetails(rel *catalog.Relation, f catalog.Flow) [][2]string {
	label := "Flow " + f.Name
	def := strings.Join(strings.Fields(f.Definition), " ")
	out := [][2]string{{label, def}}
	if f.Comment != "" {
		out = append(out, [2]string{label + " Comment", f.Comment})
	}
	oid := flowCheckpoint(rel, f)
	if f.Once {
		return append(out, [2]string{label + " State", "done (ONCE: runs again on REFRESH ... FULL)"})
	}
	r := s.eng.runnerFor(oid)
	if r != nil && r.plan != nil {
		out = append(out, [2]string{label + " Input", r.plan.Input.Name})
	}
	status, epoch := s.jobState(r) // describe.go
	return append(out, [2]string{label + " State", status}, [2]string{label + " Checkpoint", s.checkpointText(oid, epoch, "flow")})
}

// explainFlows is EXPLAIN STREAMING TABLE of a target: each flow's plan,
// under its name.
func (e *Engine) explainFlows(rel *catalog.Relation) []string {
	var out []string
	for _, nr := range e.flowRunners(rel) {
		switch {
		case nr.once:
			out = append(out, "Flow "+nr.flow+": INSERT INTO ONCE (a batch query, run once)")
		case nr.r == nil || nr.r.plan == nil:
			why := "not running"
			if nr.r != nil {
				status, lastErr := nr.r.state()
				why = status + ": " + lastErr
			}
			out = append(out, "Flow "+nr.flow+": "+why)
		default:
			out = append(out, "Flow "+nr.flow+":")
			for _, l := range explainStreaming(rel.Name, nr.r.plan, nr.r.trigger) {
				out = append(out, "  "+l)
			}
		}
	}
	if len(out) == 0 {
		out = append(out, "(no flow yet)")
	}
	return out
}
