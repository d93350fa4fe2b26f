package engine

// The figures Monitor gathers from parts built separately. Each function
// here is replaced by its part's own file (expectations, streaming_batches,
// server metrics), which then deletes it from this one.

// expectationCounts are job oid's expectations with their counts so far.
func (e *Engine) expectationCounts(oid uint32) []ExpectationCount { return nil }

// recentBatches are job oid's newest n epochs, oldest first.
func (e *Engine) recentBatches(oid uint32, n int) []BatchRow { return nil }
