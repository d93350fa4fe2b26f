package parse

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Databricks' statements that show what a table is (dialect.md,
// "Describing tables"):
//
//	{DESC | DESCRIBE} [TABLE] [EXTENDED | FORMATTED] name [[db.][table.]column]
//	SHOW CREATE TABLE name
//	SHOW TBLPROPERTIES name [( key | 'key' )]
//
// name is [catalog.][schema.]table; the engine checks the catalog part
// against the current database. They are weir statements because
// PostgreSQL's grammar has none of them (psql's \d is queries on
// pg_catalog, which keep working).

// The statement kinds of this file (numbered apart from streaming.go's
// and streaming_ddl.go's).
const (
	DescribeTable     StreamingKind = 200 + iota // DESCRIBE [TABLE] [EXTENDED] name [column]
	ShowCreateTable                              // SHOW CREATE TABLE name
	ShowTblProperties                            // SHOW TBLPROPERTIES name [(key)]
)

// DescribeSpec is what DESCRIBE, SHOW CREATE TABLE and SHOW TBLPROPERTIES
// name.
type DescribeSpec struct {
	// Name is the relation's name as written, unquoted: one to three
	// parts (table; schema.table; catalog.schema.table).
	Name    []string
	NamePos int // 1-based position of the name
	// Extended is DESCRIBE EXTENDED (or FORMATTED).
	Extended bool
	// Column is DESCRIBE's column ("" for the whole table); ColumnQualifier
	// the parts written before it (db.table.column), to be checked
	// against the table.
	Column          string
	ColumnQualifier []string
	ColumnPos       int
	// Key is SHOW TBLPROPERTIES' key (HasKey: one was given); unquoted
	// keys keep their case, as in Spark.
	Key    string
	HasKey bool
}

// IsDescribe reports whether kind is one of this file's statements.
func IsDescribe(kind StreamingKind) bool {
	return kind == DescribeTable || kind == ShowCreateTable || kind == ShowTblProperties
}

// describeStatement reads the statements of this file. ok is false when
// the text is none of them.
func (p *stmtParser) describeStatement(st *StreamingStmt) (ok bool, err error) {
	switch {
	case p.isWord(0, "describe") || p.isWord(0, "desc"):
		st.Kind = DescribeTable
		return true, p.describeTable(st)
	case p.isWord(0, "show") && p.isWord(1, "create") && p.is(2, pg_query.Token_TABLE):
		st.Kind = ShowCreateTable
		spec := &DescribeSpec{}
		st.Describe = spec
		i, err := p.describedName(st, spec, 3)
		if err != nil {
			return true, err
		}
		if p.isWord(i, "as") && p.isWord(i+1, "serde") {
			return true, p.errAt(sqlerr.FeatureNotSupported, i, "SHOW CREATE TABLE ... AS SERDE is not supported: weir tables have no Hive SerDe")
		}
		return true, p.describeEnd(i, "SHOW CREATE TABLE name")
	case p.isWord(0, "show") && p.isWord(1, "tblproperties"):
		st.Kind = ShowTblProperties
		spec := &DescribeSpec{}
		st.Describe = spec
		i, err := p.describedName(st, spec, 2)
		if err != nil {
			return true, err
		}
		if p.is(i, tokLParen) {
			if i, err = p.propertyKey(spec, i); err != nil {
				return true, err
			}
		}
		return true, p.describeEnd(i, "SHOW TBLPROPERTIES name [(key)]")
	}
	return false, nil
}

// describeObjects are the things Databricks can DESCRIBE besides tables,
// with what weir offers instead.
var describeObjects = map[string]string{
	"function":   "psql's \\df name, or SELECT ... FROM pg_proc",
	"schema":     "psql's \\dn name, or SELECT ... FROM information_schema.schemata",
	"database":   "psql's \\l, or SELECT ... FROM pg_database",
	"catalog":    "psql's \\l, or SELECT ... FROM pg_database",
	"query":      "EXPLAIN query",
	"history":    "SELECT ... FROM weir_catalog.streaming_progress for a streaming table's progress",
	"detail":     "DESCRIBE EXTENDED name",
	"volume":     "tables (weir has no Unity Catalog volumes)",
	"location":   "tables (weir has no external locations)",
	"credential": "nothing: weir has no storage credentials",
	"connection": "nothing: weir has no Unity Catalog connections",
	"provider":   "nothing: weir has no Delta Sharing",
	"recipient":  "nothing: weir has no Delta Sharing",
	"share":      "nothing: weir has no Delta Sharing",
}

func (p *stmtParser) describeTable(st *StreamingStmt) error {
	spec := &DescribeSpec{}
	st.Describe = spec
	i := 1
	if instead, ok := describeObjects[p.word(i)]; ok && (p.nameLike(i+1) || p.at(i+1).kind == pg_query.Token_SCONST || p.isWord(i, "history") || p.isWord(i, "detail")) {
		return p.errAtH(sqlerr.FeatureNotSupported, i, "DESCRIBE %s is not supported", strings.ToUpper(p.word(i))).
			WithHint("Use " + instead + ".")
	}
	if p.is(i, pg_query.Token_TABLE) {
		i++
	}
	if (p.isWord(i, "extended") || p.isWord(i, "formatted")) && p.nameLike(i+1) {
		spec.Extended = true
		i++
	}
	i, err := p.describedName(st, spec, i)
	if err != nil {
		return err
	}
	if p.isWord(i, "partition") && p.is(i+1, tokLParen) {
		return p.errAtH(sqlerr.FeatureNotSupported, i, "DESCRIBE ... PARTITION is not supported: weir does not store rows by partition").
			WithHint("DESCRIBE EXTENDED name shows the PARTITIONED BY columns.")
	}
	if p.is(i, pg_query.Token_AS) && p.isWord(i+1, "json") {
		return p.errAtH(sqlerr.FeatureNotSupported, i, "DESCRIBE ... AS JSON is not supported").
			WithHint("DESCRIBE EXTENDED name returns the same facts as rows.")
	}
	if i < p.end() && p.nameLike(i) {
		parts, next, _ := p.qualifiedName(i)
		spec.ColumnPos = p.pos(i)
		spec.Column = parts[len(parts)-1]
		spec.ColumnQualifier = parts[:len(parts)-1]
		i = next
	}
	return p.describeEnd(i, "DESCRIBE [TABLE] [EXTENDED] name [column]")
}

// describedName reads the relation's name at i.
func (p *stmtParser) describedName(st *StreamingStmt, spec *DescribeSpec, i int) (int, error) {
	parts, next, ok := p.qualifiedName(i)
	if !ok {
		return i, p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected a table name", p.describe(i))
	}
	if p.is(next, tokDot) {
		return next, p.errAt(sqlerr.SyntaxError, next, "improper qualified name (too many dotted names): %s", p.sql[p.at(i).start:p.at(next+1).end])
	}
	spec.Name = parts
	spec.NamePos = p.pos(i)
	st.Name = parts[len(parts)-1]
	if len(parts) >= 2 {
		st.Schema = parts[len(parts)-2]
	}
	return next, nil
}

// propertyKey reads SHOW TBLPROPERTIES' ( key ) at the '(' i.
func (p *stmtParser) propertyKey(spec *DescribeSpec, i int) (int, error) {
	close := p.matchParen(i)
	if close < 0 {
		return i, p.errAt(sqlerr.SyntaxError, i, "syntax error in SHOW TBLPROPERTIES: missing )")
	}
	j := i + 1
	switch {
	case p.at(j).kind == pg_query.Token_SCONST:
		spec.Key, _ = stringValue(p.at(j).text)
		j++
	case p.labelLike(j):
		parts := []string{unquoteKeepCase(p.at(j).text)}
		j++
		for p.is(j, tokDot) && p.labelLike(j+1) {
			parts = append(parts, unquoteKeepCase(p.at(j+1).text))
			j += 2
		}
		spec.Key = strings.Join(parts, ".")
	default:
		return j, p.errAt(sqlerr.SyntaxError, j, "syntax error at or near %s: expected a property key", p.describe(j))
	}
	if j != close {
		return j, p.errAt(sqlerr.SyntaxError, j, "syntax error at or near %s: expected ) after the property key", p.describe(j))
	}
	spec.HasKey = true
	return close + 1, nil
}

// describeEnd requires the statement to end at i.
func (p *stmtParser) describeEnd(i int, form string) error {
	if i < p.end() {
		return p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected end of %s", p.describe(i), form)
	}
	return nil
}
