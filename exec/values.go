package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
)

// valuesOp produces the literal rows of a VALUES list, evaluating each row's
// expressions once.
type valuesOp struct {
	env    *Env
	plan   *planner.Values
	schema *arrow.Schema
	next   int // next row of plan.Rows
}

var _ Operator = (*valuesOp)(nil)

func (v *valuesOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := checkCancel(ctx, v.env); err != nil {
		return nil, err
	}
	if v.next >= len(v.plan.Rows) {
		return nil, nil
	}
	ectx := v.env.exprCtx()
	end := min(v.next+BatchSize, len(v.plan.Rows))
	cols := v.plan.Cols
	builders := make([]array.Builder, len(cols))
	for c := range cols {
		builders[c] = expr.NewBuilder(ectx.Allocator(), cols[c].T)
		defer builders[c].Release()
	}
	one := oneRow()
	for r := v.next; r < end; r++ {
		row := v.plan.Rows[r]
		for c, e := range row {
			if c >= len(builders) {
				break
			}
			// Constants and parameters of the column's type go straight in:
			// a VALUES list of thousands of parameters (a batched INSERT)
			// must not build an array per value.
			if d, ok := directValue(ectx, e, cols[c].T.OID); ok {
				expr.AppendDatum(builders[c], d)
				continue
			}
			arr, err := e.Eval(ectx, one)
			if err != nil {
				return nil, err
			}
			if !arrow.TypeEqual(arr.DataType(), builders[c].Type()) {
				expr.AppendDatum(builders[c], expr.DatumAt(arr, 0))
			} else {
				appendValue(builders[c], arr, 0)
			}
		}
		for c := len(row); c < len(builders); c++ {
			builders[c].AppendNull()
		}
	}
	out := make([]arrow.Array, len(cols))
	for c := range builders {
		out[c] = builders[c].NewArray()
	}
	n := end - v.next
	v.next = end
	return array.NewRecordBatch(v.schema, out, int64(n)), nil
}

func (v *valuesOp) Close() {}

// directValue is the value of a constant or parameter of type oid without
// evaluating it over a batch.
func directValue(ectx *expr.Ctx, e expr.Expr, oid uint32) (expr.Datum, bool) {
	switch x := e.(type) {
	case *expr.Const:
		if x.T.OID == oid {
			return x.Val, true
		}
	case *expr.Param:
		if x.T.OID == oid {
			if x.Index < len(ectx.Params) {
				return ectx.Params[x.Index], true
			}
			return nil, true
		}
	}
	return nil, false
}
