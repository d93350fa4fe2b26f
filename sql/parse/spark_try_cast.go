package parse

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// TryCastFunc is the function tryCasts turns Databricks' try_cast(x AS t)
// into: trycast((x)::t), which the binder evaluates as a cast that gives
// NULL where the value does not convert (planner/bind_try.go).
const TryCastFunc = "trycast"

// tryCasts rewrites try_cast(expr AS type), which PostgreSQL's grammar
// rejects (AS in a call), keeping every byte of the rest where it is:
// "try_cast(" becomes "trycast((" and the AS at the call's own level,
// with the blank before it, becomes ")::". An AS written with no blank
// before it is left as it is (the text then does not parse).
func tryCasts(sql string) (string, bool) {
	res, err := pg_query.Scan(sql)
	if err != nil {
		return sql, false
	}
	toks := res.Tokens
	out := []byte(sql)
	changed := false
	for i := 0; i+1 < len(toks); i++ {
		t, open := toks[i], toks[i+1]
		if t.Token != pg_query.Token_IDENT || !strings.EqualFold(sql[t.Start:t.End], "try_cast") ||
			open.Token != pg_query.Token_ASCII_40 || open.Start != t.End {
			continue
		}
		depth := 0
		for k := i + 1; k < len(toks); k++ {
			switch toks[k].Token {
			case pg_query.Token_ASCII_40:
				depth++
				continue
			case pg_query.Token_ASCII_41:
				depth--
			}
			if depth == 0 {
				break
			}
			if depth == 1 && toks[k].Token == pg_query.Token_AS {
				as := toks[k]
				if as.Start == 0 || (sql[as.Start-1] != ' ' && sql[as.Start-1] != '\n' && sql[as.Start-1] != '\t') {
					break
				}
				copy(out[t.Start:open.End], TryCastFunc+"((")
				copy(out[as.Start-1:as.End], ")::")
				changed = true
				break
			}
		}
	}
	return string(out), changed
}
