package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
)

// The stateless stage of a single-stage streaming table, run ahead: the
// source's prefetcher computes it for the next micro-batch in its own
// goroutine while the job runs this one's operator and commit, so a
// table with plenty of input uses both cores (a projection and filter
// over generated bids is most of q0–q2's work).
//
// Only a stage whose result cannot depend on the epoch runs ahead: a
// plan of scans of the table's input, projections, filters and window
// assignments, over expressions that read no processing time (now(),
// current_timestamp: the epoch's, known only when it starts), call no
// volatile function (random(): a re-run must give the same rows, and
// the order of calls would change) and hold no subquery. Expressions
// are immutable once planned (their caches are sync.Maps), so the
// prefetcher's goroutine evaluating the stage shares nothing mutable
// with the job's, which evaluates the operator's own expressions.

// preparer is a source that runs a step on each read ahead of time
// (connector.Prefetcher).
type preparer interface {
	SetPrepare(func(connector.Read) (any, error))
}

// preparedPre is a read's stateless-stage output, computed ahead.
type preparedPre struct{ rows []arrow.RecordBatch }

// runPreAhead hands the stateless stage to the source's prefetcher when
// the plan allows it.
func (j *StreamJob) runPreAhead() {
	p, ok := j.Source.(preparer)
	if !ok || j.plan.Tree != nil || j.plan.Pre == nil || j.plan.Input == nil || !preRunsAhead(j.plan.Pre, j.plan.Input.OID) {
		return
	}
	p.SetPrepare(func(rd connector.Read) (any, error) {
		ectx := *j.Env.exprCtx() // its own copy: Outer is pushed per evaluation
		rows, err := j.runPre(context.Background(), &ectx, rd.Batches)
		if err != nil {
			return nil, err
		}
		return &preparedPre{rows: rows}, nil
	})
}

// preRunsAhead reports whether plan n may run ahead of its epoch.
func preRunsAhead(n planner.Node, input uint32) bool {
	switch x := n.(type) {
	case *planner.Scan:
		return x.OID == input && x.Kind == planner.StoredTable
	case *planner.Project:
		for _, e := range x.Exprs {
			if !exprRunsAhead(e) {
				return false
			}
		}
		return preRunsAhead(x.Input, input)
	case *planner.Filter:
		return exprRunsAhead(x.Pred) && preRunsAhead(x.Input, input)
	case *planner.WindowAssign:
		for _, e := range append([]expr.Expr{x.Time}, x.PartitionBy...) {
			if !exprRunsAhead(e) {
				return false
			}
		}
		return preRunsAhead(x.Input, input)
	}
	return false
}

// epochFunctions read the epoch's processing time or the session's
// clock.
var epochFunctions = map[string]bool{
	"now": true, "current_timestamp": true, "current_date": true, "current_time": true,
	"localtimestamp": true, "localtime": true, "transaction_timestamp": true,
	"statement_timestamp": true, "clock_timestamp": true, "timeofday": true,
}

// exprRunsAhead reports whether e gives the same values whenever it is
// evaluated: only the expression kinds listed, no epoch or volatile
// function.
func exprRunsAhead(e expr.Expr) bool {
	switch x := e.(type) {
	case nil:
		return true
	case *expr.ColumnRef, *expr.Const:
		return true
	case *expr.FuncCall:
		if epochFunctions[x.Name] || expr.IsVolatile(x.Name) {
			return false
		}
		return allRunAhead(x.Args)
	case *expr.Cast:
		return exprRunsAhead(x.Arg)
	case *expr.BoolOp:
		return allRunAhead(x.Args)
	case *expr.Not:
		return exprRunsAhead(x.Arg)
	case *expr.IsNull:
		return exprRunsAhead(x.Arg)
	case *expr.BoolTest:
		return exprRunsAhead(x.Arg)
	case *expr.Coalesce:
		return allRunAhead(x.Args)
	case *expr.Case:
		return allRunAhead(x.Whens) && allRunAhead(x.Thens) && exprRunsAhead(x.Else)
	case *expr.InList:
		return exprRunsAhead(x.Arg) && allRunAhead(x.List)
	}
	return false
}

func allRunAhead(es []expr.Expr) bool {
	for _, e := range es {
		if !exprRunsAhead(e) {
			return false
		}
	}
	return true
}
