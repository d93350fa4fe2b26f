package parse

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// ParseCreateTableWatermark cuts the RisingWave/Flink element
//
//	WATERMARK FOR col AS col - INTERVAL '10 minutes'
//
// out of a CREATE TABLE (or CREATE SOURCE) column list and returns the
// remaining text, which pg_query parses, plus the spec. Text without such an
// element comes back unchanged with a nil spec. The only expression shape
// accepted is the column minus a constant interval (or the column itself, a
// delay of zero): anything else is 0A000 at the expression.
func ParseCreateTableWatermark(sql string) (rest string, wm *WatermarkSpec, err error) {
	defer func() {
		if r := recover(); r != nil {
			rest, wm, err = sql, nil, sqlerr.New(sqlerr.InternalError, "WATERMARK FOR front end failed: %v", r)
		}
	}()
	toks, err := tokens(sql)
	if err != nil {
		return sql, nil, nil // not ours to report: Parse will
	}
	ts := &tokenStream{sql: sql, toks: toks}
	if !ts.isWord(0, "create") {
		return sql, nil, nil
	}
	// Find the column list: the first '(' after CREATE ... TABLE|SOURCE name.
	open := -1
	for i := 1; i < len(toks) && i < 12; i++ {
		if ts.is(i, tokLParen) {
			open = i
			break
		}
	}
	if open < 0 {
		return sql, nil, nil
	}
	kindOK := false
	for i := 1; i < open; i++ {
		if w := ts.word(i); w == "table" || w == "source" {
			kindOK = true
		}
	}
	close := ts.matchParen(open)
	if !kindOK || close < 0 {
		return sql, nil, nil
	}
	// Split the list into elements at depth-1 commas.
	type element struct{ first, end, comma int } // comma: index of the comma before, -1 if none
	var elems []element
	depth := 0
	start, comma := open+1, -1
	for k := open + 1; k <= close; k++ {
		switch {
		case ts.is(k, tokLParen):
			depth++
		case ts.is(k, tokRParen) && depth > 0:
			depth--
		case k == close || ts.is(k, tokComma) && depth == 0:
			elems = append(elems, element{first: start, end: k, comma: comma})
			start, comma = k+1, k
		}
	}
	rw := &rewriter{sql: sql}
	for n, e := range elems {
		if !ts.isWord(e.first, "watermark") || !ts.is(e.first+1, pg_query.Token_FOR) {
			continue
		}
		if wm != nil {
			return sql, nil, ts.errAt(sqlerr.FeatureNotSupported, e.first, "only one WATERMARK FOR per table is supported")
		}
		spec, err := createTableWatermark(ts, e.first, e.end)
		if err != nil {
			return sql, nil, err
		}
		wm = spec
		// Remove the element with one of its commas.
		switch {
		case e.comma >= 0:
			rw.big = append(rw.big, edit{start: toks[e.comma].start, end: toks[e.end-1].end})
		case n+1 < len(elems):
			rw.big = append(rw.big, edit{start: toks[e.first].start, end: toks[elems[n+1].first].start})
		default:
			rw.big = append(rw.big, edit{start: toks[e.first].start, end: toks[e.end-1].end})
		}
	}
	if wm == nil {
		return sql, nil, nil
	}
	out, _ := rw.apply(0, len(sql))
	return out, wm, nil
}

// createTableWatermark reads WATERMARK FOR col AS col [- interval] in
// tokens [i, end).
func createTableWatermark(ts *tokenStream, i, end int) (*WatermarkSpec, error) {
	const want = "syntax error in WATERMARK FOR at or near %s: expected WATERMARK FOR <column> AS <column> - INTERVAL '<n> <unit>'"
	if !ts.nameLike(i+2) || i+2 >= end {
		return nil, ts.errAt(sqlerr.SyntaxError, i+2, want, ts.describe(i+2))
	}
	col := identValue(ts.toks[i+2].text)
	if !ts.is(i+3, pg_query.Token_AS) || i+3 >= end {
		return nil, ts.errAt(sqlerr.SyntaxError, i+3, want, ts.describe(i+3))
	}
	x := i + 4
	if x >= end {
		return nil, ts.errAt(sqlerr.SyntaxError, x, want, ts.describe(x))
	}
	spec := &WatermarkSpec{Column: col, Expr: col, Pos: ts.pos(i)}
	unsupported := func() error {
		return ts.errAt(sqlerr.FeatureNotSupported, x, "WATERMARK FOR supports only <column> - INTERVAL '<n> <unit>' with the same column; use WATERMARK <expr> AS <column> DELAY OF ... in the streaming query for other expressions")
	}
	if !ts.nameLike(x) || identValue(ts.toks[x].text) != col {
		return nil, unsupported()
	}
	if x+1 == end {
		return spec, nil // a delay of zero
	}
	if !ts.is(x+1, tokMinus) {
		return nil, unsupported()
	}
	lit, ok := ts.interval(x + 2)
	if !ok || lit.next != end {
		return nil, unsupported()
	}
	if lit.calendar {
		return nil, ts.errAt(sqlerr.InvalidParameterValue, x+2, "watermark delay must be a fixed length of time (days, hours, minutes, seconds), not months or years")
	}
	if lit.d < 0 {
		return nil, ts.errAt(sqlerr.InvalidParameterValue, x+2, "watermark delay must not be negative")
	}
	spec.Delay = lit.d
	return spec, nil
}
