package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// hashAggregateOp groups its whole input by the GROUP BY values (NULLs form
// one group) and then emits one row per group: the key values, then one
// column per aggregate. Without GROUP BY there is exactly one group, even
// for an empty input.
//
// Past work_mem it stops adding groups (as PostgreSQL's hash aggregation
// does): rows of groups it already holds are still aggregated, rows of new
// groups are written to spill partitions by their key's hash. Each group is
// then whole in one place, in memory or in one partition, so every
// aggregate (DISTINCT, ORDER BY, collecting ones) is computed from all its
// rows exactly as without spilling. After the in-memory groups are emitted,
// each partition is aggregated the same way by a child operator reading
// the file, which may spill again on the next bits of the hash.
type hashAggregateOp struct {
	env    *Env
	plan   *planner.Aggregate
	input  Operator
	schema *arrow.Schema
	level  int // spill recursion depth: which hash bits pick partitions
	done   bool
	out    queue
	mem    *memAccount

	partitions []*spillFile // spilled groups, aggregated after the in-memory ones
	child      *hashAggregateOp
	inputs     []*aggInput
}

var _ Operator = (*hashAggregateOp)(nil)

// aggInput feeds one aggregate call: FILTER, DISTINCT and ORDER BY are
// applied here before rows reach the accumulator.
type aggInput struct {
	call     *planner.AggCall
	collects bool  // the state grows with the rows (array_agg, string_agg, ...)
	rowBytes int64 // bytes of buffered or collected argument values
	acc      expr.Accumulator
	distinct *groupTable // over (group, args...)
	ordered  []arrow.RecordBatch
	orderSch *arrow.Schema
	sel      []int32
	counter  expr.InputCounter // ordered-set aggregates: counts each group's rows before the sorted feed
	spill    *aggSpill         // batch queries: the input past work_mem (agg_input_spill.go)
	spilled  *aggSpill         // after finish: holds the result's memory until Close
}

func newAggInput(ectx *expr.Ctx, call *planner.AggCall) (*aggInput, error) {
	if call.Agg == nil || call.Agg.Overload == nil || call.Agg.Overload.New == nil {
		return nil, sqlerr.New(sqlerr.UndefinedFunction, "aggregate %s is not available", call.Name)
	}
	a := &aggInput{call: call, acc: call.Agg.Overload.New(call.Agg.ArgTypes, call.Agg.Ret)}
	switch call.Name {
	case "array_agg", "string_agg", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg":
		a.collects = true
	}
	if call.Distinct {
		ts := []types.T{types.Int8}
		for _, e := range call.Args {
			ts = append(ts, e.Type())
		}
		a.distinct = newGroupTable(ectx.Allocator(), ts, false)
	}
	if c, ok := a.acc.(expr.InputCounter); ok {
		a.counter = c
	}
	if d, ok := a.acc.(expr.ConstDirectSetter); ok && len(call.Args) > 0 {
		switch e := call.Args[0].(type) {
		case *expr.Const:
			d.SetConstDirect(e.Val)
		case *expr.Param:
			if e.Index < len(ectx.Params) {
				d.SetConstDirect(ectx.Params[e.Index])
			}
		}
	}
	if d, ok := a.acc.(expr.SortDirSetter); ok && len(call.OrderBy) > 0 {
		d.SetSortDir(call.OrderBy[0].Desc, call.OrderBy[0].NullsFirst)
	}
	if len(call.OrderBy) > 0 {
		fields := []arrow.Field{{Name: "g", Type: arrow.PrimitiveTypes.Int64}}
		for _, e := range call.Args {
			fields = append(fields, arrow.Field{Name: "a", Type: e.Type().Arrow(), Nullable: true})
		}
		for _, k := range call.OrderBy {
			fields = append(fields, arrow.Field{Name: "k", Type: k.Expr.Type().Arrow(), Nullable: true})
		}
		a.orderSch = arrow.NewSchema(fields, nil)
	}
	return a, nil
}

// add folds the rows of in, whose groups are given, into the aggregate.
func (a *aggInput) add(ectx *expr.Ctx, in arrow.RecordBatch, groups []uint32) error {
	args, err := evalAll(ectx, a.call.Args, in)
	if err != nil {
		return err
	}
	if a.call.Filter == nil && a.distinct == nil && a.orderSch == nil {
		if a.collects {
			for _, arg := range args {
				a.rowBytes += arrayBytes(arg.Data())
			}
		}
		return a.acc.Update(ectx, groups, args)
	}
	mem := ectx.Allocator()
	n := len(groups)
	// sel holds the rows that pass FILTER and DISTINCT; nil = all rows.
	a.sel = a.sel[:0]
	all := true
	if a.call.Filter != nil {
		arr, err := a.call.Filter.Eval(ectx, in)
		if err != nil {
			return err
		}
		pred, ok := arr.(*array.Boolean)
		if !ok {
			return sqlerr.New(sqlerr.DatatypeMismatch, "argument of FILTER must be type boolean")
		}
		a.sel = selectTrue(pred, a.sel)
		all = len(a.sel) == n
	}
	groupArr := groupsArray(mem, groups)
	if a.distinct != nil {
		keys := append([]arrow.Array{groupArr}, args...)
		a.distinct.prepare(keys)
		kept := a.sel[:0:0]
		if a.spill != nil && a.spill.frozen {
			// Past work_mem: rows the table holds are duplicates; the
			// others go to the sorter, which drops duplicates among them.
			rows := a.sel
			if all {
				rows = nil
				for i := 0; i < n; i++ {
					rows = append(rows, int32(i))
				}
			}
			for _, i := range rows {
				if a.distinct.find(int(i)) < 0 {
					kept = append(kept, i)
				}
			}
		} else if all {
			for i := 0; i < n; i++ {
				if _, isNew := a.distinct.insert(i); isNew {
					kept = append(kept, int32(i))
				}
			}
		} else {
			for _, i := range a.sel {
				if _, isNew := a.distinct.insert(int(i)); isNew {
					kept = append(kept, i)
				}
			}
		}
		a.sel = kept
		all = len(kept) == n
	}
	if !all {
		groupArr = takeArray(mem, groupArr, a.sel)
		for i := range args {
			args[i] = takeArray(mem, args[i], a.sel)
		}
	}
	if a.counter != nil {
		sub := groups
		if !all {
			sub = make([]uint32, len(a.sel))
			for i, r := range a.sel {
				sub[i] = groups[r]
			}
		}
		a.counter.CountInput(sub, args)
	}
	if a.orderSch != nil {
		cols := append([]arrow.Array{groupArr}, args...)
		for _, k := range a.call.OrderBy {
			arr, err := k.Expr.Eval(ectx, in)
			if err != nil {
				return err
			}
			if !all {
				arr = takeArray(mem, arr, a.sel)
			}
			cols = append(cols, arr)
		}
		b := array.NewRecordBatch(a.orderSch, cols, int64(groupArr.Len()))
		if a.spill != nil {
			err := a.spill.sorter.add(a.spill.ctx, b)
			b.Release()
			return err
		}
		a.rowBytes += batchBytes(b)
		a.ordered = append(a.ordered, b)
		return nil
	}
	if a.spill != nil {
		b := array.NewRecordBatch(a.spill.schema, append([]arrow.Array{groupArr}, args...), int64(groupArr.Len()))
		err := a.spill.sorter.add(a.spill.ctx, b)
		b.Release()
		return err
	}
	if a.collects {
		for _, arg := range args {
			a.rowBytes += arrayBytes(arg.Data())
		}
	}
	if all {
		return a.acc.Update(ectx, groups, args)
	}
	if len(a.sel) == 0 {
		return nil
	}
	sub := make([]uint32, len(a.sel))
	for i, r := range a.sel {
		sub[i] = groups[r]
	}
	return a.acc.Update(ectx, sub, args)
}

// finish feeds buffered ordered input and returns the results.
func (a *aggInput) finish(ectx *expr.Ctx, ngroups int) (arrow.Array, error) {
	return a.finishCancellable(context.Background(), nil, ectx, ngroups)
}

// finishCancellable is finish for a batch query, whose sort of ordered
// input stops when the statement is cancelled.
func (a *aggInput) finishCancellable(ctx context.Context, env *Env, ectx *expr.Ctx, ngroups int) (arrow.Array, error) {
	if a.spill != nil {
		if err := a.feedSorted(env, ectx); err != nil {
			return nil, err
		}
		a.spilled, a.spill = a.spill, nil
		return a.acc.Finish(ectx, ngroups)
	}
	if a.orderSch != nil && len(a.ordered) > 0 {
		mem := ectx.Allocator()
		all, err := concatBatches(mem, a.orderSch, a.ordered)
		if err != nil {
			return nil, err
		}
		nargs := len(a.call.Args)
		keyArrs := make([]arrow.Array, len(a.call.OrderBy))
		for k := range keyArrs {
			keyArrs[k] = all.Column(1 + nargs + k)
		}
		var sorter rowSorter
		sorter.loadArrays(a.call.OrderBy, keyArrs)
		order := make([]int32, all.NumRows())
		for i := range order {
			order[i] = int32(i)
		}
		if err := sorter.sort(ctx, env, order); err != nil {
			return nil, err
		}
		for s := 0; s < len(order); s += BatchSize {
			idx := order[s:min(s+BatchSize, len(order))]
			groups := make([]uint32, len(idx))
			gcol := all.Column(0).(*array.Int64)
			for i, r := range idx {
				groups[i] = uint32(gcol.Value(int(r)))
			}
			args := make([]arrow.Array, nargs)
			for c := range args {
				args[c] = takeArray(mem, all.Column(1+c), idx)
			}
			if err := a.acc.Update(ectx, groups, args); err != nil {
				return nil, err
			}
		}
	}
	return a.acc.Finish(ectx, ngroups)
}

// aggStateBytes is what one group's state of an aggregate is taken to
// hold (a count, a sum and its flags; a numeric's digits).
const aggStateBytes = 32

// bytes estimates the memory the aggregate's state holds for ngroups.
func (a *aggInput) bytes(ngroups int) int64 {
	n := int64(ngroups)*aggStateBytes + a.rowBytes
	if a.distinct != nil {
		n += a.distinct.bytes()
	}
	return n
}

func groupsArray(mem memory.Allocator, groups []uint32) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.Reserve(len(groups))
	for _, g := range groups {
		b.UnsafeAppend(int64(g))
	}
	return b.NewArray()
}

func (h *hashAggregateOp) consume(ctx context.Context) error {
	ectx := h.env.exprCtx()
	h.mem = newMemAccount(h.env, "HashAggregate")
	inputs := make([]*aggInput, len(h.plan.Aggs))
	for i := range h.plan.Aggs {
		a, err := newAggInput(ectx, &h.plan.Aggs[i])
		if err != nil {
			return err
		}
		inputs[i] = a
	}
	h.inputs = inputs
	var table *groupTable
	if len(h.plan.GroupBy) > 0 {
		ts := make([]types.T, len(h.plan.GroupBy))
		for i, e := range h.plan.GroupBy {
			ts[i] = e.Type()
		}
		table = newGroupTable(ectx.Allocator(), ts, true)
	}
	inSchema := planner.Schema(h.plan.Input.Columns())
	var spill *partitionWriters // set once past work_mem
	defer func() {
		if spill != nil {
			spill.abandon()
		}
	}()
	var groups []uint32
	var kept, spilled []int32
	for {
		if err := checkCancel(ctx, h.env); err != nil {
			return err
		}
		in, err := h.input.Next(ctx)
		if err != nil {
			return err
		}
		if in == nil {
			break
		}
		n := int(in.NumRows())
		if cap(groups) < n {
			groups = make([]uint32, n)
		}
		groups = groups[:n]
		if table != nil {
			keys, err := evalAll(ectx, h.plan.GroupBy, in)
			if err != nil {
				return err
			}
			table.prepare(keys)
			if spill == nil {
				for i := range groups {
					g, _ := table.insert(i)
					groups[i] = uint32(g)
				}
			} else {
				// Spilling: only groups already held take rows.
				kept, spilled = kept[:0], spilled[:0]
				groups = groups[:0]
				for i := 0; i < n; i++ {
					if g := table.find(i); g >= 0 {
						kept = append(kept, int32(i))
						groups = append(groups, uint32(g))
					} else {
						spilled = append(spilled, int32(i))
					}
				}
				if len(spilled) > 0 {
					if err := spill.add(withSchema(inSchema, in), table.rowHash, spilled); err != nil {
						return err
					}
				}
				if len(kept) == 0 {
					continue
				}
				if len(kept) < n {
					in = takeBatch(ectx.Allocator(), in.Schema(), in, kept)
				}
			}
		} else {
			clear(groups)
		}
		for _, a := range inputs {
			if err := a.add(ectx, in, groups); err != nil {
				return err
			}
			if err := a.maybeSpill(ctx, h.env); err != nil {
				return err
			}
		}
		ngroups := 1
		var held int64
		if table != nil {
			ngroups = table.n
			held = table.bytes()
		}
		for _, a := range inputs {
			held += a.bytes(ngroups)
		}
		if err := h.mem.resize(held); err != nil {
			return err
		}
		if spill == nil && table != nil && h.level < maxSpillLevel && h.mem.overWorkMem() {
			spill = &partitionWriters{env: h.env, what: "agg-partition", schema: inSchema, level: h.level}
		}
	}
	if spill != nil {
		parts, err := spill.finish()
		spill = nil
		if err != nil {
			return err
		}
		h.partitions = parts
	}
	ngroups := 1
	var cols []arrow.Array
	if table != nil {
		ngroups = table.n
		cols = table.keyArrays()
	}
	for _, a := range inputs {
		if err := checkCancel(ctx, h.env); err != nil {
			return err
		}
		arr, err := a.finishCancellable(ctx, h.env, ectx, ngroups)
		if err != nil {
			return err
		}
		cols = append(cols, arr)
	}
	if ngroups == 0 {
		return nil
	}
	h.out.push(sliceBatches(array.NewRecordBatch(h.schema, cols, int64(ngroups)))...)
	return nil
}

func (h *hashAggregateOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := checkCancel(ctx, h.env); err != nil {
		return nil, err
	}
	if !h.done {
		h.done = true
		if err := h.consume(ctx); err != nil {
			return nil, err
		}
	}
	for {
		if b := h.out.pop(); b != nil {
			return b, nil
		}
		// The in-memory groups are out: give their memory back before the
		// partitions are aggregated one after the other.
		if h.mem != nil {
			h.mem.releaseAll()
		}
		if h.child != nil {
			b, err := h.child.Next(ctx)
			if err != nil || b != nil {
				return b, err
			}
			h.child.Close()
			h.child = nil
		}
		if len(h.partitions) == 0 {
			return nil, nil
		}
		f := h.partitions[0]
		h.partitions = h.partitions[1:]
		h.child = &hashAggregateOp{env: h.env, plan: h.plan, schema: h.schema, level: h.level + 1,
			input: &spillScanOp{env: h.env, file: f}}
	}
}

func (h *hashAggregateOp) Close() {
	h.input.Close()
	for _, a := range h.inputs {
		a.closeSpill()
	}
	h.inputs = nil
	if h.child != nil {
		h.child.Close()
		h.child = nil
	}
	for _, f := range h.partitions {
		f.remove()
	}
	h.partitions = nil
	if h.mem != nil {
		h.mem.releaseAll()
	}
}
