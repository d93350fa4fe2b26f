package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
)

// projectSetOp runs set-returning functions of a select list. For each
// input row it runs every call as a function scan over that row's argument
// values and zips the results, padding shorter ones with NULL. Select-list
// SRFs are for small sets (generate_series(1, n), unnest of an array), so
// the per-row function scan is acceptable.
type projectSetOp struct {
	env    *Env
	plan   *planner.ProjectSet
	input  Operator
	schema *arrow.Schema
}

var _ Operator = (*projectSetOp)(nil)

func (p *projectSetOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		in, err := p.input.Next(ctx)
		if err != nil || in == nil {
			return nil, err
		}
		out, err := p.expand(ctx, in)
		if err != nil {
			return nil, err
		}
		if out.NumRows() > 0 {
			return out, nil
		}
	}
}

func (p *projectSetOp) expand(ctx context.Context, in arrow.RecordBatch) (arrow.RecordBatch, error) {
	ectx := p.env.exprCtx()
	args := make([][]arrow.Array, len(p.plan.Calls))
	for c, call := range p.plan.Calls {
		vals, err := evalAll(ectx, call.Args, in)
		if err != nil {
			return nil, err
		}
		args[c] = vals
	}
	bs := make([]array.Builder, len(p.plan.Cols))
	for i, col := range p.plan.Cols {
		bs[i] = expr.NewBuilder(nil, col.T)
		defer bs[i].Release()
	}
	nIn := int(in.NumCols())
	for r := 0; r < int(in.NumRows()); r++ {
		results := make([][]expr.Datum, len(p.plan.Calls))
		longest := 0
		for c, call := range p.plan.Calls {
			consts := make([]expr.Expr, len(call.Args))
			for a, arr := range args[c] {
				consts[a] = &expr.Const{Val: expr.DatumAt(arr, r), T: call.Args[a].Type()}
			}
			fs := &functionScanOp{env: p.env, plan: &planner.FunctionScan{Func: call.Func, Args: consts,
				Cols: []planner.Column{{Name: call.Func, T: call.T}}}}
			fs.schema = planner.Schema(fs.plan.Cols)
			for {
				b, err := fs.Next(ctx)
				if err != nil {
					return nil, err
				}
				if b == nil {
					break
				}
				for i := 0; i < int(b.NumRows()); i++ {
					results[c] = append(results[c], expr.DatumAt(b.Column(0), i))
				}
			}
			longest = max(longest, len(results[c]))
		}
		for k := 0; k < longest; k++ {
			for i := 0; i < nIn; i++ {
				expr.AppendDatum(bs[i], expr.DatumAt(in.Column(i), r))
			}
			col := nIn
			for c, call := range p.plan.Calls {
				var d, ord expr.Datum
				if k < len(results[c]) {
					d, ord = results[c][k], int64(k+1)
				}
				expr.AppendDatum(bs[col], d)
				col++
				if call.Ordinality {
					expr.AppendDatum(bs[col], ord)
					col++
				}
			}
		}
	}
	cols := make([]arrow.Array, len(bs))
	n := int64(0)
	for i, b := range bs {
		cols[i] = b.NewArray()
		n = int64(cols[i].Len())
	}
	return array.NewRecordBatch(p.schema, cols, n), nil
}

func (p *projectSetOp) Close() { p.input.Close() }
