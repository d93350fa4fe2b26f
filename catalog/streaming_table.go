package catalog

// StreamingTable is a streaming table's definition beyond its columns:
// what it runs and how, typed, so that the engine never reads settings
// out of a string map.
type StreamingTable struct {
	// Definition is the CREATE STREAMING TABLE statement as written; the
	// engine re-plans it at every start. (The relation's ViewSQL is its
	// defining query alone, which pg_get_viewdef and \d+ show.)
	Definition string
	// OutputMode is the planner's output mode: "append" or "update".
	OutputMode string
	// Trigger is the kind of trigger: "continuous", "processing_time" or
	// "available_now" (the interval is in Definition).
	Trigger string
	// StateFingerprint identifies the shape of the plan's state, so that
	// CREATE OR REFRESH keeps the checkpoint only for a compatible plan.
	StateFingerprint string
	// LateRows names the table that receives rows too late for their
	// window ("" when none).
	LateRows string `json:",omitempty"`
}

func (s *StreamingTable) clone() *StreamingTable {
	c := *s
	return &c
}
