package engine

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// Policy expressions over rows that are not read from a table: the new
// rows of an INSERT (WITH CHECK) and the rows SUBSCRIBE sends. They run
// as a small plan over a scan of the given rows, so that a policy with a
// subquery (USING (owner IN (SELECT …))) runs as in any query.

// givenRowsName names the scan that reads the given rows; its OID is 0,
// which no stored relation has.
const givenRowsName = "\x00given rows"

// givenRowsScan is the scan of rows shaped as rel's columns.
func givenRowsScan(rel *planner.Relation) *planner.Scan {
	return &planner.Scan{Name: givenRowsName, Kind: planner.StoredTable, Cols: relColumns(rel)}
}

// givenRows answers givenRowsScan with rows, and every other scan (a
// policy's subquery) as the session's catalog does.
type givenRows struct {
	*catalogView
	rows []arrow.RecordBatch
}

func (g givenRows) ScanTable(ctx context.Context, scan *planner.Scan) ([]arrow.RecordBatch, error) {
	if scan.OID == 0 && scan.Name == givenRowsName {
		return g.rows, nil
	}
	return g.catalogView.ScanTable(ctx, scan)
}

// runOverRows runs plan, whose leaf is givenRowsScan, over rows.
func (s *Session) runOverRows(ctx context.Context, plan planner.Node, rows []arrow.RecordBatch) ([]arrow.RecordBatch, error) {
	mem := s.queryMemory()
	defer mem.Close()
	env := &exec.Env{Tables: givenRows{catalogView: s.catalogView(), rows: rows}, Ctx: s.exprCtx(nil), Memory: mem}
	return exec.Run(ctx, env, plan)
}

// evalChecks evaluates preds over rows (rel's shape) and returns, per
// batch of the result, one boolean column per predicate.
func (s *Session) evalChecks(ctx context.Context, rel *planner.Relation, preds []expr.Expr, rows []arrow.RecordBatch) ([]arrow.RecordBatch, error) {
	cols := make([]planner.Column, len(preds))
	for i := range preds {
		cols[i] = planner.Column{Name: "check", T: types.Bool}
	}
	plan := &planner.Project{Input: givenRowsScan(rel), Exprs: preds, Cols: cols}
	return s.runOverRows(ctx, plan, rows)
}

// scanBelowFilters reports whether n is a scan, or row-level security's
// filters over one (what ScanSecurity puts under a scan's masks).
func scanBelowFilters(n planner.Node) bool {
	for {
		switch p := n.(type) {
		case *planner.Scan:
			return true
		case *planner.Filter:
			n = p.Input
		default:
			return false
		}
	}
}
