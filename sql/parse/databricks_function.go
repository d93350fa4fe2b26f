package parse

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Databricks' CREATE FUNCTION (SQL) characteristics that PostgreSQL's
// grammar does not have — [NOT] DETERMINISTIC, CONTAINS SQL, READS SQL
// DATA, COMMENT 'text' for the function and for each parameter — carry
// nothing weir acts on (an inlined expression is evaluated where it is
// called, whatever its determinism), so they are cut out of the text and
// the rest is PostgreSQL's CREATE FUNCTION. Only texts starting CREATE [OR
// REPLACE] FUNCTION are touched, and only those words outside the body.

// CutFunctionCharacteristics returns sql without Databricks' function
// characteristics; sql itself when it has none.
func CutFunctionCharacteristics(sql string) (out string, err error) {
	defer func() {
		// The pass stays in range; a bug must not take a connection down:
		// the text is then left to PostgreSQL's grammar.
		if r := recover(); r != nil {
			out, err = sql, nil
		}
	}()
	toks, err := tokens(sql)
	if err != nil || len(toks) == 0 {
		return sql, nil
	}
	ts := &tokenStream{sql: sql, toks: toks}
	i := 1
	if ts.isWord(i, "or") && ts.isWord(i+1, "replace") {
		i += 2
	}
	if !ts.isWord(0, "create") || !ts.isWord(i, "function") {
		return sql, nil
	}
	rw := &rewriter{sql: sql}
	cut := func(from, to int) { rw.big = append(rw.big, edit{start: toks[from].start, end: toks[to-1].end}) }
	depth := 0
	for k := i + 1; k < len(toks); k++ {
		switch {
		case ts.is(k, tokLParen):
			depth++
		case ts.is(k, tokRParen):
			depth--
		case depth == 0 && (ts.is(k, pg_query.Token_RETURN) || ts.is(k, pg_query.Token_AS)):
			k = len(toks) // the body: never touched
		case ts.isWord(k, "comment") && ts.is(k+1, pg_query.Token_SCONST) && depth <= 1:
			cut(k, k+2)
			k++
		case depth == 0 && ts.isWord(k, "not") && ts.isWord(k+1, "deterministic"):
			cut(k, k+2)
			k++
		case depth == 0 && ts.isWord(k, "deterministic"):
			cut(k, k+1)
		case depth == 0 && ts.isWord(k, "contains") && ts.isWord(k+1, "sql"):
			cut(k, k+2)
			k++
		case depth == 0 && ts.isWord(k, "reads") && ts.isWord(k+1, "sql") && ts.isWord(k+2, "data"):
			cut(k, k+3)
			k += 2
		}
	}
	if len(rw.big) == 0 {
		return sql, nil
	}
	out, _ = rw.apply(0, len(sql))
	return out, nil
}
