package catalog

import (
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

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
	// Quarantine names the table that receives the rows expectations
	// drop ("" when none).
	Quarantine string `json:",omitempty"`

	// Declared is true when the columns were declared (a column list):
	// the query, and every flow, must give exactly those columns.
	Declared bool `json:",omitempty"`
	// NoQuery is true for a table declared without a query; its flows
	// (Flows) fill it.
	NoQuery bool `json:",omitempty"`
	// Comment is the table's COMMENT; HasComment tells '' from none.
	Comment    string `json:",omitempty"`
	HasComment bool   `json:",omitempty"`
	// Properties are TBLPROPERTIES, in the order given.
	Properties []Property `json:",omitempty"`
	// PartitionedBy and ClusterBy are kept and shown; weir's storage does
	// not lay rows out by them.
	PartitionedBy []string `json:",omitempty"`
	ClusterBy     []string `json:",omitempty"`
	// Schedule is SCHEDULE or TRIGGER ON UPDATE (nil: none).
	Schedule *Schedule `json:",omitempty"`
	// Expectations are the CONSTRAINT ... EXPECT clauses, checked on the
	// rows the table's query writes (engine/expectations.go).
	Expectations []Expectation `json:",omitempty"`
	// Flows are the CREATE FLOW statements that fill a NoQuery table,
	// each run as its own job with its own checkpoint (engine/flows.go).
	Flows []Flow `json:",omitempty"`
	// Files are the query's read_files(...) inputs with the schemas
	// inferred at CREATE (files_source.go), in order of appearance.
	Files []FilesSource `json:",omitempty"`
}

// Property is one TBLPROPERTIES entry.
type Property struct{ Key, Value string }

// Schedule is when a streaming table refreshes.
type Schedule struct {
	// Kind is "every", "cron" or "on update".
	Kind string
	// Every and Unit ("hour", "day", "week") for EVERY.
	Every int    `json:",omitempty"`
	Unit  string `json:",omitempty"`
	// Cron (Quartz) and its time zone ("" for the session's) for CRON.
	Cron     string `json:",omitempty"`
	TimeZone string `json:",omitempty"`
	// AtMostEveryUS is TRIGGER ON UPDATE's AT MOST EVERY, in microseconds.
	AtMostEveryUS int64 `json:",omitempty"`
	// Text is the clause as Databricks writes it ("EVERY 1 HOUR").
	Text string
}

// Expectation is one CONSTRAINT name EXPECT (condition) clause.
type Expectation struct {
	Name string
	Expr string
	// OnViolation is "" (keep the row), "drop row" or "fail update".
	OnViolation string `json:",omitempty"`
}

// Flow is an append flow into a streaming table.
type Flow struct {
	Name string
	// OID identifies the flow's checkpoint (its epoch records, state
	// snapshot and output progress are keyed by it, as a streaming
	// table's by its relation OID); it is drawn from the relations' OIDs
	// and names no relation. 0: a flow created before flows had their
	// own, whose checkpoint is the target's.
	OID uint32 `json:",omitempty"`
	// Definition is the CREATE FLOW statement as written.
	Definition string
	Comment    string `json:",omitempty"`
	Once       bool   `json:",omitempty"`
	// StateFingerprint is the flow's plan's (see StreamingTable's), so
	// that CREATE OR REFRESH FLOW keeps the checkpoint only for a
	// compatible query.
	StateFingerprint string `json:",omitempty"`
	// Files are the flow's read_files(...) inputs with the schemas
	// inferred at CREATE FLOW (as StreamingTable.Files for a table's own
	// query), so a restart binds the same columns.
	Files []FilesSource `json:",omitempty"`
	// CDC is set for an AUTO CDC (APPLY CHANGES INTO) flow: what it
	// applies, typed (Definition holds it as written).
	CDC *AutoCDC `json:",omitempty"`
}

// AutoCDC is an AUTO CDC flow's definition (engine/flows_cdc.go): the
// target holds per key the change with the highest Sequence (SCDType 1),
// or every version with __START_AT and __END_AT (SCDType 2).
type AutoCDC struct {
	SourceSchema, Source string
	Keys                 []string
	Sequence             string
	DeleteWhen           string `json:",omitempty"`
	Columns              []string
	SCDType              int
	// SourceColumns are the source's columns at CREATE FLOW (SCD type 2
	// groups the changes by all of them).
	SourceColumns []string `json:",omitempty"`
	// TruncateWhen (SCD type 1), IgnoreNull (the target columns whose
	// NULLs keep the target's value) and Untracked (SCD type 2: the
	// columns TRACK HISTORY ON leaves out) are engine/flows_cdc_clauses.go's.
	TruncateWhen string   `json:",omitempty"`
	IgnoreNull   []string `json:",omitempty"`
	Untracked    []string `json:",omitempty"`
}

// PlanText is the statement the engine plans to run the table as one
// job: its own definition, or "" for a table declared without a query,
// whose flows run as jobs of their own.
func (s *StreamingTable) PlanText() string {
	if !s.NoQuery {
		return s.Definition
	}
	return ""
}

func (s *StreamingTable) clone() *StreamingTable {
	c := *s
	c.Properties = append([]Property(nil), s.Properties...)
	c.PartitionedBy = append([]string(nil), s.PartitionedBy...)
	c.ClusterBy = append([]string(nil), s.ClusterBy...)
	c.Expectations = append([]Expectation(nil), s.Expectations...)
	c.Flows = append([]Flow(nil), s.Flows...)
	for i := range c.Flows {
		c.Flows[i].Files = cloneFilesSources(c.Flows[i].Files)
	}
	c.Files = cloneFilesSources(s.Files)
	if s.Schedule != nil {
		sc := *s.Schedule
		c.Schedule = &sc
	}
	return &c
}

// UpdateStreamingTable changes streaming table oid with change, which
// gets a copy to modify (its definition, and its columns for a table that
// takes them from its first flow; its identity — OID, schema, name, kind —
// stays), and stores it; the relation as it is now is returned. An error
// from change is returned as is, and nothing changes.
func (c *Catalog) UpdateStreamingTable(oid uint32, change func(*Relation) error) (*Relation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.rels[oid]
	if !ok || old.Kind != KindStreamingTable {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "streaming table with OID %d does not exist", oid)
	}
	r := old.clone()
	if r.Streaming == nil {
		r.Streaming = &StreamingTable{}
	}
	if err := change(r); err != nil {
		return nil, err
	}
	r.OID, r.Schema, r.Name, r.Kind, r.Owner, r.Created = old.OID, old.Schema, old.Name, old.Kind, old.Owner, old.Created
	if r.Streaming == nil {
		r.Streaming = &StreamingTable{}
	}
	err := c.commit(
		func(tx *state.Txn) error { return putJSON(tx, relKey(r.OID), r) },
		func() { c.addRel(r) })
	if err != nil {
		return nil, err
	}
	return r, nil
}
