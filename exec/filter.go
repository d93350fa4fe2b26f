package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// filterOp passes the rows of its input for which the predicate is true
// (NULL counts as false).
type filterOp struct {
	env   *Env
	plan  *planner.Filter
	input Operator
	sel   []int32
}

var _ Operator = (*filterOp)(nil)

func (f *filterOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	ectx := f.env.exprCtx()
	for {
		if err := checkCancel(ctx, f.env); err != nil {
			return nil, err
		}
		in, err := f.input.Next(ctx)
		if err != nil || in == nil {
			return nil, err
		}
		arr, err := f.plan.Pred.Eval(ectx, in)
		if err != nil {
			return nil, err
		}
		pred, ok := arr.(*array.Boolean)
		if !ok {
			return nil, sqlerr.New(sqlerr.DatatypeMismatch, "argument of WHERE must be type boolean")
		}
		f.sel = selectTrue(pred, f.sel[:0])
		switch len(f.sel) {
		case 0:
			continue
		case int(in.NumRows()):
			return in, nil
		}
		return takeBatch(ectx.Allocator(), in.Schema(), in, f.sel), nil
	}
}

// selectTrue appends the positions where pred is true (not NULL).
func selectTrue(pred *array.Boolean, sel []int32) []int32 {
	n := pred.Len()
	if pred.NullN() == 0 {
		for i := 0; i < n; i++ {
			if pred.Value(i) {
				sel = append(sel, int32(i))
			}
		}
		return sel
	}
	for i := 0; i < n; i++ {
		if pred.IsValid(i) && pred.Value(i) {
			sel = append(sel, int32(i))
		}
	}
	return sel
}

func (f *filterOp) Close() { f.input.Close() }
