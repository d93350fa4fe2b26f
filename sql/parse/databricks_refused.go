package parse

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Databricks features weir does not have are refused by name, with what to
// use instead, rather than with the syntax error PostgreSQL's grammar
// would give. They are looked for only in texts that grammar rejected.

const loadFilesHint = "Load the files into an input table with COPY table FROM STDIN (psql: \\copy), and read the table (FROM STREAM table in a streaming table)."

// refusedFeature returns the 0A000 for a Databricks-only feature in sql,
// or nil.
func refusedFeature(sql string) error {
	toks, err := tokens(sql)
	if err != nil {
		return nil
	}
	ts := &tokenStream{sql: sql, toks: toks}
	refuse := func(i int, format string, args ...any) error {
		return sqlerr.At(sqlerr.FeatureNotSupported, ts.pos(i), format, args...).WithHint(loadFilesHint)
	}
	if ts.is(0, pg_query.Token_COPY) && ts.is(1, pg_query.Token_INTO) {
		return refuse(1, "COPY INTO is not supported")
	}
	for i, t := range toks {
		if t.kind == pg_query.Token_SCONST {
			prev := ts.word(i - 1)
			where := prev == "from" || prev == "location" || prev == "list" || ts.is(i-1, tokLParen)
			if v, ok := stringValue(t.text); ok && where && strings.HasPrefix(v, "/Volumes/") {
				return refuse(i, "Unity Catalog volumes are not supported: weir has no file system at %s", v)
			}
		}
		if t.kind == pg_query.Token_ASCII_91 && ts.is(i+1, pg_query.Token_ASCII_42) && ts.is(i+2, pg_query.Token_ASCII_93) {
			return sqlerr.At(sqlerr.FeatureNotSupported, ts.pos(i), "the JSON path step [*] (every array element) is not supported").
				WithHint("Use jsonb_path_query(raw::jsonb, '$.path[*]') for every element, or index one: raw:path[0].")
		}
		if strings.HasPrefix(t.text, "`") && ts.is(i-1, tokDot) && fileFormats[ts.word(i-2)] {
			return refuse(i-2, "querying files by path (%s.`path`) is not supported", ts.word(i-2))
		}
	}
	return nil
}

// fileFormats are the formats Databricks reads by path (json.`/path`).
var fileFormats = map[string]bool{"json": true, "csv": true, "parquet": true, "delta": true, "text": true,
	"avro": true, "orc": true, "binaryfile": true, "xml": true}

// backtickNames turns Databricks' `quoted names` into PostgreSQL's
// "quoted names", folded to lower case: Databricks resolves names without
// regard to case, and the names weir stores unquoted are lower case. The
// text keeps its length (one quote for another), so positions hold.
// Backticks inside strings, quoted names and comments are left alone.
func backtickNames(sql string) (string, bool) {
	if !strings.Contains(sql, "`") {
		return sql, false
	}
	b := []byte(sql)
	changed := false
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '\'' || b[i] == '"':
			q := b[i]
			for i++; i < len(b) && b[i] != q; i++ {
			}
		case b[i] == '-' && i+1 < len(b) && b[i+1] == '-':
			for i < len(b) && b[i] != '\n' {
				i++
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return sql, false
			}
			i += end + 3
		case b[i] == '`':
			end := strings.IndexByte(sql[i+1:], '`')
			if end < 0 || strings.ContainsAny(sql[i+1:i+1+end], "\"\n") {
				return sql, false
			}
			b[i], b[i+1+end] = '"', '"'
			for k := i + 1; k < i+1+end; k++ {
				if 'A' <= b[k] && b[k] <= 'Z' {
					b[k] += 'a' - 'A'
				}
			}
			i += end + 1
			changed = true
		}
	}
	return string(b), changed
}
