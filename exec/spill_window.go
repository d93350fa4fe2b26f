package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
)

// windowSpill is how a windowOp keeps its buffered input within work_mem.
// The input counts against work_mem while it is read. While it fits, the
// window is computed in memory from one batch (the fast path). Past
// work_mem, the rows read so far and the rest of the input go through the
// sorted stages of window_stages.go instead: spilling sorts into each
// window ordering and windowStageOps that hold one partition at a time,
// a partition larger than work_mem in a spill file.
type windowSpill struct {
	mem    *memAccount
	sorted Operator // the stages, once the input passed work_mem
}

// perRowWindowBytes is what computing one call holds per row besides the
// input: partition number, order, peer bounds, the result datum.
const perRowWindowBytes = 4 + 4 + 8 + 24

// buffer reads the input while it fits in work_mem. It returns the rows to
// compute in memory, or nil when the window goes through sorted stages
// (w.spill.sorted).
func (w *windowOp) buffer(ctx context.Context) (arrow.RecordBatch, error) {
	schema := planner.Schema(w.plan.Input.Columns())
	w.spill.mem = newMemAccount(w.env, "WindowAgg")
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
		if w.spill.mem.overWorkMem() {
			// The rows read are handed on as they are; only their bytes
			// stay counted, until the first sort has taken them.
			replay := &replayOp{env: w.env, input: w.input, mem: w.spill.mem}
			for _, b := range held.batches {
				b.Retain()
				replay.held = append(replay.held, b)
			}
			w.spill.mem.releaseAll()
			var bytes int64
			for _, b := range replay.held {
				bytes += batchBytes(b)
			}
			if err := w.spill.mem.grow(bytes); err != nil {
				replay.Close()
				return nil, err
			}
			w.spill.sorted = w.sortedWindow(replay)
			return nil, nil
		}
	}
	return concatBatches(w.env.exprCtx().Allocator(), schema, held.batches)
}

func (sp *windowSpill) close() {
	if sp.sorted != nil {
		sp.sorted.Close()
		sp.sorted = nil
	}
	if sp.mem != nil {
		sp.mem.releaseAll()
	}
}
