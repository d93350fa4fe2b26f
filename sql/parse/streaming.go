package parse

import (
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Streaming statements are recognised by a token pass over pg_query.Scan
// before the PostgreSQL grammar sees the text: their clauses are cut out
// into the typed structs below and what remains is ordinary SQL that
// pg_query parses (see design.md). Every spelling of dialect.md maps to
// one of these forms.

// StreamingKind says which weir statement a Statement is.
type StreamingKind int

const (
	NotStreaming StreamingKind = iota
	CreateStreamingTable
	DropStreamingTable
	RefreshStreamingTable
	ShowStreamingTables
	ExplainStreamingTable       // EXPLAIN STREAMING TABLE name
	ExplainCreateStreamingTable // EXPLAIN CREATE STREAMING TABLE ...
	Subscribe                   // SUBSCRIBE [TO] name, or COPY (SUBSCRIBE TO name) TO STDOUT
	// StreamingQuery is a bare query (SELECT, WITH, VALUES, TABLE) that
	// uses weir clauses (STREAM, WATERMARK ... DELAY OF, WINDOW TUMBLING,
	// window(...), INTERVAL 5 MINUTES); Query holds its canonical text.
	StreamingQuery
	CreateSource // CREATE SOURCE name [(columns)] WITH (...)
	DropSource   // DROP SOURCE [IF EXISTS] name [, ...] [CASCADE | RESTRICT]
	ShowSources  // SHOW SOURCES
)

// StreamingStmt is a weir streaming statement.
type StreamingStmt struct {
	Kind        StreamingKind
	Name        string // table name (unqualified or "schema.name" as written, unquoted)
	Schema      string
	OrReplace   bool // CREATE OR REFRESH
	IfNotExists bool
	IfExists    bool              // DROP ... IF EXISTS
	Full        bool              // REFRESH ... FULL
	CopyOut     bool              // COPY (SUBSCRIBE TO x) TO STDOUT
	Options     map[string]string // WITH (k = v, ...): keys lower-case, values unquoted text
	// Emit is "" (not given), "window_close" or "update".
	Emit string
	// Query is the defining SELECT with every streaming clause removed, as
	// text pg_query can parse; QueryOffset is where it starts in the
	// original statement text (for error positions).
	Query       string
	QueryOffset int
	// Inputs lists each relation of the FROM clause that was marked STREAM
	// or given a WATERMARK clause, in order of appearance.
	Inputs []StreamInput
	// AnyStream is true when STREAM appeared anywhere (relations without it
	// are then static snapshots, as in Databricks).
	AnyStream bool
	// Window is the WINDOW clause (ksqlDB form) if present.
	Window *WindowSpec
	// Pos is the 1-based position of the statement's first token.
	Pos int
	// Spec is the Databricks DDL of CREATE STREAMING TABLE, CREATE FLOW
	// and ALTER STREAMING TABLE (streaming_ddl.go); nil for the others.
	Spec *TableSpec
	// Describe is DESCRIBE's, SHOW CREATE TABLE's and SHOW TBLPROPERTIES'
	// (describe_stmt.go).
	Describe *DescribeSpec
	// Sink is CREATE SINK's (sink_stmt.go).
	Sink *SinkSpec
	// Secret is CREATE SECRET's value (secret_stmt.go).
	Secret *SecretSpec
	// Mask is a column mask statement's clause (mask_stmt.go).
	Mask *MaskSpec

	// CREATE SOURCE: the column list's text without its WATERMARK FOR
	// element ("" when none was given), where it starts, and the
	// WATERMARK FOR element. DROP SOURCE: every name (Names), and CASCADE.
	SourceColumns    string
	SourceColumnsPos int
	Watermark        *WatermarkSpec
	Names            []QualifiedName
	Cascade          bool
}

// QualifiedName is a [schema.]name as written (unquoted).
type QualifiedName struct{ Schema, Name string }

// StreamInput is a relation read as a stream.
type StreamInput struct {
	Name   string // relation name as written (unquoted; may be schema-qualified)
	Alias  string // alias if given
	Stream bool   // marked STREAM
	// Func is true when the input is a table function call written after
	// STREAM (STREAM read_files('landing/clicks', format => 'json')); Name
	// is then the function's name.
	Func bool
	// Watermark is set when the FROM item carries a WATERMARK clause.
	Watermark *WatermarkSpec
}

// WatermarkSpec is "WATERMARK expr [AS name] DELAY OF INTERVAL ...".
type WatermarkSpec struct {
	// Expr is the event-time expression as SQL text ("event_time",
	// "to_timestamp(ts_text)"); Column is the name it is known by (the
	// column itself, or the AS name).
	Expr   string
	Column string
	Delay  time.Duration
	Pos    int // 1-based position of WATERMARK
}

// WindowKind is tumbling, hopping or session.
type WindowKind int

const (
	Tumbling WindowKind = iota + 1
	Hopping
	Session
)

// WindowSpec is a window over event time, from the WINDOW clause, the
// TUMBLE/HOP/SESSION table functions or Spark's window()/session_window().
type WindowSpec struct {
	Kind  WindowKind
	Size  time.Duration // tumbling and hopping width
	Slide time.Duration // hopping advance
	Gap   time.Duration // session gap
	// TimeColumn names the event-time column (for the WINDOW clause: the
	// watermark column of the input).
	TimeColumn string
	Pos        int
}

var _ = pg_query.Scan
