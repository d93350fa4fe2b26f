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
// values and zips the results, padding shorter ones with NULL (as
// PostgreSQL 10 and later). Output is produced lazily, at most BatchSize
// rows a batch, pulling from each call's function scan only as far as
// needed: `SELECT generate_series(now(), 'infinity', '1 day') LIMIT 10`
// reads ten values, and an endless series is stopped by cancellation
// between batches.
type projectSetOp struct {
	env    *Env
	plan   *planner.ProjectSet
	input  Operator
	schema *arrow.Schema

	in    arrow.RecordBatch // the input batch being expanded
	args  [][]arrow.Array   // per call, its argument columns over in
	row   int               // the row of in being expanded
	calls []*srfCursor      // the calls over that row; nil: not started
	ord   int64             // output rows produced so far for that row
	done  bool
}

var _ Operator = (*projectSetOp)(nil)

// srfCursor reads one call's function scan a value at a time.
type srfCursor struct {
	scan  *functionScanOp
	batch arrow.RecordBatch
	pos   int
	done  bool
}

// next returns the call's next value; ok is false once it is exhausted.
func (c *srfCursor) next(ctx context.Context) (d expr.Datum, ok bool, err error) {
	for !c.done && (c.batch == nil || c.pos >= int(c.batch.NumRows())) {
		if c.batch, err = c.scan.Next(ctx); err != nil {
			return nil, false, err
		}
		c.pos = 0
		c.done = c.batch == nil
	}
	if c.done {
		return nil, false, nil
	}
	d = expr.DatumAt(c.batch.Column(0), c.pos)
	c.pos++
	return d, true, nil
}

func (p *projectSetOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := checkCancel(ctx, p.env); err != nil {
		return nil, err
	}
	if p.done {
		return nil, nil
	}
	bs := make([]array.Builder, len(p.plan.Cols))
	for i, col := range p.plan.Cols {
		bs[i] = expr.NewBuilder(nil, col.T)
		defer bs[i].Release()
	}
	n := 0
	for steps := 0; n < BatchSize; steps++ {
		if steps%BatchSize == BatchSize-1 {
			// Many input rows whose calls return nothing: still stoppable.
			if err := checkCancel(ctx, p.env); err != nil {
				return nil, err
			}
		}
		if p.in == nil || p.row >= int(p.in.NumRows()) {
			if err := p.nextInput(ctx); err != nil {
				return nil, err
			}
			if p.done {
				break
			}
			continue
		}
		if p.calls == nil {
			p.startRow()
		}
		produced, err := p.appendRow(ctx, bs)
		if err != nil {
			return nil, err
		}
		if !produced {
			p.row, p.calls, p.ord = p.row+1, nil, 0
			continue
		}
		n++
	}
	if n == 0 {
		return nil, nil
	}
	cols := make([]arrow.Array, len(bs))
	for i, b := range bs {
		cols[i] = b.NewArray()
	}
	return array.NewRecordBatch(p.schema, cols, int64(n)), nil
}

// nextInput moves to the next non-empty input batch and evaluates the
// calls' arguments over it; at the end of the input it sets done.
func (p *projectSetOp) nextInput(ctx context.Context) error {
	for {
		in, err := p.input.Next(ctx)
		if err != nil {
			return err
		}
		if in == nil {
			p.done, p.in = true, nil
			return nil
		}
		if in.NumRows() == 0 {
			continue
		}
		ectx := p.env.exprCtx()
		args := make([][]arrow.Array, len(p.plan.Calls))
		for c, call := range p.plan.Calls {
			if args[c], err = evalAll(ectx, call.Args, in); err != nil {
				return err
			}
		}
		p.in, p.args, p.row, p.calls, p.ord = in, args, 0, nil, 0
		return nil
	}
}

// startRow starts every call over the current row's argument values.
func (p *projectSetOp) startRow() {
	p.calls = make([]*srfCursor, len(p.plan.Calls))
	for c, call := range p.plan.Calls {
		consts := make([]expr.Expr, len(call.Args))
		for a, arr := range p.args[c] {
			consts[a] = &expr.Const{Val: expr.DatumAt(arr, p.row), T: call.Args[a].Type()}
		}
		name := call.Func
		if call.Field != "" {
			name = call.Field // the function scan yields that field only
		}
		fs := &functionScanOp{env: p.env, plan: &planner.FunctionScan{Func: call.Func, Args: consts,
			Cols: []planner.Column{{Name: name, T: call.T}}}}
		fs.schema = planner.Schema(fs.plan.Cols)
		p.calls[c] = &srfCursor{scan: fs}
	}
}

// appendRow appends the current row's next output row: its input columns,
// then each call's next value (NULL once that call is exhausted). It
// reports false, appending nothing, when every call is exhausted.
func (p *projectSetOp) appendRow(ctx context.Context, bs []array.Builder) (bool, error) {
	vals := make([]expr.Datum, len(p.calls))
	oks := make([]bool, len(p.calls))
	any := false
	for c, cur := range p.calls {
		d, ok, err := cur.next(ctx)
		if err != nil {
			return false, err
		}
		vals[c], oks[c] = d, ok
		any = any || ok
	}
	if !any {
		return false, nil
	}
	p.ord++
	nIn := int(p.in.NumCols())
	for i := 0; i < nIn; i++ {
		expr.AppendDatum(bs[i], expr.DatumAt(p.in.Column(i), p.row))
	}
	col := nIn
	for c, call := range p.plan.Calls {
		expr.AppendDatum(bs[col], vals[c])
		col++
		if call.Ordinality {
			var ord expr.Datum
			if oks[c] {
				ord = p.ord
			}
			expr.AppendDatum(bs[col], ord)
			col++
		}
	}
	return true, nil
}

func (p *projectSetOp) Close() { p.input.Close() }
