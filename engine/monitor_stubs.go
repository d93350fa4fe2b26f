package engine

// The figures Monitor gathers from parts built separately. Each function
// here is replaced by its part's own file (expectations, streaming_batches,
// server metrics), which then deletes it from this one.

// recentBatches are job oid's newest n epochs, oldest first.
func (e *Engine) recentBatches(oid uint32, n int) []BatchRow { return nil }
