package parse

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// tableArgs rewrites Databricks' event_log(TABLE(name)) into
// event_log('name'): PostgreSQL's grammar has no TABLE(...) argument, and
// the binder resolves the name in the string as it would the relation
// (planner/bind_event_log.go). The name keeps its quoting.
func (d *dbxRewrite) tableArgs() {
	for i := 0; i+4 < len(d.toks); i++ {
		if !d.isWord(i, "event_log") || !d.is(i+1, tokLParen) || !d.is(i+2, pg_query.Token_TABLE) || !d.is(i+3, tokLParen) {
			continue
		}
		j := i + 4
		for j < len(d.toks) && (d.nameLike(j) || d.is(j, pg_query.Token_IDENT) || d.is(j, pg_query.Token_ASCII_46)) {
			j++
		}
		if j == i+4 || !d.is(j, tokRParen) || !d.is(j+1, tokRParen) {
			continue
		}
		name := d.sql[d.toks[i+4].start:d.toks[j-1].end]
		d.small(i+2, j, "'"+strings.ReplaceAll(name, "'", "''")+"'")
		i = j
	}
}
