package exec

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
)

// rowSorter orders rows of one batch by several keys, each ASC or DESC
// with NULLS FIRST or LAST. Keys are loaded once into typed vectors, so a
// comparison is a switch and a slice read per key, with no allocation.
type rowSorter struct {
	vecs []colVec
	keys []planner.SortKey
}

// load evaluates the sort keys over in.
func (s *rowSorter) load(ctx *expr.Ctx, keys []planner.SortKey, in arrow.RecordBatch) error {
	s.keys = keys
	s.vecs = make([]colVec, len(keys))
	for k, key := range keys {
		arr, err := key.Expr.Eval(ctx, in)
		if err != nil {
			return err
		}
		s.vecs[k].load(arr, key.Expr.Type(), true)
	}
	return nil
}

// loadArrays uses already evaluated key columns.
func (s *rowSorter) loadArrays(keys []planner.SortKey, arrs []arrow.Array) {
	s.keys = keys
	s.vecs = make([]colVec, len(keys))
	for k, key := range keys {
		s.vecs[k].load(arrs[k], key.Expr.Type(), true)
	}
}

// compare orders rows i and j.
func (s *rowSorter) compare(i, j int) int {
	for k := range s.vecs {
		v := &s.vecs[k]
		in, jn := v.isNull(i), v.isNull(j)
		if in || jn {
			if in && jn {
				continue
			}
			if in == s.keys[k].NullsFirst {
				return -1
			}
			return 1
		}
		c := v.compare(i, v, j)
		if c != 0 {
			if s.keys[k].Desc {
				return -c
			}
			return c
		}
	}
	return 0
}

// sort orders idx (row positions) stably.
func (s *rowSorter) sort(idx []int32) {
	if len(s.vecs) == 1 && s.vecs[0].kind == kindInt && s.vecs[0].nulls == nil {
		// The common single integer key: compare the values directly.
		vals, desc := s.vecs[0].ints, s.keys[0].Desc
		slices.SortStableFunc(idx, func(a, b int32) int {
			x, y := vals[a], vals[b]
			if desc {
				x, y = y, x
			}
			if x < y {
				return -1
			}
			if x > y {
				return 1
			}
			return 0
		})
		return
	}
	slices.SortStableFunc(idx, func(a, b int32) int { return s.compare(int(a), int(b)) })
}

// sortOp materialises its input, sorts it stably, and emits it in batches.
type sortOp struct {
	env    *Env
	plan   *planner.Sort
	input  Operator
	schema *arrow.Schema
	done   bool
	all    arrow.RecordBatch
	order  []int32
	pos    int
}

var _ Operator = (*sortOp)(nil)

func (s *sortOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := checkCancel(ctx, s.env); err != nil {
		return nil, err
	}
	ectx := s.env.exprCtx()
	if !s.done {
		s.done = true
		all, err := drain(ctx, s.env, s.input, s.schema)
		if err != nil {
			return nil, err
		}
		s.all = all
		var sorter rowSorter
		if err := sorter.load(ectx, s.plan.Keys, all); err != nil {
			return nil, err
		}
		s.order = make([]int32, all.NumRows())
		for i := range s.order {
			s.order[i] = int32(i)
		}
		sorter.sort(s.order)
	}
	if s.pos >= len(s.order) {
		return nil, nil
	}
	end := min(s.pos+BatchSize, len(s.order))
	out := takeBatch(ectx.Allocator(), s.schema, s.all, s.order[s.pos:end])
	s.pos = end
	return out, nil
}

func (s *sortOp) Close() {
	s.input.Close()
	if s.all != nil {
		s.all.Release()
		s.all = nil
	}
}

// drain reads all of an operator's output into one batch.
func drain(ctx context.Context, env *Env, in Operator, schema *arrow.Schema) (arrow.RecordBatch, error) {
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for {
		if err := checkCancel(ctx, env); err != nil {
			return nil, err
		}
		b, err := in.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		b.Retain()
		batches = append(batches, b)
	}
	return concatBatches(env.exprCtx().Allocator(), schema, batches)
}
