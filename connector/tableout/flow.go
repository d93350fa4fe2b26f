package tableout

import "github.com/weir-sql/weir/state"

// Several append flows write into one streaming table. Each flow is a job
// with a checkpoint of its own, keyed by the flow's OID; its sink appends
// the epoch's rows to the target's chunks — so every reader of the target
// reads one relation, the union of its flows — and records the flow's
// progress (the last epoch whose rows the chunks hold) under the flow's
// OID, in the same transaction as the flow's epoch record. A crash
// therefore leaves each flow's rows and progress in step, whatever the
// other flows were doing.
//
// Flows into one target must not commit at the same time: a chunk's place
// in the target's log is drawn when it is staged, so two interleaved
// commits could publish a chunk behind one a reader of the log has passed.
// The engine holds one lock per target around a flow's commit.

// NewFlow returns the sink of flow flow into streaming table target. Its
// Drop forgets the flow's progress only: the rows it wrote are the
// target's, and stay until the target is dropped or fully refreshed.
func NewFlow(st *state.Store, target, flow uint32) *Sink {
	return &Sink{store: st, table: target, progress: flow, flow: true}
}
