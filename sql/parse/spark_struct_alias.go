package parse

import (
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// StructFieldAliasFunc marks a named argument of Spark's struct(): the
// parser rewrites struct(1, 2 AS two) to struct(1, weir_struct_field(2,
// 'two')), which PostgreSQL's grammar takes, and the planner names the
// field after the string.
const StructFieldAliasFunc = "weir_struct_field"

// SparkStructAliases rewrites "expr AS name" among the top-level arguments
// of struct(...) calls (PostgreSQL's grammar has no AS in function
// arguments). Tokens, not text, are matched: strings and comments stay.
func SparkStructAliases(sql string) (string, bool) {
	res, err := pg_query.Scan(sql)
	if err != nil {
		return sql, false
	}
	toks := res.Tokens
	type edit struct {
		at, end int // replace sql[at:end]
		text    string
	}
	var edits []edit
	for i := 0; i+1 < len(toks); i++ {
		t := toks[i]
		if t.Token != pg_query.Token_IDENT || !strings.EqualFold(sql[t.Start:t.End], "struct") || toks[i+1].Token != pg_query.Token_ASCII_40 {
			continue
		}
		if i > 0 && toks[i-1].Token == pg_query.Token_ASCII_46 {
			continue // a qualified name, not Spark's function
		}
		depth := 0
		argStart := i + 2
		for j := i + 1; j < len(toks); j++ {
			switch toks[j].Token {
			case pg_query.Token_ASCII_40, pg_query.Token_ASCII_91:
				depth++
				continue
			case pg_query.Token_ASCII_41, pg_query.Token_ASCII_93:
				depth--
			}
			if depth == 1 && toks[j].Token == pg_query.Token_ASCII_44 || depth == 0 {
				// An argument ends at toks[j]: is it "expr AS name"?
				if n := j - argStart; n >= 3 && toks[j-2].Token == pg_query.Token_AS {
					name := toks[j-1]
					edits = append(edits,
						edit{int(toks[argStart].Start), int(toks[argStart].Start), StructFieldAliasFunc + "("},
						edit{int(toks[j-3].End), int(name.End), ", '" + strings.ReplaceAll(identText(sql[name.Start:name.End]), "'", "''") + "')"})
				}
				argStart = j + 1
			}
			if depth == 0 {
				break
			}
		}
	}
	if len(edits) == 0 {
		return sql, false
	}
	// A struct nested in another's argument adds its edits after the outer
	// call's first ones: apply them in text order.
	sort.SliceStable(edits, func(a, b int) bool { return edits[a].at < edits[b].at })
	var out strings.Builder
	last := 0
	for _, e := range edits {
		if e.at < last {
			continue // overlapping (a nested struct in an aliased argument): leave it
		}
		out.WriteString(sql[last:e.at])
		out.WriteString(e.text)
		last = e.end
	}
	out.WriteString(sql[last:])
	return out.String(), true
}

// identText is an identifier's name: a quoted one as written, an unquoted
// one folded to lower case as PostgreSQL folds it; Spark's `back quotes`
// keep the name inside them.
func identText(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '`' && s[len(s)-1] == '`') {
		return s[1 : len(s)-1]
	}
	return strings.ToLower(s)
}
