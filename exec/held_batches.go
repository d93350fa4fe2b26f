package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// HeldBatches keeps batches past their operator's next call (Retain), with
// their memory counted against a query's account: for a result that must
// be complete before it is sent, such as the rows of one SQL FETCH (which
// PostgreSQL also collects before sending, so that an error inside it
// sends no rows). It does not spill: past the server's query memory Add
// fails with 53200.
type HeldBatches struct {
	acct    *memAccount
	batches []arrow.RecordBatch
}

// NewHeldBatches opens an empty set counted against mem (nil: not
// counted); what names it in a 53200 error.
func NewHeldBatches(mem *QueryMemory, what string) *HeldBatches {
	return &HeldBatches{acct: &memAccount{q: mem, op: what}}
}

// Add retains b and keeps it.
func (h *HeldBatches) Add(b arrow.RecordBatch) error {
	if err := h.acct.grow(batchBytes(b)); err != nil {
		return err
	}
	b.Retain()
	h.batches = append(h.batches, b)
	return nil
}

// Batches are the batches added, in order; they stay valid until Release.
func (h *HeldBatches) Batches() []arrow.RecordBatch { return h.batches }

// Release gives back every batch and its memory; the set is empty after.
func (h *HeldBatches) Release() {
	for _, b := range h.batches {
		b.Release()
	}
	h.batches = nil
	h.acct.releaseAll()
}
