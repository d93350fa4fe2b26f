package parse

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// SparkWindowFields rewrites Spark's window(...) grouping function, its
// window.start / window.end fields and the bare column window: WINDOW is
// a reserved word in PostgreSQL, so none parses as written. window(
// becomes the quoted function name "window"(, a bare window the quoted
// column "window" (the binder gives it the window's struct), and
// window.start / window.end the columns window_start / window_end. The rewrite works on scanner tokens (strings
// and comments are untouched); the fields keep their length, the function
// name grows by its two quotes.
func SparkWindowFields(sql string) (string, bool) {
	res, err := pg_query.Scan(sql)
	if err != nil {
		return sql, false
	}
	toks := res.Tokens
	out := []byte(sql)
	changed := false
	var calls []int32 // starts of "window(" tokens, quoted afterwards
	for i := 0; i < len(toks); i++ {
		if toks[i].Token != pg_query.Token_WINDOW {
			continue
		}
		if i+1 < len(toks) && toks[i+1].Token == pg_query.Token_ASCII_40 {
			calls = append(calls, toks[i].Start)
			continue
		}
		if i > 0 && toks[i-1].Token == pg_query.Token_ASCII_46 {
			continue // t.window: PostgreSQL's own error stands
		}
		// Spark's bare window column (SELECT window, ...; window_time(window)),
		// but not a WINDOW clause (WINDOW w AS (...)) nor window.start.
		if i+1 < len(toks) && toks[i+1].Token == pg_query.Token_ASCII_46 {
			continue
		}
		if i+2 < len(toks) && toks[i+2].Token == pg_query.Token_AS && toks[i+1].Token != pg_query.Token_AS {
			continue
		}
		calls = append(calls, toks[i].Start)
	}
	for i := 0; i+2 < len(toks); i++ {
		w, dot, f := toks[i], toks[i+1], toks[i+2]
		if w.Token != pg_query.Token_WINDOW || dot.Token != pg_query.Token_ASCII_46 {
			continue
		}
		var field string
		switch f.Token {
		case pg_query.Token_START:
			field = "start"
		case pg_query.Token_END_P:
			field = "end"
		default:
			continue
		}
		repl := "window_" + field
		span := int(f.End) - int(w.Start)
		if span < len(repl) {
			continue
		}
		copy(out[w.Start:], repl)
		for k := int(w.Start) + len(repl); k < int(f.End); k++ {
			out[k] = ' '
		}
		changed = true
		i += 2
	}
	for k := len(calls) - 1; k >= 0; k-- {
		at := int(calls[k])
		out = append(out[:at], append([]byte(`"window"`), out[at+len("window"):]...)...)
		changed = true
	}
	return string(out), changed
}
