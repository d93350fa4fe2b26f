package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
)

// A window whose input passes work_mem is computed as PostgreSQL computes
// every window: one stage per distinct window ordering (PARTITION BY, then
// ORDER BY), each a spilling sort of the previous stage's output into its
// ordering and a windowStageOp that appends the columns of the calls of
// that ordering. A last step puts the call columns back in the plan's
// order. Every sort and stage holds about work_mem, so the whole window
// does, times the number of orderings.

// windowStage is the calls (indexes into the plan's) of one ordering.
type windowStage struct{ calls []int }

// windowStages groups calls by their ordering, in the order of their first
// call. Orderings are compared structurally (sameExpr); two orderings that
// are equal but not found so only cost one more sort.
func windowStages(calls []planner.WindowCall) []windowStage {
	var stages []windowStage
	for i := range calls {
		found := false
		for s := range stages {
			if sameOrdering(&calls[stages[s].calls[0]], &calls[i]) {
				stages[s].calls = append(stages[s].calls, i)
				found = true
				break
			}
		}
		if !found {
			stages = append(stages, windowStage{calls: []int{i}})
		}
	}
	return stages
}

func sameOrdering(a, b *planner.WindowCall) bool {
	if len(a.PartitionBy) != len(b.PartitionBy) || len(a.OrderBy) != len(b.OrderBy) {
		return false
	}
	for i := range a.PartitionBy {
		if !sameExpr(a.PartitionBy[i], b.PartitionBy[i]) {
			return false
		}
	}
	for i := range a.OrderBy {
		x, y := a.OrderBy[i], b.OrderBy[i]
		if x.Desc != y.Desc || x.NullsFirst != y.NullsFirst || !sameExpr(x.Expr, y.Expr) {
			return false
		}
	}
	return true
}

// sortedWindow builds the stages over input (the rows already read,
// then the rest of the window's input).
func (w *windowOp) sortedWindow(input Operator) Operator {
	schema := planner.Schema(w.plan.Input.Columns())
	nIn := schema.NumFields()
	at := make([]int, len(w.plan.Calls)) // column of each call in the last stage's output
	op := input
	for _, stage := range windowStages(w.plan.Calls) {
		calls := make([]planner.WindowCall, len(stage.calls))
		fields := append([]arrow.Field{}, schema.Fields()...)
		for j, ci := range stage.calls {
			calls[j] = w.plan.Calls[ci]
			at[ci] = len(fields)
			fields = append(fields, w.schema.Field(nIn+ci))
		}
		var keys []planner.SortKey
		for _, e := range calls[0].PartitionBy {
			keys = append(keys, planner.SortKey{Expr: e})
		}
		keys = append(keys, calls[0].OrderBy...)
		if len(keys) > 0 {
			op = &sortOp{env: w.env, plan: &planner.Sort{Keys: keys}, input: op, schema: schema}
		}
		out := arrow.NewSchema(fields, nil)
		op = newWindowStageOp(w.env, calls, op, schema, out)
		schema = out
	}
	pick := make([]int, 0, w.schema.NumFields())
	for c := 0; c < nIn; c++ {
		pick = append(pick, c)
	}
	return &pickColumnsOp{input: op, schema: w.schema, cols: append(pick, at...)}
}

// replayOp gives batches already read from an input (held, and counted in
// mem) and then the input's further batches. It does not close the input:
// its owner does.
type replayOp struct {
	env     *Env
	held    []arrow.RecordBatch
	mem     *memAccount
	input   Operator
	handed  arrow.RecordBatch // returned last, released on the next call
	handedN int64
}

var _ Operator = (*replayOp)(nil)

func (r *replayOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	r.dropHanded()
	if len(r.held) > 0 {
		b := r.held[0]
		r.held = r.held[1:]
		r.handed, r.handedN = b, batchBytes(b)
		return b, nil
	}
	return nextChecked(ctx, r.env, r.input)
}

func (r *replayOp) dropHanded() {
	if r.handed != nil {
		r.handed.Release()
		r.mem.shrink(r.handedN)
		r.handed = nil
	}
}

func (r *replayOp) Close() {
	r.dropHanded()
	for _, b := range r.held {
		b.Release()
	}
	r.held = nil
	r.mem.releaseAll()
}

// pickColumnsOp passes its input's rows with the columns cols, in that
// order, under schema.
type pickColumnsOp struct {
	input  Operator
	schema *arrow.Schema
	cols   []int
	last   arrow.RecordBatch
}

var _ Operator = (*pickColumnsOp)(nil)

func (p *pickColumnsOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if p.last != nil {
		p.last.Release()
		p.last = nil
	}
	b, err := p.input.Next(ctx)
	if err != nil || b == nil {
		return nil, err
	}
	cols := make([]arrow.Array, len(p.cols))
	for i, c := range p.cols {
		cols[i] = b.Column(c)
	}
	p.last = array.NewRecordBatch(p.schema, cols, b.NumRows())
	return p.last, nil
}

func (p *pickColumnsOp) Close() {
	if p.last != nil {
		p.last.Release()
		p.last = nil
	}
	p.input.Close()
}
