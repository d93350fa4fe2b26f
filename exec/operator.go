// Package exec runs query plans built by the planner over Arrow record
// batches: one operator per plan node, pulled from the root.
package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// BatchSize is the largest number of rows an operator puts in one batch.
const BatchSize = 8192

// Operator produces the rows of one plan node as a stream of batches.
//
// Contract:
//   - Next returns the next non-empty batch of at most BatchSize rows, whose
//     columns are exactly the node's Columns(). At the end it returns
//     nil, nil, and keeps doing so on further calls.
//   - A returned batch belongs to the operator: it is valid until the next
//     call of Next or Close. A caller that keeps it longer calls Retain (and
//     later Release) on it. Operators never modify a batch after returning it.
//   - Next checks ctx between batches and returns the 57014 error once ctx
//     is done. After an error the operator must only be closed.
//   - Close releases what the operator holds, including its inputs; it may
//     be called at any point, once.
type Operator interface {
	Next(ctx context.Context) (arrow.RecordBatch, error)
	Close()
}

// TableSource gives the rows of scanned relations. The engine implements
// it for stored and virtual tables. The returned batches may be shared:
// exec never modifies them and does not release them.
type TableSource interface {
	ScanTable(ctx context.Context, scan *planner.Scan) ([]arrow.RecordBatch, error)
}

// Env is what running a plan needs besides the plan: where table rows come
// from, the expression context (parameters, session settings, outer rows
// of correlated subqueries) and the query's memory account.
type Env struct {
	Tables TableSource
	Ctx    *expr.Ctx
	// Memory is the query's memory account: work_mem per operator, the
	// server's query memory, the spill directory. nil: no bounds and no
	// spilling (operator tests, streaming jobs, which bound their state
	// themselves).
	Memory *QueryMemory
}

// Run builds the operator tree of plan and collects all its output, for
// callers that need the whole result at once (INSERT … SELECT writes it in
// one commit). The returned batches are retained for the caller. A SELECT
// does not collect: the engine pulls its tree's batches as it sends them.
func Run(ctx context.Context, env *Env, plan planner.Node) ([]arrow.RecordBatch, error) {
	op, err := Build(env, plan)
	if err != nil {
		return nil, err
	}
	defer op.Close()
	// The collected result is held until the caller is done with it: it
	// counts against the server's query memory (not against work_mem: it
	// cannot spill).
	result := newMemAccount(env, "the query result")
	var out []arrow.RecordBatch
	for {
		b, err := op.Next(ctx)
		if err == nil && b != nil {
			err = result.grow(batchBytes(b))
		}
		if err != nil {
			for _, o := range out {
				o.Release()
			}
			result.releaseAll()
			return nil, err
		}
		if b == nil {
			return out, nil
		}
		b.Retain()
		out = append(out, b)
	}
}

// errCanceled is PostgreSQL's error for a cancelled statement.
func errCanceled() error {
	return sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
}

// checkCancel returns the 57014 error once ctx or the statement's Done
// channel says to stop.
func checkCancel(ctx context.Context, env *Env) error {
	if ctx.Err() != nil {
		return errCanceled()
	}
	if env != nil && env.Ctx != nil && env.Ctx.Done != nil {
		select {
		case <-env.Ctx.Done:
			return errCanceled()
		default:
		}
	}
	return nil
}

// exprCtx returns the expression context, never nil.
func (e *Env) exprCtx() *expr.Ctx {
	if e.Ctx == nil {
		e.Ctx = &expr.Ctx{}
	}
	return e.Ctx
}
