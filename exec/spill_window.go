package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/types"
)

// windowSpill is how a windowOp keeps its buffered input within work_mem.
// The input counts against work_mem while it is read. Past it, when every
// call has the same PARTITION BY, the rows are written to spill partitions
// by the hash of their partition key, and each spill partition (holding
// whole window partitions) is computed by a child windowOp; the output
// order of a window is unspecified, so the order the children give is
// fine. Without a common PARTITION BY, or when the rows are one huge
// window partition, the input stays in memory against the server's query
// memory (53200 past it).
type windowSpill struct {
	// ctx is the statement's context while the input is computed, for the
	// cancellable sort of the rows into window order.
	ctx        context.Context
	mem        *memAccount
	level      int
	noSpill    bool // the parent's rows all fell into this one partition
	partitions []*spillFile
	child      *windowOp
	// childrenRun counts the children started: a first child that is
	// also the last means all rows fell into one partition.
	childrenRun int
}

// perRowWindowBytes is what computing one call holds per row besides the
// input: partition number, order, peer bounds, the result datum.
const perRowWindowBytes = 4 + 4 + 8 + 24

// buffer reads the whole input. It returns the rows to compute in memory,
// or nil when they were spilled to partitions.
func (w *windowOp) buffer(ctx context.Context) (arrow.RecordBatch, error) {
	schema := planner.Schema(w.plan.Input.Columns())
	w.spill.mem = newMemAccount(w.env, "WindowAgg")
	partitionBy := w.commonPartitionBy()
	held := heldBatches{mem: w.spill.mem}
	defer held.release()
	for {
		b, err := nextChecked(ctx, w.env, w.input)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		if err := held.hold(b, batchBytes(b)+b.NumRows()*perRowWindowBytes*int64(len(w.plan.Calls))); err != nil {
			return nil, err
		}
		if partitionBy != nil && !w.spill.noSpill && w.spill.level < maxSpillLevel && w.spill.mem.overWorkMem() {
			return nil, w.partitionInput(ctx, schema, partitionBy, held.batches)
		}
	}
	return concatBatches(w.env.exprCtx().Allocator(), schema, held.batches)
}

// commonPartitionBy is the PARTITION BY all calls share, nil if they do
// not share one or have none.
func (w *windowOp) commonPartitionBy() []planner.WindowCall {
	if len(w.plan.Calls) == 0 || len(w.plan.Calls[0].PartitionBy) == 0 {
		return nil
	}
	first := w.plan.Calls[0].PartitionBy
	for _, c := range w.plan.Calls[1:] {
		if len(c.PartitionBy) != len(first) {
			return nil
		}
		for i, e := range c.PartitionBy {
			if e.String() != first[i].String() || e.Type().OID != first[i].Type().OID {
				return nil
			}
		}
	}
	return w.plan.Calls[:1]
}

// partitionInput writes the buffered rows and the rest of the input to
// spill partitions by partition key.
func (w *windowOp) partitionInput(ctx context.Context, schema *arrow.Schema, calls []planner.WindowCall, buffered []arrow.RecordBatch) error {
	keyExprs := calls[0].PartitionBy
	ts := make([]types.T, len(keyExprs))
	for i, e := range keyExprs {
		ts[i] = e.Type()
	}
	table := newGroupTable(w.env.exprCtx().Allocator(), ts, false)
	parts := &partitionWriters{env: w.env, what: "window-partition", schema: schema, level: w.spill.level}
	defer parts.abandon()
	var sel []int32
	write := func(b arrow.RecordBatch) error {
		keys, err := evalAll(w.env.exprCtx(), keyExprs, b)
		if err != nil {
			return err
		}
		table.prepare(keys)
		sel = sel[:0]
		for i := range table.rowHash {
			sel = append(sel, int32(i))
		}
		return parts.add(withSchema(schema, b), table.rowHash, sel)
	}
	for _, b := range buffered {
		if err := write(b); err != nil {
			return err
		}
	}
	w.spill.mem.releaseAll()
	for {
		b, err := nextChecked(ctx, w.env, w.input)
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		if err := write(b); err != nil {
			return err
		}
	}
	files, err := parts.finish()
	if err != nil {
		return err
	}
	w.spill.partitions = files
	return nil
}

// nextPartition runs the spilled partitions' children one after another.
func (w *windowOp) nextPartition(ctx context.Context) (arrow.RecordBatch, error) {
	sp := &w.spill
	if sp.mem != nil {
		sp.mem.releaseAll() // the in-memory rows are out
	}
	for {
		if sp.child != nil {
			b, err := sp.child.Next(ctx)
			if err != nil || b != nil {
				return b, err
			}
			sp.child.Close()
			sp.child = nil
		}
		if len(sp.partitions) == 0 {
			return nil, nil
		}
		f := sp.partitions[0]
		only := len(sp.partitions) == 1 && sp.child == nil && !sp.started()
		sp.partitions = sp.partitions[1:]
		sp.child = &windowOp{env: w.env, plan: w.plan, schema: w.schema, input: &spillScanOp{env: w.env, file: f}}
		sp.child.spill.level = sp.level + 1
		sp.child.spill.noSpill = only
		sp.childrenRun++
	}
}

func (sp *windowSpill) started() bool { return sp.childrenRun > 0 }

func (sp *windowSpill) close() {
	if sp.child != nil {
		sp.child.Close()
		sp.child = nil
	}
	for _, f := range sp.partitions {
		f.remove()
	}
	sp.partitions = nil
	if sp.mem != nil {
		sp.mem.releaseAll()
	}
}
