package parse

import (
	"strings"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Databricks' streaming-table DDL (dialect.md, "Databricks DDL"):
//
//	CREATE [OR REFRESH] [PRIVATE] STREAMING [LIVE] TABLE [IF NOT EXISTS] name
//	  [ ( column type [NOT NULL | PRIMARY KEY | GENERATED ALWAYS AS (expr) | COMMENT 'c'] [, ...]
//	      [, CONSTRAINT n EXPECT (cond) [ON VIOLATION {DROP ROW | FAIL UPDATE}]] [, ...]
//	      [, [CONSTRAINT n] PRIMARY KEY (col [, ...])] ) ]
//	  [ COMMENT 'c' | TBLPROPERTIES (k = v, ...) | PARTITIONED BY (col, ...) | CLUSTER BY (col, ...)
//	  | SCHEDULE [REFRESH] {EVERY n {HOUR|HOURS|DAY|DAYS|WEEK|WEEKS} | CRON 'q' [AT TIME ZONE 'tz']}
//	  | TRIGGER ON UPDATE [AT MOST EVERY interval] | WITH (weir options) ] ...
//	  [ AS query | FLOW INSERT BY NAME query ]
//	CREATE [OR REFRESH] FLOW name [COMMENT 'c'] AS INSERT {INTO ONCE | ONCE INTO | INTO} target BY NAME query
//	ALTER STREAMING TABLE name { {ADD | ALTER} SCHEDULE ... | {ADD | ALTER} TRIGGER ON UPDATE ...
//	  | DROP SCHEDULE | SET TBLPROPERTIES (k = v, ...) | UNSET TBLPROPERTIES [IF EXISTS] (k, ...) }
//
// The clauses come back typed in StreamingStmt.Spec; the query, as for
// every streaming statement, in Query. Row filters and column masks are
// parsed and refused with 0A000: they are access control, which weir does
// not have yet.

// The statement kinds of this file (numbered apart from streaming.go's so
// that the two lists grow without touching each other).
const (
	CreateFlow          StreamingKind = 100 + iota // CREATE FLOW name AS INSERT INTO target BY NAME query
	AlterStreamingTable                            // ALTER STREAMING TABLE name ...
	DropFlow                                       // DROP FLOW [IF EXISTS] name (flows.go)
)

// TableSpec is what CREATE STREAMING TABLE, CREATE FLOW and ALTER
// STREAMING TABLE say beyond the query.
type TableSpec struct {
	Live bool // CREATE ... STREAMING LIVE TABLE (the legacy spelling)
	// Private is CREATE PRIVATE STREAMING TABLE: in a Databricks pipeline,
	// a table only the pipeline sees.
	Private bool
	// HasColumns is true when a column list was given (it may hold only
	// expectations, in which case Columns is empty).
	HasColumns   bool
	Columns      []ColumnSpec
	PrimaryKey   []string
	Expectations []Expectation
	Comment      *string
	Properties   []Property
	// PartitionedBy and ClusterBy name columns; ClusterBy is ["auto"]
	// for CLUSTER BY AUTO and empty for CLUSTER BY NONE.
	PartitionedBy []string
	ClusterBy     []string
	Schedule      *Schedule
	// NoQuery is true for a table declared without a query, which flows
	// fill (CREATE OR REFRESH STREAMING TABLE users;).
	NoQuery bool

	// CREATE FLOW: the flow's name, its target and ONCE.
	Flow       string
	FlowTarget QualifiedName
	FlowOnce   bool
	// CDC is set for an AUTO CDC (APPLY CHANGES) flow (auto_cdc.go).
	CDC *AutoCDC
	// ChangelogTable is the 'schema.table' of CREATE TABLE t (...) FROM
	// source TABLE 'schema.table' (changelog_table.go), "" otherwise.
	ChangelogTable string
	// TableFlow is CREATE STREAMING TABLE t [clauses] FLOW AUTO CDC ...:
	// the table and its own AUTO CDC flow, named after it.
	TableFlow bool

	// ALTER STREAMING TABLE: what to do ("add schedule", "alter schedule",
	// "drop schedule", "set tblproperties", "unset tblproperties", "enable
	// row level security", "disable …", "force …", "no force …"), and for
	// UNSET the keys (in Properties, values empty) and IF EXISTS.
	Alter         string
	AlterIfExists bool
}

func (s *TableSpec) empty() bool {
	return !s.Live && !s.Private && !s.HasColumns && s.Comment == nil && s.Properties == nil && s.PartitionedBy == nil &&
		s.ClusterBy == nil && s.Schedule == nil && !s.NoQuery
}

// ColumnSpec is one column of a declared column list.
type ColumnSpec struct {
	Name string
	// Type is the type as written ("int", "STRING", "decimal(10, 2)").
	Type       string
	NotNull    bool
	PrimaryKey bool
	// Generated is the expression of GENERATED ALWAYS AS (expr), as
	// written; "" for an ordinary column.
	Generated string
	Comment   string
	Pos       int // 1-based position of the column name
	// Mask is the column's MASK clause (mask_stmt.go); nil if none.
	Mask *MaskSpec
}

// Expectation is CONSTRAINT name EXPECT (condition) [ON VIOLATION ...].
type Expectation struct {
	Name string
	Expr string // the condition as written
	// OnViolation is "" (keep the row and count it), "drop row" or
	// "fail update".
	OnViolation string
}

// Property is one TBLPROPERTIES entry; keys keep their case, as in Spark.
type Property struct{ Key, Value string }

// Schedule is SCHEDULE [REFRESH] ... or TRIGGER ON UPDATE.
type Schedule struct {
	// Kind is "every", "cron" or "on update".
	Kind string
	// Every and Unit: SCHEDULE EVERY 2 HOURS is 2, "hour" (unit singular).
	Every int
	Unit  string
	// Cron is the Quartz cron string, TimeZone its AT TIME ZONE ("" for the
	// session's).
	Cron     string
	TimeZone string
	// AtMostEvery is TRIGGER ON UPDATE's AT MOST EVERY interval (0: none).
	AtMostEvery time.Duration
	Pos         int
}

// Interval is how often an EVERY schedule runs.
func (s *Schedule) Interval() time.Duration {
	if s == nil || s.Kind != "every" {
		return 0
	}
	d := time.Hour
	switch s.Unit {
	case "day":
		d = 24 * time.Hour
	case "week":
		d = 7 * 24 * time.Hour
	}
	return time.Duration(s.Every) * d
}

// String is the schedule as Databricks writes it.
func (s *Schedule) String() string {
	switch s.Kind {
	case "every":
		u := strings.ToUpper(s.Unit)
		if s.Every != 1 {
			u += "S"
		}
		return "EVERY " + itoa(s.Every) + " " + u
	case "cron":
		out := "CRON '" + strings.ReplaceAll(s.Cron, "'", "''") + "'"
		if s.TimeZone != "" {
			out += " AT TIME ZONE '" + strings.ReplaceAll(s.TimeZone, "'", "''") + "'"
		}
		return out
	}
	out := "TRIGGER ON UPDATE"
	if s.AtMostEvery > 0 {
		out += " AT MOST EVERY INTERVAL '" + formatDuration(s.AtMostEvery) + "'"
	}
	return out
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

// createStreamingAt reports whether CREATE [OR REFRESH|REPLACE] STREAMING
// [LIVE] TABLE starts at i, and where the token after TABLE is.
func (p *stmtParser) createStreamingAt(i int) (next int, live, ok bool) {
	if !p.isWord(i, "create") {
		return i, false, false
	}
	i++
	if p.isWord(i, "or") && (p.isWord(i+1, "refresh") || p.isWord(i+1, "replace")) {
		i += 2
	}
	if p.isWord(i, "private") && p.isWord(i+1, "streaming") {
		i++ // CREATE PRIVATE STREAMING TABLE (pipelines); create reads it
	}
	if !p.isWord(i, "streaming") {
		return i, false, false
	}
	i++
	if p.isWord(i, "live") {
		live = true
		i++
	}
	if !p.is(i, pg_query.Token_TABLE) {
		return i, false, false
	}
	return i + 1, live, true
}

// tableSpec reads the ( columns, expectations, constraints ) list at the
// '(' i and returns the index after its ')'.
func (p *stmtParser) tableSpec(spec *TableSpec, i int) (int, error) {
	close := p.matchParen(i)
	if close < 0 {
		return i, p.errAtH(sqlerr.SyntaxError, i, "syntax error: missing ) after the column list")
	}
	spec.HasColumns = true
	j := i + 1
	if j == close {
		return j, p.errAtH(sqlerr.SyntaxError, j, "syntax error at or near %s: expected a column definition or CONSTRAINT name EXPECT (condition)", p.describe(j))
	}
	for j < close {
		var err error
		switch {
		case p.isWord(j, "constraint") && p.isWord(j+2, "primary") || p.isWord(j, "primary"):
			j, err = p.tablePrimaryKey(spec, j)
		case p.isWord(j, "constraint"):
			j, err = p.expectation(spec, j, close)
		case p.isWord(j, "foreign") || p.isWord(j, "check") || p.isWord(j, "unique"):
			return j, p.errAtH(sqlerr.FeatureNotSupported, j, "%s constraints are not supported on streaming tables", constraintWord(p.word(j))).
				WithHint("Check data quality with CONSTRAINT name EXPECT (condition).")
		case p.nameLike(j) || p.at(j).kind == pg_query.Token_IDENT:
			j, err = p.columnSpec(spec, j, close)
		default:
			return j, p.errAtH(sqlerr.SyntaxError, j, "syntax error at or near %s: expected a column definition or CONSTRAINT name EXPECT (condition)", p.describe(j))
		}
		if err != nil {
			return j, err
		}
		if p.is(j, tokComma) && j+1 < close {
			j++
		} else if j != close {
			return j, p.errAtH(sqlerr.SyntaxError, j, "syntax error at or near %s: expected , or ) in the column list", p.describe(j))
		}
	}
	return close + 1, nil
}

const expectationSyntax = "syntax error in expectation at or near %s: expected CONSTRAINT name EXPECT (condition) [ON VIOLATION DROP ROW | FAIL UPDATE]"

// expectation reads CONSTRAINT name EXPECT (cond) [ON VIOLATION ...] at j.
func (p *stmtParser) expectation(spec *TableSpec, j, close int) (int, error) {
	if !p.nameLike(j+1) || !p.isWord(j+2, "expect") || !p.is(j+3, tokLParen) {
		k := j + 1
		switch {
		case !p.nameLike(j + 1):
		case !p.isWord(j+2, "expect"):
			k = j + 2
		default:
			k = j + 3
		}
		return k, p.errAtH(sqlerr.SyntaxError, k, expectationSyntax, p.describe(k))
	}
	ec := p.matchParen(j + 3)
	if ec < 0 || ec > close || ec == j+4 {
		return j + 3, p.errAtH(sqlerr.SyntaxError, j+3, expectationSyntax, p.describe(j+3))
	}
	e := Expectation{Name: identValue(p.at(j + 1).text), Expr: p.text(j+4, ec)}
	for _, old := range spec.Expectations {
		if old.Name == e.Name {
			return j + 1, p.errAtH(sqlerr.DuplicateObject, j+1, "expectation \"%s\" is defined more than once", e.Name)
		}
	}
	k := ec + 1
	if p.isWord(k, "on") {
		switch {
		case p.isWord(k+1, "violation") && p.isWord(k+2, "drop") && p.isWord(k+3, "row"):
			e.OnViolation = "drop row"
		case p.isWord(k+1, "violation") && p.isWord(k+2, "fail") && p.isWord(k+3, "update"):
			e.OnViolation = "fail update"
		default:
			return k, p.errAtH(sqlerr.SyntaxError, k, expectationSyntax, p.describe(k))
		}
		k += 4
	}
	spec.Expectations = append(spec.Expectations, e)
	return k, nil
}

// tablePrimaryKey reads [CONSTRAINT name] PRIMARY KEY (col, ...) at j.
func (p *stmtParser) tablePrimaryKey(spec *TableSpec, j int) (int, error) {
	start := j
	if p.isWord(j, "constraint") {
		j += 2
	}
	if !p.isWord(j, "primary") || !p.isWord(j+1, "key") || !p.is(j+2, tokLParen) {
		return j, p.errAtH(sqlerr.SyntaxError, j, "syntax error at or near %s: expected PRIMARY KEY (column [, ...])", p.describe(j))
	}
	cols, next, err := p.nameList(j + 2)
	if err != nil {
		return next, err
	}
	if spec.PrimaryKey != nil {
		return start, p.errAtH(sqlerr.InvalidTableDefinition, start, "multiple primary keys are not allowed")
	}
	spec.PrimaryKey = cols
	return next, nil
}

// nameList reads ( name [, ...] ) at the '(' i.
func (p *stmtParser) nameList(i int) ([]string, int, error) {
	close := p.matchParen(i)
	if close < 0 {
		return nil, i, p.errAtH(sqlerr.SyntaxError, i, "syntax error: missing ) after the column names")
	}
	var out []string
	j := i + 1
	for j < close {
		if !p.labelLike(j) {
			return nil, j, p.errAtH(sqlerr.SyntaxError, j, "syntax error at or near %s: expected a column name", p.describe(j))
		}
		out = append(out, identValue(p.at(j).text))
		j++
		if p.is(j, tokComma) && j+1 < close {
			j++
		} else if j != close {
			return nil, j, p.errAtH(sqlerr.SyntaxError, j, "syntax error at or near %s: expected , or ) after a column name", p.describe(j))
		}
	}
	if len(out) == 0 {
		return nil, j, p.errAtH(sqlerr.SyntaxError, j, "syntax error at or near %s: expected a column name", p.describe(j))
	}
	return out, close + 1, nil
}

// columnProperty reports whether token j starts a column property (which
// ends the column's type).
func (p *stmtParser) columnProperty(j int) bool {
	switch p.word(j) {
	case "not", "null", "primary", "generated", "comment", "mask", "default", "constraint", "references", "check", "unique":
		return true
	}
	return false
}

// columnSpec reads one column definition at j (inside a list closing at
// close).
func (p *stmtParser) columnSpec(spec *TableSpec, j, close int) (int, error) {
	c := ColumnSpec{Name: identValue(p.at(j).text), Pos: p.pos(j)}
	for _, old := range spec.Columns {
		if old.Name == c.Name {
			return j, p.errAtH(sqlerr.DuplicateColumn, j, "column \"%s\" specified more than once", c.Name)
		}
	}
	j++
	// The type runs to the first property or the , or ) ending the
	// column, minding ( ) and < > (DECIMAL(10, 2), STRUCT<a: INT, b: INT>).
	start, depth, angle := j, 0, 0
	for j < close || depth > 0 {
		t := p.at(j)
		if j >= len(p.toks) {
			break
		}
		if depth == 0 && angle == 0 && (t.kind == tokComma || p.columnProperty(j)) {
			break
		}
		switch {
		case t.kind == tokLParen:
			depth++
		case t.kind == tokRParen:
			depth--
		case t.text == "<":
			angle++
		case t.text == ">":
			angle--
		case t.text == ">>":
			angle -= 2
		}
		j++
	}
	if j == start {
		return j, p.errAtH(sqlerr.SyntaxError, j, "syntax error at or near %s: expected a type for column %s", p.describe(j), c.Name)
	}
	c.Type = p.text(start, j)
	for j < close && !p.is(j, tokComma) {
		switch {
		case p.isWord(j, "not") && p.isWord(j+1, "null"):
			c.NotNull = true
			j += 2
		case p.isWord(j, "null"):
			j++
		case p.isWord(j, "primary") && p.isWord(j+1, "key"):
			c.PrimaryKey, c.NotNull = true, true
			j += 2
		case p.isWord(j, "constraint") && p.nameLike(j+1) && p.isWord(j+2, "primary") && p.isWord(j+3, "key"):
			c.PrimaryKey, c.NotNull = true, true
			j += 4
		case p.isWord(j, "comment"):
			if p.at(j+1).kind != pg_query.Token_SCONST {
				return j + 1, p.errAtH(sqlerr.SyntaxError, j+1, "syntax error at or near %s: expected a string after COMMENT", p.describe(j+1))
			}
			c.Comment, _ = stringValue(p.at(j + 1).text)
			j += 2
		case p.isWord(j, "generated"):
			k := j + 1
			if p.isWord(k, "by") && p.isWord(k+1, "default") {
				k += 2
			} else if p.isWord(k, "always") {
				k++
			}
			if !p.isWord(k, "as") {
				return k, p.errAtH(sqlerr.SyntaxError, k, "syntax error at or near %s: expected GENERATED ALWAYS AS (expression)", p.describe(k))
			}
			if p.isWord(k+1, "identity") {
				return j, p.errAtH(sqlerr.FeatureNotSupported, j, "identity columns are not supported on streaming tables").
					WithHint("Compute the key in the query, e.g. from the event's own id.")
			}
			if !p.isWord(j+1, "always") || !p.is(k+1, tokLParen) {
				return k + 1, p.errAtH(sqlerr.SyntaxError, k+1, "syntax error at or near %s: expected GENERATED ALWAYS AS (expression)", p.describe(k+1))
			}
			ec := p.matchParen(k + 1)
			if ec < 0 || ec == k+2 {
				return k + 1, p.errAtH(sqlerr.SyntaxError, k+1, "syntax error at or near %s: expected GENERATED ALWAYS AS (expression)", p.describe(k+1))
			}
			c.Generated = p.text(k+2, ec)
			j = ec + 1
		case p.isWord(j, "mask"):
			m, next, err := p.maskClause(j, close) // mask_stmt.go
			if err != nil {
				return j, err
			}
			m.Column, c.Mask = c.Name, m
			j = next
		case p.isWord(j, "references") || p.isWord(j, "check") || p.isWord(j, "unique"):
			return j, p.errAtH(sqlerr.FeatureNotSupported, j, "%s constraints are not supported on streaming tables", constraintWord(p.word(j))).
				WithHint("Check data quality with CONSTRAINT name EXPECT (condition).")
		case p.isWord(j, "default"):
			return j, p.errAtH(sqlerr.FeatureNotSupported, j, "DEFAULT is not supported on streaming table columns: the query gives every column").
				WithHint("Use GENERATED ALWAYS AS (expression), or coalesce() in the query.")
		default:
			return j, p.errAtH(sqlerr.SyntaxError, j, "syntax error at or near %s: expected NOT NULL, PRIMARY KEY, GENERATED ALWAYS AS, COMMENT, , or )", p.describe(j))
		}
	}
	if c.PrimaryKey {
		if spec.PrimaryKey != nil {
			return j, sqlerr.At(sqlerr.InvalidTableDefinition, c.Pos, "multiple primary keys are not allowed")
		}
		spec.PrimaryKey = []string{c.Name}
	}
	spec.Columns = append(spec.Columns, c)
	return j, nil
}

// text is the statement text of tokens [from, to).
func (p *stmtParser) text(from, to int) string {
	if to <= from {
		return ""
	}
	return p.sql[p.toks[from].start:p.toks[to-1].end]
}

// tableClause reads one table clause at i; ok is false when i does not
// start one.
func (p *stmtParser) tableClause(st *StreamingStmt, spec *TableSpec, i int) (next int, ok bool, err error) {
	switch {
	case p.isWord(i, "with") && p.isWord(i+1, "row") && p.isWord(i+2, "filter"):
		return i, true, p.errAtH(sqlerr.FeatureNotSupported, i, "row filters are not supported yet: they need privileges, which weir does not have").
			WithHint("Leave the ROW FILTER clause out, or filter the rows in the query.")
	case p.isWord(i, "with"):
		if !p.is(i+1, tokLParen) {
			return i, true, p.errAtH(sqlerr.SyntaxError, i+1, "syntax error in WITH clause: expected WITH ( option = value [, ...] )")
		}
		next, err = p.options(st, i+1)
		return next, true, err
	case p.isWord(i, "comment"):
		if p.at(i+1).kind != pg_query.Token_SCONST {
			return i, true, p.errAtH(sqlerr.SyntaxError, i+1, "syntax error at or near %s: expected a string after COMMENT", p.describe(i+1))
		}
		if spec.Comment != nil {
			return i, true, p.errAtH(sqlerr.SyntaxError, i, "COMMENT given more than once")
		}
		c, _ := stringValue(p.at(i + 1).text)
		spec.Comment = &c
		return i + 2, true, nil
	case p.isWord(i, "tblproperties"):
		if spec.Properties != nil {
			return i, true, p.errAtH(sqlerr.SyntaxError, i, "TBLPROPERTIES given more than once")
		}
		next, err = p.tblProperties(spec, i+1, true)
		return next, true, err
	case p.isWord(i, "partitioned") && p.isWord(i+1, "by"):
		if !p.is(i+2, tokLParen) {
			return i, true, p.errAtH(sqlerr.SyntaxError, i+2, "syntax error at or near %s: expected PARTITIONED BY (column [, ...])", p.describe(i+2))
		}
		spec.PartitionedBy, next, err = p.nameList(i + 2)
		return next, true, err
	case p.isWord(i, "cluster") && p.isWord(i+1, "by"):
		switch {
		case p.isWord(i+2, "auto"):
			spec.ClusterBy = []string{"auto"}
			return i + 3, true, nil
		case p.isWord(i+2, "none"):
			spec.ClusterBy = []string{}
			return i + 3, true, nil
		case !p.is(i+2, tokLParen):
			return i, true, p.errAtH(sqlerr.SyntaxError, i+2, "syntax error at or near %s: expected CLUSTER BY (column [, ...]) | AUTO | NONE", p.describe(i+2))
		}
		spec.ClusterBy, next, err = p.nameList(i + 2)
		return next, true, err
	case p.isWord(i, "schedule") || p.isWord(i, "trigger") && p.isWord(i+1, "on"):
		if spec.Schedule != nil {
			return i, true, p.errAtH(sqlerr.SyntaxError, i, "only one SCHEDULE or TRIGGER ON UPDATE clause is allowed")
		}
		spec.Schedule, next, err = p.schedule(i)
		return next, true, err
	case p.isWord(i, "default") && p.isWord(i+1, "collation"):
		if !p.isWord(i+2, "utf8_binary") {
			return i, true, p.errAtH(sqlerr.FeatureNotSupported, i+2, "only DEFAULT COLLATION UTF8_BINARY is supported")
		}
		return i + 3, true, nil
	case p.isWord(i, "using"):
		if !p.isWord(i+1, "delta") {
			return i, true, p.errAtH(sqlerr.FeatureNotSupported, i+1, "streaming tables are stored by weir: USING %s is not supported", p.describe(i+1)).
				WithHint("Leave USING out (USING DELTA is accepted and means the same).")
		}
		return i + 2, true, nil
	case p.isWord(i, "location"):
		return i, true, p.errAtH(sqlerr.FeatureNotSupported, i, "LOCATION is not supported: weir keeps a streaming table in its own store").
			WithHint("Leave LOCATION out; write the table out with a sink.")
	}
	return i, false, nil
}

// tblProperties reads ( key = value [, ...] ) at the '(' i; withValues is
// false for UNSET TBLPROPERTIES (key, ...).
func (p *stmtParser) tblProperties(spec *TableSpec, i int, withValues bool) (int, error) {
	if !p.is(i, tokLParen) {
		return i, p.errAtH(sqlerr.SyntaxError, i, "syntax error at or near %s: expected TBLPROPERTIES ( key = value [, ...] )", p.describe(i))
	}
	close := p.matchParen(i)
	if close < 0 {
		return i, p.errAtH(sqlerr.SyntaxError, i, "syntax error in TBLPROPERTIES: missing )")
	}
	spec.Properties = []Property{}
	j := i + 1
	for j < close {
		var key string
		switch {
		case p.at(j).kind == pg_query.Token_SCONST:
			key, _ = stringValue(p.at(j).text)
			j++
		case p.labelLike(j):
			// Unquoted keys keep their case (delta.appendOnly).
			parts := []string{unquoteKeepCase(p.at(j).text)}
			j++
			for p.is(j, tokDot) && p.labelLike(j+1) {
				parts = append(parts, unquoteKeepCase(p.at(j+1).text))
				j += 2
			}
			key = strings.Join(parts, ".")
		default:
			return j, p.errAtH(sqlerr.SyntaxError, j, "syntax error in TBLPROPERTIES at or near %s: expected key = value", p.describe(j))
		}
		for _, old := range spec.Properties {
			if old.Key == key {
				return j, p.errAtH(sqlerr.SyntaxError, j-1, "property %s given more than once", key)
			}
		}
		var value string
		if withValues {
			if p.is(j, tokEquals) {
				j++
			}
			start := j
			for j < close && !p.is(j, tokComma) {
				j++
			}
			if j == start {
				return j, p.errAtH(sqlerr.SyntaxError, j, "syntax error in TBLPROPERTIES at or near %s: expected a value for property %s", p.describe(j), key)
			}
			value = p.propertyValue(start, j)
		}
		spec.Properties = append(spec.Properties, Property{Key: key, Value: value})
		if p.is(j, tokComma) {
			j++
			if j == close {
				return j, p.errAtH(sqlerr.SyntaxError, j, "syntax error in TBLPROPERTIES at or near %s: expected key = value", p.describe(j))
			}
		} else if j != close {
			return j, p.errAtH(sqlerr.SyntaxError, j, "syntax error in TBLPROPERTIES at or near %s: expected , or )", p.describe(j))
		}
	}
	return close + 1, nil
}

// propertyValue is a value as Spark reads it: a quoted string (single or
// double quotes) unquoted, anything else as written.
func (p *stmtParser) propertyValue(from, to int) string {
	if to == from+1 {
		t := p.toks[from]
		if t.kind == pg_query.Token_SCONST {
			v, _ := stringValue(t.text)
			return v
		}
		return unquoteKeepCase(t.text)
	}
	return p.sql[p.toks[from].start:p.toks[to-1].end]
}

func unquoteKeepCase(text string) string {
	if len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
		return strings.ReplaceAll(text[1:len(text)-1], `""`, `"`)
	}
	return text
}

// schedule reads SCHEDULE [REFRESH] {EVERY ... | CRON ...} or TRIGGER ON
// UPDATE [AT MOST EVERY interval] at i.
func (p *stmtParser) schedule(i int) (*Schedule, int, error) {
	s := &Schedule{Pos: p.pos(i)}
	if p.isWord(i, "trigger") {
		if !p.isWord(i+1, "on") || !p.isWord(i+2, "update") {
			return nil, i, p.errAtH(sqlerr.SyntaxError, i+1, "syntax error at or near %s: expected TRIGGER ON UPDATE [AT MOST EVERY interval]", p.describe(i+1))
		}
		s.Kind = "on update"
		j := i + 3
		if p.isWord(j, "at") {
			if !p.isWord(j+1, "most") || !p.isWord(j+2, "every") {
				return nil, j, p.errAtH(sqlerr.SyntaxError, j, "syntax error at or near %s: expected AT MOST EVERY interval", p.describe(j))
			}
			lit, ok := p.interval(j + 3)
			if !ok {
				return nil, j + 3, p.errAtH(sqlerr.SyntaxError, j+3, "syntax error at or near %s: expected an interval after AT MOST EVERY (INTERVAL 5 MINUTES)", p.describe(j+3))
			}
			if lit.calendar || lit.d <= 0 {
				return nil, j + 3, p.errAtH(sqlerr.InvalidParameterValue, j+3, "AT MOST EVERY must be a positive interval of fixed length")
			}
			if lit.d < time.Minute {
				return nil, j + 3, p.errAtH(sqlerr.InvalidParameterValue, j+3, "AT MOST EVERY must be at least 1 minute, as in Databricks")
			}
			s.AtMostEvery = lit.d
			j = lit.next
		}
		return s, j, nil
	}
	j := i + 1
	if p.isWord(j, "refresh") {
		j++
	}
	switch {
	case p.isWord(j, "every"):
		s.Kind = "every"
		if p.at(j+1).kind != pg_query.Token_ICONST {
			return nil, j + 1, p.errAtH(sqlerr.SyntaxError, j+1, "syntax error at or near %s: expected SCHEDULE EVERY number {HOURS | DAYS | WEEKS}", p.describe(j+1))
		}
		n := 0
		for _, ch := range p.at(j + 1).text {
			n = n*10 + int(ch-'0')
			if n > 1000 {
				break
			}
		}
		u := strings.TrimSuffix(p.word(j+2), "s")
		limit := map[string]int{"hour": 72, "day": 31, "week": 8}[u]
		if limit == 0 {
			return nil, j + 2, p.errAtH(sqlerr.SyntaxError, j+2, "syntax error at or near %s: expected HOUR, HOURS, DAY, DAYS, WEEK or WEEKS", p.describe(j+2))
		}
		if n < 1 || n > limit {
			return nil, j + 1, p.errAtH(sqlerr.InvalidParameterValue, j+1, "SCHEDULE EVERY %s %s is out of range: the number of %ss must be between 1 and %d", p.at(j+1).text, strings.ToUpper(p.word(j+2)), u, limit)
		}
		s.Every, s.Unit = n, u
		return s, j + 3, nil
	case p.isWord(j, "cron"):
		s.Kind = "cron"
		if p.at(j+1).kind != pg_query.Token_SCONST {
			return nil, j + 1, p.errAtH(sqlerr.SyntaxError, j+1, "syntax error at or near %s: expected a quoted cron string after CRON", p.describe(j+1))
		}
		s.Cron, _ = stringValue(p.at(j + 1).text)
		if err := checkQuartzCron(s.Cron); err != nil {
			return nil, j + 1, p.errAtH(sqlerr.InvalidParameterValue, j+1, "invalid cron expression '%s': %s", s.Cron, err.Error()).
				WithHint("A Quartz cron string: seconds minutes hours day-of-month month day-of-week [year], e.g. '0 0/15 * * * ?'.")
		}
		k := j + 2
		if p.isWord(k, "at") {
			if !p.isWord(k+1, "time") || !p.isWord(k+2, "zone") || p.at(k+3).kind != pg_query.Token_SCONST {
				return nil, k, p.errAtH(sqlerr.SyntaxError, k, "syntax error at or near %s: expected AT TIME ZONE 'zone'", p.describe(k))
			}
			s.TimeZone, _ = stringValue(p.at(k + 3).text)
			k += 4
		}
		return s, k, nil
	}
	return nil, j, p.errAtH(sqlerr.SyntaxError, j, "syntax error at or near %s: expected SCHEDULE [REFRESH] EVERY n HOURS | CRON 'cron string'", p.describe(j))
}

// stripLive blanks the LIVE. prefix of the legacy Delta Live Tables
// spelling (FROM STREAM(LIVE.orders), FROM LIVE.orders) in tokens [from,
// end), keeping every position; it returns the statement to read on.
func (p *stmtParser) stripLive(from, end int) *stmtParser {
	b := []byte(p.sql)
	changed := false
	for j := from; j < end; j++ {
		if p.isWord(j, "live") && p.is(j+1, tokDot) && p.labelLike(j+2) && !p.is(j-1, tokDot) {
			for k := p.toks[j].start; k < p.toks[j+1].end; k++ {
				b[k] = ' '
			}
			changed = true
		}
	}
	if !changed {
		return p
	}
	toks, err := tokens(string(b))
	if err != nil {
		return p
	}
	return &stmtParser{tokenStream: &tokenStream{sql: string(b), toks: toks}}
}

// createFlow reads CREATE [OR REFRESH] FLOW name [COMMENT 'c'] AS INSERT
// INTO [ONCE] target BY NAME query (and INSERT ONCE INTO, as Databricks'
// newer pages write it), the flow's name at i.
func (p *stmtParser) createFlow(st *StreamingStmt, i int) error {
	spec := &TableSpec{}
	st.Spec = spec
	if !p.nameLike(i) {
		return p.errAtH(sqlerr.SyntaxError, i, "syntax error at or near %s: expected a flow name", p.describe(i))
	}
	spec.Flow = identValue(p.at(i).text)
	i++
	if p.isWord(i, "comment") {
		if p.at(i+1).kind != pg_query.Token_SCONST {
			return p.errAtH(sqlerr.SyntaxError, i+1, "syntax error at or near %s: expected a string after COMMENT", p.describe(i+1))
		}
		c, _ := stringValue(p.at(i + 1).text)
		spec.Comment = &c
		i += 2
	}
	if !p.is(i, pg_query.Token_AS) {
		return p.errAtH(sqlerr.SyntaxError, i, "syntax error at or near %s: expected AS INSERT INTO target BY NAME query", p.describe(i))
	}
	i++
	if (p.isWord(i, "auto") && p.isWord(i+1, "cdc") || p.isWord(i, "apply") && p.isWord(i+1, "changes")) && p.isWord(i+2, "into") {
		return p.autoCDC(st, spec, i) // auto_cdc.go
	}
	switch {
	case p.isWord(i, "insert") && p.isWord(i+1, "once") && p.isWord(i+2, "into"):
		spec.FlowOnce = true
		i += 3
	case p.isWord(i, "insert") && p.isWord(i+1, "into"):
		i += 2
	default:
		return p.errAtH(sqlerr.SyntaxError, i, "syntax error at or near %s: expected INSERT INTO target BY NAME query", p.describe(i))
	}
	if p.isWord(i, "once") {
		spec.FlowOnce = true
		i++
	}
	parts, next, ok := p.qualifiedName(i)
	if !ok {
		return p.errAtH(sqlerr.SyntaxError, i, "syntax error at or near %s: expected the flow's target table", p.describe(i))
	}
	spec.FlowTarget.Name = parts[len(parts)-1]
	if len(parts) >= 2 {
		spec.FlowTarget.Schema = parts[len(parts)-2]
	}
	st.Name, st.Schema = spec.FlowTarget.Name, spec.FlowTarget.Schema
	i = next
	// BY NAME is how Databricks writes it; its examples also leave it out.
	if p.isWord(i, "by") && p.isWord(i+1, "name") {
		i += 2
	} else if p.is(i, tokLParen) {
		return p.errAtH(sqlerr.FeatureNotSupported, i, "a column list in a flow's INSERT INTO is not supported: flows insert BY NAME").
			WithHint("Name the query's columns as the target's (SELECT x AS col, ...).")
	}
	end := p.end()
	if i >= end {
		return p.errAtH(sqlerr.SyntaxError, i, "syntax error at or near %s: expected the flow's query", p.describe(i))
	}
	return p.query(st, i, end)
}

// alterStreaming reads ALTER STREAMING TABLE name {ADD | ALTER} SCHEDULE
// ... | {ADD | ALTER} TRIGGER ON UPDATE ... | DROP SCHEDULE | SET
// TBLPROPERTIES (...) | UNSET TBLPROPERTIES [IF EXISTS] (...).
func (p *stmtParser) alterStreaming(st *StreamingStmt) error {
	spec := &TableSpec{}
	st.Spec = spec
	i, err := p.name(st, 3)
	if err != nil {
		return err
	}
	switch {
	case (p.isWord(i, "add") || p.isWord(i, "alter")) && (p.isWord(i+1, "schedule") || p.isWord(i+1, "trigger")):
		spec.Alter = p.word(i) + " schedule"
		spec.Schedule, i, err = p.schedule(i + 1)
	case p.isWord(i, "drop") && (p.isWord(i+1, "schedule") || p.isWord(i+1, "trigger")):
		spec.Alter = "drop schedule"
		i += 2
	case p.isWord(i, "set") && p.isWord(i+1, "tblproperties"):
		spec.Alter = "set tblproperties"
		i, err = p.tblProperties(spec, i+2, true)
	case p.isWord(i, "unset") && p.isWord(i+1, "tblproperties"):
		spec.Alter = "unset tblproperties"
		i += 2
		if p.isWord(i, "if") && p.isWord(i+1, "exists") {
			spec.AlterIfExists = true
			i += 2
		}
		i, err = p.tblProperties(spec, i, false)
	case (p.isWord(i, "enable") || p.isWord(i, "disable") || p.isWord(i, "force")) && p.isWord(i+1, "row") &&
		p.isWord(i+2, "level") && p.isWord(i+3, "security"):
		// Row-level security, as ALTER TABLE has it (engine/row_security_ddl.go).
		spec.Alter = p.word(i) + " row level security"
		i += 4
	case p.isWord(i, "no") && p.isWord(i+1, "force") && p.isWord(i+2, "row") && p.isWord(i+3, "level") && p.isWord(i+4, "security"):
		spec.Alter = "no force row level security"
		i += 5
	case p.isWord(i, "set") && p.isWord(i+1, "row") || p.isWord(i, "drop") && p.isWord(i+1, "row") ||
		p.isWord(i, "alter") && p.isWord(i+1, "column") && p.isWord(i+3, "set") && p.isWord(i+4, "mask"):
		return p.errAtH(sqlerr.FeatureNotSupported, i, "row filters and column masks are not supported yet: they need privileges, which weir does not have")
	default:
		return p.errAtH(sqlerr.SyntaxError, i, "syntax error at or near %s: expected ADD SCHEDULE, ALTER SCHEDULE, DROP SCHEDULE, SET TBLPROPERTIES or UNSET TBLPROPERTIES", p.describe(i))
	}
	if err != nil {
		return err
	}
	if i < p.end() {
		return p.errAtH(sqlerr.SyntaxError, i, "syntax error at or near %s: expected end of ALTER STREAMING TABLE", p.describe(i))
	}
	return nil
}

// errAtH is errAt as a *sqlerr.Error, for errors that carry a hint.
func (p *stmtParser) errAtH(code string, i int, format string, args ...any) *sqlerr.Error {
	return sqlerr.At(code, p.pos(i), format, args...)
}

// constraintWord names a PostgreSQL constraint by its keyword.
func constraintWord(w string) string {
	if w == "references" || w == "foreign" {
		return "FOREIGN KEY"
	}
	return strings.ToUpper(w)
}
