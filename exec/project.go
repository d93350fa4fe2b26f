package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
)

// projectOp computes its expressions over each input batch.
type projectOp struct {
	env    *Env
	plan   *planner.Project
	input  Operator
	schema *arrow.Schema
}

var _ Operator = (*projectOp)(nil)

func (p *projectOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := checkCancel(ctx, p.env); err != nil {
		return nil, err
	}
	in, err := p.input.Next(ctx)
	if err != nil || in == nil {
		return nil, err
	}
	cols, err := evalAll(p.env.exprCtx(), p.plan.Exprs, in)
	if err != nil {
		return nil, err
	}
	return array.NewRecordBatch(p.schema, cols, in.NumRows()), nil
}

func (p *projectOp) Close() { p.input.Close() }
