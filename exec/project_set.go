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
// values and zips the results, padding shorter ones with NULL. The sets
// are streamed: a batch holds at most BatchSize output rows, however long
// one row's set is, so `SELECT generate_series(1, 100000000000)` runs in
// bounded memory and stops on a cancel like a function scan in FROM.
type projectSetOp struct {
	env    *Env
	plan   *planner.ProjectSet
	input  Operator
	schema *arrow.Schema

	in   arrow.RecordBatch // input batch being expanded (nil: read the next)
	args [][]arrow.Array   // per call, its argument columns over in
	row  int               // row of in being expanded
	sets []*srfCursor      // per call, the open set of in's row (nil: not started)
	ord  int64             // ordinality of the next output row of this input row
}

// srfCursor reads one call's set value by value.
type srfCursor struct {
	scan  *functionScanOp
	batch arrow.RecordBatch
	pos   int
	done  bool
}

// next returns the set's next value, or ok=false at its end.
func (c *srfCursor) next(ctx context.Context) (expr.Datum, bool, error) {
	for !c.done {
		if c.batch != nil && c.pos < int(c.batch.NumRows()) {
			d := expr.DatumAt(c.batch.Column(0), c.pos)
			c.pos++
			return d, true, nil
		}
		b, err := c.scan.Next(ctx)
		if err != nil {
			return nil, false, err
		}
		if b == nil {
			c.done = true
			break
		}
		c.batch, c.pos = b, 0
	}
	return nil, false, nil
}

var _ Operator = (*projectSetOp)(nil)

func (p *projectSetOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	bs := make([]array.Builder, len(p.plan.Cols))
	for i, col := range p.plan.Cols {
		bs[i] = expr.NewBuilder(nil, col.T)
		defer bs[i].Release()
	}
	n := 0
	vals := make([]expr.Datum, len(p.plan.Calls))
	for n < BatchSize {
		if p.in == nil {
			if err := checkCancel(ctx, p.env); err != nil {
				return nil, err
			}
			in, err := p.input.Next(ctx)
			if err != nil {
				return nil, err
			}
			if in == nil {
				break
			}
			if err := p.start(in); err != nil {
				return nil, err
			}
			continue
		}
		if p.row >= int(p.in.NumRows()) {
			p.in = nil
			continue
		}
		if p.sets == nil {
			p.openSets()
		}
		any := false
		for c, s := range p.sets {
			d, ok, err := s.next(ctx)
			if err != nil {
				return nil, err
			}
			vals[c] = d
			any = any || ok
		}
		if !any {
			p.row++
			p.sets = nil
			continue
		}
		p.ord++
		nIn := int(p.in.NumCols())
		for i := 0; i < nIn; i++ {
			expr.AppendDatum(bs[i], expr.DatumAt(p.in.Column(i), p.row))
		}
		col := nIn
		for c, call := range p.plan.Calls {
			var d, ord expr.Datum // NULL once this call's set has ended
			if !p.sets[c].done {
				d, ord = vals[c], p.ord
			}
			expr.AppendDatum(bs[col], d)
			col++
			if call.Ordinality {
				expr.AppendDatum(bs[col], ord)
				col++
			}
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

// start takes the next input batch and evaluates the calls' arguments.
func (p *projectSetOp) start(in arrow.RecordBatch) error {
	ectx := p.env.exprCtx()
	p.args = make([][]arrow.Array, len(p.plan.Calls))
	for c, call := range p.plan.Calls {
		vals, err := evalAll(ectx, call.Args, in)
		if err != nil {
			return err
		}
		p.args[c] = vals
	}
	p.in, p.row, p.sets = in, 0, nil
	return nil
}

// openSets starts every call's function scan over the current row.
func (p *projectSetOp) openSets() {
	p.sets = make([]*srfCursor, len(p.plan.Calls))
	p.ord = 0
	for c, call := range p.plan.Calls {
		consts := make([]expr.Expr, len(call.Args))
		for a, arr := range p.args[c] {
			consts[a] = &expr.Const{Val: expr.DatumAt(arr, p.row), T: call.Args[a].Type()}
		}
		fs := &functionScanOp{env: p.env, plan: &planner.FunctionScan{Func: call.Func, Args: consts,
			Cols: []planner.Column{{Name: call.Func, T: call.T}}}}
		fs.schema = planner.Schema(fs.plan.Cols)
		p.sets[c] = &srfCursor{scan: fs}
	}
}

func (p *projectSetOp) Close() { p.input.Close() }
