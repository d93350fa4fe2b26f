package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// aggSpill is how an aggregate with ORDER BY or DISTINCT keeps its input
// within work_mem in a batch query: the input it buffers (the rows to
// sort, the distinct values seen) goes to a spillingSorter once it passes
// work_mem, and only the aggregate's own result grows in memory.
//
//   - ORDER BY: the rows buffered so far and all later ones go to the
//     sorter, keyed by the ORDER BY keys; its stable merge gives the rows
//     in the order the in-memory sort would.
//   - DISTINCT: the distinct table stops growing. A later row whose
//     (group, arguments) it holds is a duplicate and dropped; any other
//     goes to the sorter, keyed by (ORDER BY keys, group, arguments), so
//     that duplicates among them come out next to each other and only
//     the first of each is fed to the accumulator. (With DISTINCT, the
//     ORDER BY keys are among the arguments, so equal arguments have
//     equal keys.)
type aggSpill struct {
	ctx    context.Context
	sorter *spillingSorter
	schema *arrow.Schema // group, arguments, ORDER BY keys
	frozen bool          // DISTINCT: the distinct table no longer grows
	result *memAccount   // the collected result built from the sorted rows
}

// maybeSpill moves the aggregate's buffered input to a spilling sort when
// it passes work_mem. Without spilling available, or for argument types
// the sort cannot order exactly (DISTINCT needs equal values adjacent),
// the input stays in memory against the server's query memory.
func (a *aggInput) maybeSpill(ctx context.Context, env *Env) error {
	if a.spill != nil || (a.orderSch == nil && a.distinct == nil) || env == nil {
		return nil
	}
	q := env.Memory
	if q == nil || q.tempDir == "" || q.workMem <= 0 {
		return nil
	}
	var buffered int64
	if a.orderSch != nil {
		buffered = a.rowBytes
	}
	if a.distinct != nil {
		buffered += a.distinct.bytes()
		for _, e := range a.call.Args {
			if kindOf(e.Type(), true) == kindDatum {
				return nil
			}
		}
	}
	if buffered <= q.workMem {
		return nil
	}
	schema := a.orderSch
	if schema == nil {
		fields := []arrow.Field{{Name: "g", Type: arrow.PrimitiveTypes.Int64}}
		for _, e := range a.call.Args {
			fields = append(fields, arrow.Field{Name: "a", Type: e.Type().Arrow(), Nullable: true})
		}
		schema = arrow.NewSchema(fields, nil)
	}
	nargs := len(a.call.Args)
	var keys []planner.SortKey
	for k, o := range a.call.OrderBy {
		keys = append(keys, planner.SortKey{Expr: &expr.ColumnRef{Index: 1 + nargs + k, T: o.Expr.Type()},
			Desc: o.Desc, NullsFirst: o.NullsFirst})
	}
	if a.distinct != nil {
		keys = append(keys, planner.SortKey{Expr: &expr.ColumnRef{Index: 0, T: types.Int8}})
		for i, e := range a.call.Args {
			keys = append(keys, planner.SortKey{Expr: &expr.ColumnRef{Index: 1 + i, T: e.Type()}})
		}
	}
	s := &aggSpill{ctx: ctx, sorter: newSpillingSorter(env, "Aggregate", keys, schema), schema: schema,
		frozen: a.distinct != nil, result: newMemAccount(env, "Aggregate")}
	a.spill = s
	for i, b := range a.ordered {
		err := s.sorter.add(ctx, b)
		b.Release()
		if err != nil {
			for _, r := range a.ordered[i+1:] {
				r.Release()
			}
			a.ordered = nil
			return err
		}
	}
	a.ordered = nil
	if a.orderSch != nil {
		a.rowBytes = 0
	}
	return nil
}

// feedSorted feeds the sorted spilled rows to the accumulator, dropping
// DISTINCT duplicates (equal to the row before them).
func (a *aggInput) feedSorted(env *Env, ectx *expr.Ctx) error {
	s := a.spill
	ctx := s.ctx
	defer s.sorter.close()
	if err := s.sorter.finish(ctx); err != nil {
		return err
	}
	nargs := len(a.call.Args)
	mem := ectx.Allocator()
	// cur and prev: the (group, arguments) of this batch and the last
	// row of the one before, compared as the distinct table compares.
	cur, prev := make([]colVec, 1+nargs), make([]colVec, 1+nargs)
	var last arrow.RecordBatch
	defer func() {
		if last != nil {
			last.Release()
		}
	}()
	argType := func(c int) types.T {
		if c == 0 {
			return types.Int8
		}
		return a.call.Args[c-1].Type()
	}
	same := func(v *colVec, i int, w *colVec, j int) bool {
		vn, wn := v.isNull(i), w.isNull(j)
		if vn || wn {
			return vn && wn
		}
		return v.compare(i, w, j) == 0
	}
	var keep []int32
	for {
		if err := checkCancel(ctx, env); err != nil {
			return err
		}
		b, err := s.sorter.next(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			return nil
		}
		n := int(b.NumRows())
		idx := keep[:0]
		if a.distinct != nil {
			for c := range cur {
				cur[c].load(b.Column(c), argType(c), false)
			}
			for i := 0; i < n; i++ {
				dup := i > 0 || last != nil
				for c := 0; dup && c < len(cur); c++ {
					if i > 0 {
						dup = same(&cur[c], i, &cur[c], i-1)
					} else {
						dup = same(&cur[c], 0, &prev[c], 0)
					}
				}
				if !dup {
					idx = append(idx, int32(i))
				}
			}
			if last != nil {
				last.Release()
			}
			last = b.NewSlice(int64(n-1), int64(n))
			for c := range prev {
				prev[c].load(last.Column(c), argType(c), false)
			}
			keep = idx
		}
		gcol := b.Column(0).(*array.Int64)
		args := make([]arrow.Array, nargs)
		var groups []uint32
		if a.distinct != nil && len(idx) < n {
			groups = make([]uint32, len(idx))
			for k, r := range idx {
				groups[k] = uint32(gcol.Value(int(r)))
			}
			for c := range args {
				args[c] = takeArray(mem, b.Column(1+c), idx)
			}
		} else {
			groups = make([]uint32, n)
			for r := range groups {
				groups[r] = uint32(gcol.Value(r))
			}
			for c := range args {
				args[c] = b.Column(1 + c)
			}
		}
		if len(groups) > 0 {
			if err := a.acc.Update(ectx, groups, args); err != nil {
				b.Release()
				return err
			}
			if a.collects {
				// The result (array_agg, string_agg) grows with what is
				// fed: it is the one thing allowed to, against the
				// server's query memory.
				if err := s.result.grow(collectedBytes(args[0])); err != nil {
					b.Release()
					return err
				}
			}
		}
		b.Release()
	}
}

// closeSpill releases a spill the aggregate did not get to finish, and
// what its result was counted for.
func (a *aggInput) closeSpill() {
	if a.spill != nil {
		a.spill.sorter.close()
		a.spill.result.releaseAll()
	}
	if a.spilled != nil {
		a.spilled.result.releaseAll()
		a.spilled = nil
	}
}

// collectedBytes estimates what collecting the non-NULL values of arr adds
// to a result: their bytes (a string's own length) and 8 more each for the
// element's slot or a delimiter. NULLs, skipped by string_agg, count only
// their slot.
func collectedBytes(arr arrow.Array) int64 {
	n := int64(arr.Len())
	valid := n - int64(arr.NullN())
	switch a := arr.(type) {
	case *array.String:
		offs := a.ValueOffsets()
		if len(offs) > 1 {
			return int64(offs[len(offs)-1]-offs[0]) + valid*8 + (n - valid)
		}
		return 0
	case *array.Binary:
		offs := a.ValueOffsets()
		if len(offs) > 1 {
			return int64(offs[len(offs)-1]-offs[0]) + valid*8 + (n - valid)
		}
		return 0
	}
	if n == 0 {
		return 0
	}
	return arrayBytes(arr.Data())*valid/n + valid*8 + (n - valid)
}
