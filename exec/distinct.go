package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// distinctOp passes the first row of each distinct key in input order:
// the key is the whole row for DISTINCT and the On expressions for
// DISTINCT ON. NULLs are equal to each other.
//
// Its table of seen keys counts against work_mem. Past it, plain DISTINCT
// stops adding keys: rows of keys it has seen are still dropped, rows of
// unseen keys go to spill partitions by hash, and each partition is then
// deduplicated by a child distinctOp (a key is whole in one partition, and
// none of its rows was emitted before). DISTINCT ON reads input sorted by
// its On keys (PostgreSQL requires ORDER BY to start with them), so a key
// never comes back once the next one starts: past work_mem it forgets all
// keys but the last.
type distinctOp struct {
	env    *Env
	on     []expr.Expr // DISTINCT ON keys; nil: the whole row
	ts     []types.T   // key types
	schema *arrow.Schema
	input  Operator
	level  int
	filter *distinctFilter

	inputDone  bool
	partitions []*spillFile
	child      *distinctOp
}

var _ Operator = (*distinctOp)(nil)

func newDistinctOp(env *Env, plan *planner.Distinct, input Operator) *distinctOp {
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
	return &distinctOp{env: env, on: plan.On, ts: ts, schema: planner.Schema(plan.Input.Columns()), input: input}
}

func (d *distinctOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	ectx := d.env.exprCtx()
	if d.filter == nil {
		d.filter = newDistinctFilter(d.env, "Distinct", d.ts, d.schema, d.level, len(d.on) > 0)
	}
	for !d.inputDone {
		if err := checkCancel(ctx, d.env); err != nil {
			return nil, err
		}
		in, err := d.input.Next(ctx)
		if err != nil {
			return nil, err
		}
		if in == nil {
			d.inputDone = true
			parts, err := d.filter.finish()
			if err != nil {
				return nil, err
			}
			d.partitions = parts
			break
		}
		keys := in.Columns()
		if len(d.on) > 0 {
			if keys, err = evalAll(ectx, d.on, in); err != nil {
				return nil, err
			}
		}
		out, err := d.filter.filter(in, keys)
		if err != nil || out != nil {
			return out, err
		}
	}
	for {
		if d.child != nil {
			b, err := d.child.Next(ctx)
			if err != nil || b != nil {
				return b, err
			}
			d.child.Close()
			d.child = nil
		}
		if len(d.partitions) == 0 {
			return nil, nil
		}
		d.filter.release()
		f := d.partitions[0]
		d.partitions = d.partitions[1:]
		d.child = &distinctOp{env: d.env, ts: d.ts, schema: d.schema, level: d.level + 1,
			input: &spillScanOp{env: d.env, file: f}}
	}
}

func (d *distinctOp) Close() {
	d.input.Close()
	if d.child != nil {
		d.child.Close()
		d.child = nil
	}
	for _, f := range d.partitions {
		f.remove()
	}
	d.partitions = nil
	if d.filter != nil {
		d.filter.abandon()
	}
}

// distinctFilter keeps the rows of keys not seen before, within work_mem:
// past it rows of unseen keys go to spill partitions (or, for input sorted
// by the key, the table forgets all keys but the last).
type distinctFilter struct {
	env    *Env
	ts     []types.T
	schema *arrow.Schema
	level  int
	sorted bool
	table  *groupTable
	mem    *memAccount
	spill  *partitionWriters
	sel    []int32
	unseen []int32
}

func newDistinctFilter(env *Env, op string, ts []types.T, schema *arrow.Schema, level int, sorted bool) *distinctFilter {
	return &distinctFilter{env: env, ts: ts, schema: schema, level: level, sorted: sorted,
		table: newGroupTable(env.exprCtx().Allocator(), ts, false), mem: newMemAccount(env, op)}
}

// filter returns the rows of in to emit (nil if none), whose keys are keys.
func (f *distinctFilter) filter(in arrow.RecordBatch, keys []arrow.Array) (arrow.RecordBatch, error) {
	t := f.table
	t.prepare(keys)
	f.sel = f.sel[:0]
	if f.spill == nil {
		for i := range t.rowHash {
			if _, isNew := t.insert(i); isNew {
				f.sel = append(f.sel, int32(i))
			}
		}
	} else {
		f.unseen = f.unseen[:0]
		for i := range t.rowHash {
			if t.find(i) < 0 {
				f.unseen = append(f.unseen, int32(i))
			}
		}
		if len(f.unseen) > 0 {
			if err := f.spill.add(withSchema(f.schema, in), t.rowHash, f.unseen); err != nil {
				return nil, err
			}
		}
	}
	if err := f.mem.resize(t.bytes()); err != nil {
		return nil, err
	}
	if f.mem.overWorkMem() {
		switch {
		case f.sorted:
			// Keep only the last key: sorted input never brings back an
			// earlier one.
			f.table = newGroupTable(f.env.exprCtx().Allocator(), f.ts, false)
			last := make([]arrow.Array, len(keys))
			n := int64(keys[0].Len())
			for c, k := range keys {
				last[c] = array.NewSlice(k, n-1, n)
			}
			f.table.prepare(last)
			f.table.insert(0)
			if err := f.mem.resize(f.table.bytes()); err != nil {
				return nil, err
			}
		case f.spill == nil && f.level < maxSpillLevel:
			f.spill = &partitionWriters{env: f.env, what: "distinct-partition", schema: f.schema, level: f.level}
		}
	}
	switch len(f.sel) {
	case 0:
		return nil, nil
	case int(in.NumRows()):
		return withSchema(f.schema, in), nil
	}
	return takeBatch(f.env.exprCtx().Allocator(), f.schema, in, f.sel), nil
}

// finish closes the spill partitions and returns them.
func (f *distinctFilter) finish() ([]*spillFile, error) {
	if f.spill == nil {
		return nil, nil
	}
	parts, err := f.spill.finish()
	f.spill = nil
	return parts, err
}

// release gives back the table's memory once no more input comes.
func (f *distinctFilter) release() {
	f.table = newGroupTable(f.env.exprCtx().Allocator(), f.ts, false)
	f.mem.releaseAll()
}

func (f *distinctFilter) abandon() {
	if f.spill != nil {
		f.spill.abandon()
		f.spill = nil
	}
	f.mem.releaseAll()
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
