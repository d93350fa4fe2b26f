package planner

import "github.com/weir-sql/weir/sql/types"

// Catalog is what the binder reads: relations by name. The engine
// implements it over weir's catalog plus the virtual pg_catalog and
// information_schema relations.
type Catalog interface {
	// LookupRelation finds a relation; schema "" means the search path.
	// It returns a 42P01 error when there is none.
	LookupRelation(schema, name string) (*Relation, error)
	// LookupType resolves a type name that is not built in (none yet: domains
	// and enums are not supported), for error messages.
}

// Relation is a table, view or virtual relation as the binder sees it.
type Relation struct {
	OID     uint32
	Schema  string
	Name    string
	Kind    RelKind
	ViewSQL string // non-empty for views: the defining query, bound inline
	Cols    []RelColumn
	// Streaming is set for streaming tables; AppendOnly when their rows
	// never change once written (append mode), so they can feed another
	// streaming table.
	Streaming, AppendOnly bool
	// Source is set for sources (CREATE SOURCE): read like a table, but
	// their rows come from a connector, never from INSERT or COPY.
	Source bool
	// WatermarkColumn and WatermarkDelay (microseconds) come from the
	// table's WATERMARK FOR clause.
	WatermarkColumn string
	WatermarkDelay  int64
	// Reads is set on a streaming plan's input when the plan reads only
	// some of its columns: their names (nil: all). A files source decodes
	// only those (StreamPlan.inputReads).
	Reads []string
	// Via is the OID of the innermost view whose query reads this
	// relation (0 when the query names it): row-level security checks
	// such a read as the view's owner, as PostgreSQL does.
	Via uint32
}

// RelColumn is a column of a Relation.
type RelColumn struct {
	Name    string
	T       types.T
	NotNull bool
	Default string // SQL text of the DEFAULT expression, "" if none
	// Hidden columns (a files source's _metadata) are read by name but
	// not expanded by *, as Databricks' are.
	Hidden bool
}

// RowEstimator is implemented by catalogs that can guess how many rows a
// scanned relation holds without reading it: a stored table's committed
// row count, a virtual catalog relation's size from the objects it lists.
// The join planner orders joins by these guesses; they need not be exact,
// only cheap (it is asked once per relation in a FROM list) and never
// negative. A catalog without it gets PostgreSQL's default guess.
type RowEstimator interface {
	EstimateRows(scan *Scan) float64
}

// UniqueColumns is implemented by catalogs that know which columns of a
// stored relation hold distinct values (a one-column primary key), so that
// an equality on them is estimated to match one row, as PostgreSQL's
// statistics would say.
type UniqueColumns interface {
	UniqueColumn(scan *Scan, col int) bool
}
