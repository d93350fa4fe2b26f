package parse

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// sparkCalls rewrites two Spark call spellings PostgreSQL's grammar
// rejects, keeping every other byte where it is (positions in errors stay
// the client's):
//
//   - current_timestamp(), current_date(), current_user(), current_schema()
//     and current_catalog(): PostgreSQL's keywords take no parentheses,
//     so the empty "()" becomes two spaces;
//   - array(1, 2, 3), Spark's array constructor: ARRAY[1, 2, 3]. ARRAY
//     (SELECT …) is PostgreSQL's own array of a subquery and is left;
//   - r'\d+', Spark's raw string literal, where the grammar fails on the
//     statement (elsewhere it reads as a literal of a type r, which the
//     binder takes as text: planner/bind_spark_raw.go): the r becomes a
//     space, leaving a standard string, in which a backslash is itself.
func sparkCalls(sql string) (string, bool) {
	res, err := pg_query.Scan(sql)
	if err != nil {
		return sql, false
	}
	toks := res.Tokens
	out := []byte(sql)
	changed := false
	for i := 0; i+1 < len(toks); i++ {
		if t, next := toks[i], toks[i+1]; t.Token == pg_query.Token_IDENT && t.End == next.Start &&
			next.Token == pg_query.Token_SCONST && (sql[t.Start:t.End] == "r" || sql[t.Start:t.End] == "R") &&
			strings.HasPrefix(sql[next.Start:next.End], "'") {
			out[t.Start] = ' '
			changed = true
		}
	}
	for i := 0; i+2 < len(toks); i++ {
		open, close := toks[i+1], toks[i+2]
		switch toks[i].Token {
		case pg_query.Token_CURRENT_TIMESTAMP, pg_query.Token_CURRENT_DATE, pg_query.Token_CURRENT_USER,
			pg_query.Token_CURRENT_SCHEMA, pg_query.Token_CURRENT_CATALOG:
			if open.Token == pg_query.Token_ASCII_40 && close.Token == pg_query.Token_ASCII_41 {
				out[open.Start], out[close.Start] = ' ', ' '
				changed = true
			}
		case pg_query.Token_ARRAY:
			if open.Token != pg_query.Token_ASCII_40 {
				continue
			}
			switch close.Token {
			case pg_query.Token_SELECT, pg_query.Token_VALUES, pg_query.Token_WITH, pg_query.Token_ASCII_40, pg_query.Token_TABLE:
				continue // ARRAY(subquery)
			}
			depth := 0
			for k := i + 1; k < len(toks); k++ {
				switch toks[k].Token {
				case pg_query.Token_ASCII_40:
					depth++
				case pg_query.Token_ASCII_41:
					depth--
				}
				if depth == 0 {
					out[open.Start], out[toks[k].Start] = '[', ']'
					changed = true
					break
				}
			}
		}
	}
	return string(out), changed
}
