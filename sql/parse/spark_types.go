package parse

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// SparkTypeNameFunc is the type name a Spark composite type is rewritten
// to: PostgreSQL's grammar takes weir_spark_type('STRUCT<a: INT>') as a
// type with one string modifier, which the planner parses as Spark's type.
const SparkTypeNameFunc = "weir_spark_type"

// SparkTypeNames rewrites the Spark type spellings PostgreSQL's grammar
// rejects: STRUCT<...>, ARRAY<...> and MAP<...> become
// weir_spark_type('...') holding the original text, and BINARY where a type
// stands (after AS or ::, or after a column name in a column definition)
// becomes bytea. Spark names PostgreSQL parses as type names of its own
// (STRING, LONG, DOUBLE, TIMESTAMP_NTZ, ...) need no rewrite: the planner
// resolves them. The rewrite is tried only on text PostgreSQL's grammar
// refused, and works on scanner tokens, so strings and comments are
// untouched.
func SparkTypeNames(sql string) (string, bool) {
	res, err := pg_query.Scan(sql)
	if err != nil {
		return sql, false
	}
	toks := res.Tokens
	var out strings.Builder
	last := 0
	changed := false
	text := func(t *pg_query.ScanToken) string { return sql[t.Start:t.End] }
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Token == pg_query.Token_BINARY && binaryIsType(toks, i) {
			out.WriteString(sql[last:t.Start])
			out.WriteString("bytea")
			last = int(t.End)
			changed = true
			continue
		}
		if !isCompositeKeyword(t, text(t)) || i+1 >= len(toks) || toks[i+1].Token != pg_query.Token_ASCII_60 {
			continue
		}
		// The span up to the '>' that closes this '<' (a ">>" token closes two).
		depth, end := 0, -1
		for j := i + 1; j < len(toks) && end < 0; j++ {
			switch toks[j].Token {
			case pg_query.Token_ASCII_60:
				depth++
			case pg_query.Token_ASCII_62:
				depth--
			case pg_query.Token_Op, pg_query.Token_LESS_EQUALS, pg_query.Token_GREATER_EQUALS, pg_query.Token_NOT_EQUALS:
				for _, c := range text(toks[j]) {
					switch c {
					case '<':
						depth++
					case '>':
						depth--
					}
				}
			case pg_query.Token_ASCII_59:
				j = len(toks) // a ';' ends the search
				continue
			}
			if depth <= 0 {
				if depth < 0 {
					break // ">>" closing more than this type: leave it alone
				}
				end = j
			}
		}
		if end < 0 {
			continue
		}
		out.WriteString(sql[last:t.Start])
		out.WriteString(SparkTypeNameFunc + "('")
		out.WriteString(strings.ReplaceAll(sql[t.Start:toks[end].End], "'", "''"))
		out.WriteString("')")
		last = int(toks[end].End)
		changed = true
		i = end
	}
	if !changed {
		return sql, false
	}
	out.WriteString(sql[last:])
	return out.String(), true
}

func isCompositeKeyword(t *pg_query.ScanToken, s string) bool {
	if t.Token == pg_query.Token_ARRAY {
		return true
	}
	return t.Token == pg_query.Token_IDENT && (strings.EqualFold(s, "struct") || strings.EqualFold(s, "map"))
}

// binaryIsType tells whether the BINARY at toks[i] stands where a type
// does: after AS or ::, or after a column name and before the end of a
// column definition.
func binaryIsType(toks []*pg_query.ScanToken, i int) bool {
	if i == 0 {
		return false
	}
	switch toks[i-1].Token {
	case pg_query.Token_AS, pg_query.Token_TYPECAST:
		return true
	case pg_query.Token_IDENT:
		if i+1 >= len(toks) {
			return false
		}
		switch toks[i+1].Token {
		case pg_query.Token_ASCII_44, pg_query.Token_ASCII_41, pg_query.Token_NOT, pg_query.Token_NULL_P,
			pg_query.Token_DEFAULT, pg_query.Token_PRIMARY, pg_query.Token_COMMENT, pg_query.Token_GENERATED:
			return true
		}
	}
	return false
}

// sparkRewrite applies the Spark spellings' rewrites to a query string
// PostgreSQL's grammar refused; ok is false when none applied.
func sparkRewrite(sql string) (string, bool) {
	s1, ok1 := SparkWindowFields(sql)
	s2, ok2 := SparkTypeNames(s1)
	s3, ok3 := SparkStructAliases(s2)
	return s3, ok1 || ok2 || ok3
}
