package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
)

// nextChecked is in.Next after a cancellation check: the step of an
// operator that drains an input before it answers (a sort, a hash build,
// a partitioning pass), so a cancel stops it between batches.
func nextChecked(ctx context.Context, env *Env, in Operator) (arrow.RecordBatch, error) {
	if err := checkCancel(ctx, env); err != nil {
		return nil, err
	}
	return in.Next(ctx)
}

// heldBatches are input batches an operator keeps past the next call of
// its input's Next, each retained and counted in the operator's memory
// account. release gives them back (the caller defers it).
type heldBatches struct {
	batches []arrow.RecordBatch
	mem     *memAccount
}

// hold retains b and counts bytes (its buffers and whatever the operator
// adds per row) against the account; past the budget it returns 53200,
// with b already held so that release frees it.
func (h *heldBatches) hold(b arrow.RecordBatch, bytes int64) error {
	b.Retain()
	h.batches = append(h.batches, b)
	return h.mem.grow(bytes)
}

// release drops every held batch; the account is the caller's to reset.
func (h *heldBatches) release() {
	for _, b := range h.batches {
		b.Release()
	}
	h.batches = h.batches[:0]
}
