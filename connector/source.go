package connector

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
)

// Source is one input of a streaming table: an append-only log of Arrow
// record batches, read from an offset.
//
// Contract:
//   - An offset is a position in the log, counted in batches from the
//     log's beginning (before anything was removed from it): offset n is
//     the n-th batch ever appended. Offsets never change meaning, so an
//     offset recorded in a checkpoint can be read again after a restart.
//   - Read(ctx, from, max) returns the batches from offset from on, in
//     order, at most max of them (max <= 0: all the source holds now). It
//     never blocks waiting for input: when nothing is there it returns no
//     batches.
//   - Exactly-once: re-reading from an offset a checkpoint recorded (any
//     Next a Read returned) returns the same rows in the same batches, as
//     long as the source still holds them (see Start). Batches appended
//     later only ever come after them.
//   - Read.From is the offset of the first batch returned: from itself;
//     later when the source no longer holds from (retention removed it:
//     From is then Start); or the end of the log when from is past it
//     (the input was truncated). Read.Next is From+len(Batches), the offset
//     to read from next and the one an epoch records.
//   - Backlog is the number of rows the source holds after Next now: rows
//     waiting for a later epoch (what streaming_progress shows).
//   - A watermark hint (HasWatermark) promises that no row after Next has
//     an event time below Watermark (microseconds). It lets a quiet or
//     ordered source advance a table's watermark; a source that knows
//     nothing of event times gives none.
//   - The returned batches belong to the source and are never modified;
//     the caller may keep them (they are shared, not copied) but must not
//     release or modify them.
//   - Errors are sqlerr values with their SQLSTATE: 58030 or 53xxx when the
//     store cannot be read (the table pauses and retries), XX001 for
//     damaged input (the table fails with it). A failed Read changes
//     nothing: reading again from the same offset is correct.
//   - One goroutine (the table's runner) calls Read; Start may be called
//     from any goroutine.
type Source interface {
	Read(ctx context.Context, from int64, max int) (Read, error)
	// Start is the first offset the source still holds: reading from
	// before it returns From = Start. A checkpoint whose re-run needs input
	// before Start cannot be re-run exactly.
	Start() (int64, error)
}

// Read is what one Source.Read returns.
type Read struct {
	Batches      []arrow.RecordBatch
	From, Next   int64
	Backlog      int64 // rows held after Next
	Watermark    int64 // event-time lower bound of the rows after Next
	HasWatermark bool
}
