package engine

// The figures Monitor gathers from parts built separately. Each function
// here is replaced by its part's own file (expectations, streaming_batches,
// server metrics), which then deletes it from this one.

// expectationCounts are job oid's expectations with their counts so far.
func (e *Engine) expectationCounts(oid uint32) []ExpectationCount { return nil }

// serverStats are the server-wide figures.
func (e *Engine) serverStats() ServerStats { return ServerStats{} }
