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
//
// The table of rows counts against work_mem. Past it, UNION deduplicates
// as DISTINCT does (rows of unseen keys to spill partitions, each then
// deduplicated on its own); INTERSECT and EXCEPT stop adding rows while
// reading the left input, and write left and right rows whose key the
// table lacks to paired partitions by hash, each pair then counted by a
// child setOpOp. Either way a key is whole in one place.
type setOpOp struct {
	env         *Env
	plan        *planner.SetOp
	left, right Operator
	schema      *arrow.Schema
	ts          []types.T
	level       int
	onRight     bool
	filter      *distinctFilter // UNION
	table       *groupTable     // INTERSECT, EXCEPT
	mem         *memAccount
	counted     bool
	out         queue

	inputDone     bool
	partitions    []*spillFile // UNION: to deduplicate
	pairs         [][2]*spillFile
	child         Operator
	spillL, spill *partitionWriters
	// seenEmpty: a UNION of zero-column rows has passed its one row.
	seenEmpty bool
}

var _ Operator = (*setOpOp)(nil)

func newSetOpOp(env *Env, plan *planner.SetOp, left, right Operator) *setOpOp {
	s := &setOpOp{env: env, plan: plan, left: left, right: right, schema: planner.Schema(plan.Cols)}
	s.ts = make([]types.T, len(plan.Cols))
	for i, c := range plan.Cols {
		s.ts[i] = c.T
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
		if b := s.out.pop(); b != nil {
			return b, nil
		}
		if s.mem != nil {
			s.mem.releaseAll()
			s.table = nil
		}
		return s.nextFromChildren(ctx)
	}
	if !s.plan.All && s.filter == nil {
		s.filter = newDistinctFilter(s.env, "SetOp", s.ts, s.schema, s.level, false)
	}
	for !s.inputDone {
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
				s.inputDone = true
				if s.filter != nil {
					parts, err := s.filter.finish()
					if err != nil {
						return nil, err
					}
					s.partitions = parts
				}
				break
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
		out, err := s.filter.filter(b, b.Columns())
		if err != nil || out != nil {
			return out, err
		}
	}
	return s.nextFromChildren(ctx)
}

// nextFromChildren runs the spilled partitions one after the other.
func (s *setOpOp) nextFromChildren(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if s.child != nil {
			b, err := s.child.Next(ctx)
			if err != nil || b != nil {
				return b, err
			}
			s.child.Close()
			s.child = nil
		}
		switch {
		case len(s.partitions) > 0:
			s.filter.release()
			f := s.partitions[0]
			s.partitions = s.partitions[1:]
			s.child = &distinctOp{env: s.env, ts: s.ts, schema: s.schema, level: s.level + 1,
				input: &spillScanOp{env: s.env, file: f}}
		case len(s.pairs) > 0:
			p := s.pairs[0]
			s.pairs = s.pairs[1:]
			var left, right Operator = emptyOp{}, emptyOp{}
			if p[0] != nil {
				left = &spillScanOp{env: s.env, file: p[0]}
			}
			if p[1] != nil {
				right = &spillScanOp{env: s.env, file: p[1]}
			}
			child := newSetOpOp(s.env, s.plan, left, right)
			child.level = s.level + 1
			s.child = child
		default:
			return nil, nil
		}
	}
}

func (s *setOpOp) count(ctx context.Context) error {
	s.table = newGroupTable(s.env.exprCtx().Allocator(), s.ts, true)
	s.mem = newMemAccount(s.env, "SetOp")
	defer func() {
		if s.spillL != nil {
			s.spillL.abandon()
			s.spill.abandon()
			s.spillL, s.spill = nil, nil
		}
	}()
	var leftN, rightN []int64
	var unseen []int32
	for side, in := range []Operator{s.left, s.right} {
		for {
			b, err := nextChecked(ctx, s.env, in)
			if err != nil {
				return err
			}
			if b == nil {
				break
			}
			b = withSchema(s.schema, b)
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
			unseen = unseen[:0]
			for i := range s.table.rowHash {
				switch {
				case side == 0 && s.spillL == nil:
					g, isNew := s.table.insert(i)
					if isNew {
						leftN = append(leftN, 0)
						rightN = append(rightN, 0)
					}
					leftN[g]++
				case side == 0:
					if g := s.table.find(i); g >= 0 {
						leftN[g]++
					} else {
						unseen = append(unseen, int32(i))
					}
				default:
					if g := s.table.find(i); g >= 0 {
						rightN[g]++
					} else if s.spillL != nil {
						unseen = append(unseen, int32(i))
					}
				}
			}
			if len(unseen) > 0 {
				parts := s.spillL
				if side == 1 {
					parts = s.spill
				}
				if err := parts.add(b, s.table.rowHash, unseen); err != nil {
					return err
				}
			}
			if side == 0 {
				if err := s.mem.resize(s.table.bytes() + int64(len(leftN))*16); err != nil {
					return err
				}
				if s.spillL == nil && s.level < maxSpillLevel && s.mem.overWorkMem() {
					s.spillL = &partitionWriters{env: s.env, what: "setop-left", schema: s.schema, level: s.level}
					s.spill = &partitionWriters{env: s.env, what: "setop-right", schema: s.schema, level: s.level}
				}
			}
		}
	}
	if s.spillL != nil {
		lefts, err := s.spillL.finishByIndex()
		if err != nil {
			return err
		}
		rights, err := s.spill.finishByIndex()
		if err != nil {
			for _, f := range lefts {
				if f != nil {
					f.remove()
				}
			}
			return err
		}
		s.spillL, s.spill = nil, nil
		for k := range lefts {
			switch {
			case lefts[k] != nil:
				s.pairs = append(s.pairs, [2]*spillFile{lefts[k], rights[k]})
			case rights[k] != nil:
				rights[k].remove() // no left rows: nothing to emit
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
	if s.child != nil {
		s.child.Close()
		s.child = nil
	}
	for _, f := range s.partitions {
		f.remove()
	}
	for _, p := range s.pairs {
		for _, f := range p {
			if f != nil {
				f.remove()
			}
		}
	}
	s.partitions, s.pairs = nil, nil
	if s.filter != nil {
		s.filter.abandon()
	}
	if s.mem != nil {
		s.mem.releaseAll()
	}
}
