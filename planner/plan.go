// Package planner binds parsed statements to the catalog and produces query
// plans as plain data; exec runs them. Plans are immutable once built and
// may be cached and executed many times (parameters live in expr.Ctx).
package planner

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// Node is a relational plan node. Every node's output columns are given by
// Columns(); batches it produces have exactly those columns in that order.
type Node interface {
	Columns() []Column
	Children() []Node
}

// Column is one output column of a plan node.
type Column struct {
	Name string
	// Field is set for the parts of a record-valued column: weir carries a
	// record (information_schema._pg_expandarray's result) as one column
	// per field, all with the record's Name, reached as (name).field.
	Field    string
	T        types.T
	TableOID uint32 // source table, for RowDescription; 0 if computed
	AttNum   int16
}

// Schema builds the Arrow schema of a node's batches.
func Schema(cols []Column) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.T.Arrow(), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// RelKind says where a scanned relation's rows come from.
type RelKind int

const (
	// StoredTable rows are the committed chunks of an input or streaming table.
	StoredTable RelKind = iota
	// VirtualTable rows are generated on each scan (pg_catalog,
	// information_schema, weir_catalog).
	VirtualTable
)

// Scan reads a whole relation.
type Scan struct {
	OID    uint32
	Schema string
	Name   string
	Alias  string
	Kind   RelKind
	Cols   []Column
}

// Values produces literal rows (VALUES, and SELECT without FROM as one
// empty row).
type Values struct {
	Rows [][]expr.Expr
	Cols []Column
}

// FunctionScan is a set-returning function in FROM (generate_series,
// unnest, ...). Args are evaluated once (they cannot reference columns
// unless lateral, which is not supported).
type FunctionScan struct {
	Func           string
	Args           []expr.Expr
	ArgNames       []string // named arguments' names (nexmark's options), "" for positional ones
	Cols           []Column
	WithOrdinality bool
}

// Filter keeps rows where Pred is true.
type Filter struct {
	Input Node
	Pred  expr.Expr
}

// Project computes Exprs over each input row.
type Project struct {
	Input Node
	Exprs []expr.Expr
	Cols  []Column
	// Reorder marks the projection the join planner puts over a
	// reordered join tree to give its columns back in FROM order; EXPLAIN
	// leaves it out, as PostgreSQL shows no such step.
	Reorder bool
}

// AggCall is one aggregate in an Aggregate node.
type AggCall struct {
	Name     string
	Agg      *expr.ResolvedAgg
	Args     []expr.Expr // evaluated over the Aggregate's input
	Distinct bool
	Filter   expr.Expr // FILTER (WHERE ...), nil if none
	OrderBy  []SortKey // ordered-set input order (string_agg ... ORDER BY)
}

// Aggregate groups its input by GroupBy and computes Aggs per group. Output:
// the GroupBy values, then one column per AggCall. With no GroupBy it
// yields exactly one row, even for empty input.
type Aggregate struct {
	Input   Node
	GroupBy []expr.Expr
	Aggs    []AggCall
	Cols    []Column
}

// SortKey orders rows by an expression over the node's input.
type SortKey struct {
	Expr       expr.Expr
	Desc       bool
	NullsFirst bool // PostgreSQL's default: NULLS LAST for ASC, FIRST for DESC
}

// Sort orders its input; it is stable.
type Sort struct {
	Input Node
	Keys  []SortKey
}

// Limit skips Offset rows then passes at most Limit rows; either may be nil.
// Both are constant expressions (parameters allowed) evaluated once.
type Limit struct {
	Input  Node
	Limit  expr.Expr
	Offset expr.Expr
	// Ties (FETCH ... WITH TIES) are the ORDER BY keys over Input: rows
	// equal on them to the last row within the limit pass too.
	Ties []expr.Expr
}

// JoinKind is the kind of join.
type JoinKind int

const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	CrossJoin
	SemiJoin // rows of Left with a match (EXISTS / IN decorrelated)
	AntiJoin // rows of Left without a match
)

// Join combines Left and Right. LeftKeys[i] = RightKeys[i] are the equality
// conditions usable for a hash join (NULL never matches); Cond is the
// remaining condition, evaluated over the concatenation of a left and a
// right row (left columns first). Output: left columns then right columns
// (only left columns for semi and anti joins).
type Join struct {
	Kind      JoinKind
	Left      Node
	Right     Node
	LeftKeys  []expr.Expr
	RightKeys []expr.Expr
	Cond      expr.Expr
	// EstRows is the planner's guess of the output rows (0: not
	// estimated), shown by EXPLAIN.
	EstRows float64
}

// Distinct removes duplicate rows (NULLs equal). With On set it is
// DISTINCT ON: the first row of each On key in input order is kept.
type Distinct struct {
	Input Node
	On    []expr.Expr
}

// SetOpKind is UNION, INTERSECT or EXCEPT.
type SetOpKind int

const (
	Union SetOpKind = iota
	Intersect
	Except
)

// SetOp combines two inputs of the same column types (the binder inserts
// casts). Without All, duplicates are removed from the result.
type SetOp struct {
	Kind  SetOpKind
	All   bool
	Left  Node
	Right Node
	Cols  []Column
}

// FrameBound is one end of a window frame.
type FrameBound struct {
	Kind   FrameBoundKind
	Offset expr.Expr // for OffsetPreceding / OffsetFollowing
}

// FrameBoundKind is where a frame edge lies.
type FrameBoundKind int

const (
	UnboundedPreceding FrameBoundKind = iota
	OffsetPreceding
	CurrentRow
	OffsetFollowing
	UnboundedFollowing
)

// Frame is a window frame. The default (no frame clause) is RANGE BETWEEN
// UNBOUNDED PRECEDING AND CURRENT ROW, where peers of the current row (equal
// ORDER BY values) are in the frame; without ORDER BY every row of the
// partition is a peer.
type Frame struct {
	Rows    bool // ROWS rather than RANGE
	Start   FrameBound
	End     FrameBound
	Exclude FrameExclusion
}

// FrameExclusion is a frame's EXCLUDE clause: rows taken out of the frame
// of each row, relative to it and its peers (equal ORDER BY values).
type FrameExclusion int

const (
	ExcludeNoOthers   FrameExclusion = iota
	ExcludeCurrentRow                // the row itself
	ExcludeGroup                     // the row and its peers
	ExcludeTies                      // its peers, not the row itself
)

// WindowCall is one window function over the Window node's input.
type WindowCall struct {
	Name        string // row_number, rank, dense_rank, lag, lead, first_value, last_value, ntile, or an aggregate
	Args        []expr.Expr
	Agg         *expr.ResolvedAgg // set when Name is an aggregate
	PartitionBy []expr.Expr
	OrderBy     []SortKey
	Frame       Frame
	T           types.T
}

// Window appends one column per call to its input rows. Output row order is
// unspecified (a Sort above it orders if the query asks).
type Window struct {
	Input Node
	Calls []WindowCall
	Cols  []Column // input columns then one per call
}

func (s *Scan) Columns() []Column         { return s.Cols }
func (s *Scan) Children() []Node          { return nil }
func (v *Values) Columns() []Column       { return v.Cols }
func (v *Values) Children() []Node        { return nil }
func (f *FunctionScan) Columns() []Column { return f.Cols }
func (f *FunctionScan) Children() []Node  { return nil }
func (f *Filter) Columns() []Column       { return f.Input.Columns() }
func (f *Filter) Children() []Node        { return []Node{f.Input} }
func (p *Project) Columns() []Column      { return p.Cols }
func (p *Project) Children() []Node       { return []Node{p.Input} }
func (a *Aggregate) Columns() []Column    { return a.Cols }
func (a *Aggregate) Children() []Node     { return []Node{a.Input} }
func (s *Sort) Columns() []Column         { return s.Input.Columns() }
func (s *Sort) Children() []Node          { return []Node{s.Input} }
func (l *Limit) Columns() []Column        { return l.Input.Columns() }
func (l *Limit) Children() []Node         { return []Node{l.Input} }
func (d *Distinct) Columns() []Column     { return d.Input.Columns() }
func (d *Distinct) Children() []Node      { return []Node{d.Input} }
func (s *SetOp) Columns() []Column        { return s.Cols }
func (s *SetOp) Children() []Node         { return []Node{s.Left, s.Right} }
func (w *Window) Columns() []Column       { return w.Cols }
func (w *Window) Children() []Node        { return []Node{w.Input} }
func (j *Join) Children() []Node          { return []Node{j.Left, j.Right} }
func (j *Join) Columns() []Column {
	if j.Kind == SemiJoin || j.Kind == AntiJoin {
		return j.Left.Columns()
	}
	return append(append([]Column{}, j.Left.Columns()...), j.Right.Columns()...)
}

// SRFCall is one set-returning function in a select list.
type SRFCall struct {
	Func string
	Args []expr.Expr // over the ProjectSet's input
	T    types.T
	// Ordinality adds a second int4 column numbering the rows from 1
	// (the "n" field of _pg_expandarray).
	Ordinality bool
	// Field is the one column of a record-returning function the call
	// yields ((aclexplode(acl)).grantee); "" for the others.
	Field string
}

// ProjectSet evaluates set-returning functions of a select list: each input
// row becomes as many rows as its longest function result, the shorter ones
// padded with NULL (PostgreSQL 10+ semantics). Output: the input columns,
// then one column per call (two for calls with Ordinality).
type ProjectSet struct {
	Input Node
	Calls []SRFCall
	Cols  []Column
}

func (p *ProjectSet) Columns() []Column { return p.Cols }
func (p *ProjectSet) Children() []Node  { return []Node{p.Input} }

// WindowKind is the kind of event-time window.
type WindowKind int

const (
	TumblingWindow WindowKind = iota + 1
	HoppingWindow
	SessionWindow
)

func (k WindowKind) String() string {
	switch k {
	case TumblingWindow:
		return "tumbling"
	case HoppingWindow:
		return "hopping"
	case SessionWindow:
		return "session"
	}
	return "?"
}

// WindowAssign puts each input row into its event-time windows and appends
// window_start and window_end (of the event time's type). Tumbling and
// hopping windows are half-open [start, end) and aligned to the Unix
// epoch; a hopping window emits a row once per window it falls in. Session
// windows group rows of equal PartitionBy values whose event times are less
// than Gap apart; a session ends Gap after its last event.
type WindowAssign struct {
	Input Node
	Kind  WindowKind
	Time  expr.Expr // event time over Input (timestamp or timestamptz)
	Size  int64     // microseconds (tumbling, hopping)
	Slide int64     // microseconds (hopping)
	// Offset shifts tumbling and hopping windows from the Unix epoch
	// (microseconds, 0 <= Offset < the slide): Spark's window(..., start).
	Offset      int64
	Gap         int64 // microseconds (session)
	PartitionBy []expr.Expr
	Cols        []Column
}

func (w *WindowAssign) Columns() []Column { return w.Cols }
func (w *WindowAssign) Children() []Node  { return []Node{w.Input} }
