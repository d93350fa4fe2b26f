package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/types"
)

// distinctOp passes the first row of each distinct key in input order:
// the key is the whole row for DISTINCT and the On expressions for
// DISTINCT ON. NULLs are equal to each other.
type distinctOp struct {
	env   *Env
	plan  *planner.Distinct
	input Operator
	table *groupTable
	sel   []int32
}

var _ Operator = (*distinctOp)(nil)

func newDistinctOp(env *Env, plan *planner.Distinct, input Operator) *distinctOp {
	d := &distinctOp{env: env, plan: plan, input: input}
	var ts []types.T
	if len(plan.On) > 0 {
		for _, e := range plan.On {
			ts = append(ts, e.Type())
		}
	} else {
		for _, c := range plan.Input.Columns() {
			ts = append(ts, c.T)
		}
	}
	d.table = newGroupTable(env.exprCtx().Allocator(), ts, false)
	return d
}

func (d *distinctOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	ectx := d.env.exprCtx()
	for {
		if err := checkCancel(ctx, d.env); err != nil {
			return nil, err
		}
		in, err := d.input.Next(ctx)
		if err != nil || in == nil {
			return nil, err
		}
		keys := in.Columns()
		if len(d.plan.On) > 0 {
			if keys, err = evalAll(ectx, d.plan.On, in); err != nil {
				return nil, err
			}
		}
		out := newRows(d.table, keys, d.sel[:0])
		d.sel = out
		switch len(out) {
		case 0:
			continue
		case int(in.NumRows()):
			return in, nil
		}
		return takeBatch(ectx.Allocator(), in.Schema(), in, out), nil
	}
}

// newRows inserts every row of keys into t and appends the positions of
// rows whose key was new.
func newRows(t *groupTable, keys []arrow.Array, sel []int32) []int32 {
	t.prepare(keys)
	for i := range t.rowHash {
		if _, isNew := t.insert(i); isNew {
			sel = append(sel, int32(i))
		}
	}
	return sel
}

func (d *distinctOp) Close() { d.input.Close() }
