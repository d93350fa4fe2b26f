package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/types"
)

// setOpOp is UNION, INTERSECT or EXCEPT, with PostgreSQL's multiset rules
// for ALL: UNION ALL concatenates, INTERSECT ALL keeps min(l, r) copies of
// a row and EXCEPT ALL max(l - r, 0), where l and r count the row on each
// side. Without ALL each result row appears once. NULLs are equal.
//
// UNION streams; INTERSECT and EXCEPT count both inputs first and then
// emit rows in order of their first appearance on the left.
type setOpOp struct {
	env         *Env
	plan        *planner.SetOp
	left, right Operator
	schema      *arrow.Schema
	onRight     bool
	table       *groupTable
	sel         []int32
	counted     bool
	out         queue
	// seenEmpty: a UNION of zero-column rows has passed its one row.
	seenEmpty bool
}

var _ Operator = (*setOpOp)(nil)

func newSetOpOp(env *Env, plan *planner.SetOp, left, right Operator) *setOpOp {
	s := &setOpOp{env: env, plan: plan, left: left, right: right, schema: planner.Schema(plan.Cols)}
	if plan.Kind != planner.Union || !plan.All {
		ts := make([]types.T, len(plan.Cols))
		for i, c := range plan.Cols {
			ts[i] = c.T
		}
		s.table = newGroupTable(env.exprCtx().Allocator(), ts, plan.Kind != planner.Union)
	}
	return s
}

func (s *setOpOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.plan.Kind != planner.Union {
		if !s.counted {
			s.counted = true
			if err := s.count(ctx); err != nil {
				return nil, err
			}
		}
		return s.out.pop(), nil
	}
	for {
		if err := checkCancel(ctx, s.env); err != nil {
			return nil, err
		}
		in := s.left
		if s.onRight {
			in = s.right
		}
		b, err := in.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			if s.onRight {
				return nil, nil
			}
			s.onRight = true
			continue
		}
		b = withSchema(s.schema, b)
		if s.plan.All {
			return b, nil
		}
		if len(s.plan.Cols) == 0 {
			// SELECT UNION SELECT: all empty rows are one row.
			if s.seenEmpty || b.NumRows() == 0 {
				continue
			}
			s.seenEmpty = true
			return array.NewRecordBatch(s.schema, nil, 1), nil
		}
		s.sel = newRows(s.table, b.Columns(), s.sel[:0])
		switch len(s.sel) {
		case 0:
			continue
		case int(b.NumRows()):
			return b, nil
		}
		return takeBatch(s.env.exprCtx().Allocator(), s.schema, b, s.sel), nil
	}
}

func (s *setOpOp) count(ctx context.Context) error {
	var leftN, rightN []int64
	for side, in := range []Operator{s.left, s.right} {
		for {
			if err := checkCancel(ctx, s.env); err != nil {
				return err
			}
			b, err := in.Next(ctx)
			if err != nil {
				return err
			}
			if b == nil {
				break
			}
			if len(s.plan.Cols) == 0 {
				// Zero-column rows are all equal: one group of b's rows.
				if b.NumRows() > 0 && len(leftN) == 0 {
					leftN, rightN = append(leftN, 0), append(rightN, 0)
				}
				if len(leftN) > 0 {
					if side == 0 {
						leftN[0] += b.NumRows()
					} else {
						rightN[0] += b.NumRows()
					}
				}
				continue
			}
			s.table.prepare(b.Columns())
			for i := range s.table.rowHash {
				if side == 0 {
					g, isNew := s.table.insert(i)
					if isNew {
						leftN = append(leftN, 0)
						rightN = append(rightN, 0)
					}
					leftN[g]++
				} else if g := s.table.find(i); g >= 0 {
					rightN[g]++
				}
			}
		}
	}
	var idx []int32
	for g := range leftN {
		l, r := leftN[g], rightN[g]
		var k int64
		switch {
		case s.plan.Kind == planner.Intersect && s.plan.All:
			k = min(l, r)
		case s.plan.Kind == planner.Intersect:
			k = min(1, l, r)
		case s.plan.All:
			k = max(l-r, 0)
		case r == 0:
			k = 1
		}
		for ; k > 0; k-- {
			idx = append(idx, int32(g))
		}
	}
	if len(s.plan.Cols) == 0 {
		if len(idx) > 0 {
			s.out.push(array.NewRecordBatch(s.schema, nil, int64(len(idx))))
		}
		return nil
	}
	vals := s.table.keyArrays()
	all := array.NewRecordBatch(s.schema, vals, int64(len(leftN)))
	mem := s.env.exprCtx().Allocator()
	for st := 0; st < len(idx); st += BatchSize {
		s.out.push(takeBatch(mem, s.schema, all, idx[st:min(st+BatchSize, len(idx))]))
	}
	return nil
}

func (s *setOpOp) Close() {
	s.left.Close()
	s.right.Close()
}
