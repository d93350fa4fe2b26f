package parse

import (
	"errors"
	"strings"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// queryRewriter turns a query written with weir's streaming clauses into
// the one canonical SQL text pg_query parses:
//
//	FROM STREAM x, FROM STREAM(x)                   -> FROM x            (Inputs[i].Stream)
//	x WATERMARK col DELAY OF INTERVAL 10 MINUTES    -> x                 (Inputs[i].Watermark)
//	x WATERMARK expr AS col DELAY OF ...            -> (SELECT *, expr AS col FROM x) x
//	x WATERMARK col ... WINDOW TUMBLING (SIZE ...)  -> TUMBLE(x, col, INTERVAL '5 minutes') AS x
//	                       WINDOW HOPPING (...)     -> HOP(x, col, INTERVAL '<slide>', INTERVAL '<size>') AS x
//	                       WINDOW SESSION (GAP ...) -> SESSION(x, col, INTERVAL '<gap>') AS x
//	window(...), window.start (Spark)               -> "window"(...), "window".start
//	INTERVAL 5 MINUTES anywhere                     -> INTERVAL '5 minutes'
//
// TUMBLE/HOP/SESSION written as table functions and Spark's window() and
// session_window() keep their shape; their constant sizes are read into
// Window and checked.
type queryRewriter struct {
	*tokenStream
	st    *StreamingStmt
	rw    *rewriter
	items []*fromItem
	// plain are the named FROM items that are neither streams nor
	// watermarked (a WATERMARK after a subquery may make one an input).
	plain []*fromItem
	// windows found, in text order of discovery; the first becomes st.Window.
	windows  []windowAt
	ksql     []ksqlWindow
	rewrites bool // some weir spelling was rewritten
}

type windowAt struct {
	tok  int
	spec *WindowSpec
}

// ksqlWindow is a WINDOW TUMBLING|HOPPING|SESSION (...) clause.
type ksqlWindow struct {
	spec       *WindowSpec
	tok        int // the WINDOW token
	level, sel int
}

// fromItem is one FROM or JOIN item that is a named relation or a function.
type fromItem struct {
	first, last      int // token span of the whole item (STREAM ... watermark)
	relFirst, relEnd int // tokens of the relation name or call
	aliasFirst       int // tokens [aliasFirst, aliasEnd) hold "[AS] alias [(cols)]"; equal when none
	aliasEnd         int
	aliasTok         int // the alias name token, -1 if none
	name             string
	stream, fn       bool
	wm               *WatermarkSpec
	wmColText        string // the watermark column as written (quoted if it was)
	wmExprText       string // the watermark expression, canonical
	wmDerived        bool   // the column is computed: add it in a subselect
	wmExprFirst      int    // tokens [wmExprFirst, wmExprEnd) hold the expression
	wmExprEnd        int
	input            int // index of the item's entry in st.Inputs, -1 if none
	window           *WindowSpec
	level, sel       int
}

func newQueryRewriter(ts *tokenStream, st *StreamingStmt) *queryRewriter {
	return &queryRewriter{tokenStream: ts, st: st, rw: &rewriter{sql: ts.sql}}
}

// weirSyntax reports whether the query used anything beyond PostgreSQL.
func (q *queryRewriter) weirSyntax() bool {
	return q.rewrites || len(q.rw.small) > 0 || len(q.rw.big) > 0 || q.st.AnyStream || len(q.st.Inputs) > 0
}

// readsAStream reports whether the query reads anything as a stream: a
// STREAM input, a WATERMARK clause, or a ksqlDB WINDOW clause.
func (q *queryRewriter) readsAStream() bool {
	if q.st.AnyStream || len(q.ksql) > 0 {
		return true
	}
	for _, in := range q.st.Inputs {
		if in.Stream || in.Watermark != nil {
			return true
		}
	}
	return false
}

// frame is one parenthesis level of the query.
type frame struct {
	level, sel int
	inFrom     bool
	// noClause: the parentheses of EXTRACT(x FROM y) and friends, where
	// FROM is not a clause.
	noClause bool
	// derived: the parentheses of a derived table (a query in FROM) that
	// opened at token open; a WATERMARK clause may follow its ')'.
	derived bool
	open    int
}

// run walks tokens [from, to) once, recording edits and clause structs.
func (q *queryRewriter) run(from, to int) error {
	q.canonicalIntervals(q.rw, from, to)
	stack := []frame{{}}
	nextLevel, nextSel := 1, 1
	expectItem := false
	for i := from; i < to; {
		f := &stack[len(stack)-1]
		t := q.toks[i]
		if expectItem {
			expectItem = false
			if t.kind == pg_query.Token_LATERAL_P || t.kind == pg_query.Token_ONLY {
				expectItem = true
				i++
				continue
			}
			if t.kind != tokLParen {
				n, err := q.fromItem(i, to, f.level, f.sel)
				if err != nil {
					return err
				}
				if n > i {
					i = n
					continue
				}
			} else {
				// A parenthesised join or a derived table: inside, a FROM
				// item starts unless a query does.
				stack = append(stack, frame{level: nextLevel, sel: f.sel, inFrom: true, open: i})
				nextLevel++
				switch q.word(i + 1) {
				case "select", "with", "values", "table":
					stack[len(stack)-1].derived = true
				default:
					if !q.is(i+1, tokLParen) {
						expectItem = true
					}
				}
				i++
				continue
			}
		}
		switch t.kind {
		case tokLParen:
			noClause := false
			switch q.at(i - 1).kind {
			case pg_query.Token_EXTRACT, pg_query.Token_SUBSTRING, pg_query.Token_TRIM, pg_query.Token_OVERLAY, pg_query.Token_POSITION:
				noClause = true
			}
			stack = append(stack, frame{level: nextLevel, sel: -1, noClause: noClause})
			nextLevel++
		case tokRParen:
			if len(stack) > 1 {
				closed := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if closed.derived {
					n, err := q.derivedWatermark(closed.open, i, to)
					if err != nil {
						return err
					}
					if n > i+1 {
						i = n
						continue
					}
				}
			}
		case pg_query.Token_SELECT:
			f.sel = nextSel
			nextSel++
			f.inFrom = false
		case pg_query.Token_FROM:
			if !f.noClause && q.at(i-1).kind != pg_query.Token_DISTINCT {
				f.inFrom = true
				expectItem = true
			}
		case pg_query.Token_JOIN:
			if f.inFrom {
				expectItem = true
			}
		case tokComma:
			if f.inFrom {
				expectItem = true
			}
		case pg_query.Token_WHERE, pg_query.Token_GROUP_P, pg_query.Token_HAVING, pg_query.Token_ORDER,
			pg_query.Token_LIMIT, pg_query.Token_OFFSET, pg_query.Token_FETCH, pg_query.Token_UNION,
			pg_query.Token_INTERSECT, pg_query.Token_EXCEPT, pg_query.Token_RETURNING, pg_query.Token_FOR,
			pg_query.Token_INTO, tokSemi:
			f.inFrom = false
		case pg_query.Token_WINDOW:
			n, err := q.window(i, to, f)
			if err != nil {
				return err
			}
			if n > i {
				i = n
				continue
			}
		case pg_query.Token_IDENT:
			if q.word(i) == "session_window" && q.is(i+1, tokLParen) {
				if err := q.sparkWindow(i, Session); err != nil {
					return err
				}
			}
		}
		i++
	}
	return q.bindWindows()
}

// fromItem reads a FROM/JOIN item at i. It returns i unchanged when the
// item is not a named relation or function (the walk then descends into
// it normally).
func (q *queryRewriter) fromItem(i, to, level, sel int) (int, error) {
	it := &fromItem{first: i, aliasTok: -1, level: level, sel: sel}
	j := i
	parenStream := false
	if q.isWord(j, "stream") {
		switch {
		case q.is(j+1, tokLParen):
			it.stream, parenStream = true, true
			j += 2
		case q.nameLike(j+1) && !q.isWord(j+1, "watermark") && j+1 < to:
			it.stream = true
			j++
		}
	}
	it.relFirst = j
	parts, next, ok := q.qualifiedName(j)
	if !ok || next > to {
		if it.stream {
			return i, q.errAt(sqlerr.SyntaxError, j, "syntax error at or near %s: expected a table name after STREAM", q.describe(j))
		}
		return i, nil
	}
	it.name = strings.Join(parts, ".")
	j = next
	if q.is(j, tokLParen) {
		close := q.matchParen(j)
		if close < 0 || close >= to {
			return i, nil // let pg_query report the unbalanced parenthesis
		}
		it.fn = true
		j = close + 1
	}
	it.relEnd = j
	if parenStream {
		if !q.is(j, tokRParen) {
			return i, q.errAt(sqlerr.SyntaxError, j, "syntax error at or near %s: expected ) after STREAM(%s", q.describe(j), it.name)
		}
		j++
	}
	j = q.alias(it, j, to)
	if q.isWord(j, "watermark") {
		n, err := q.watermark(it, j, to)
		if err != nil {
			return i, err
		}
		j = n
		// Databricks writes the alias after the clause (table_name
		// [watermark_clause] [table_alias]); PostgreSQL's place, before
		// it, is taken too, but not both.
		if it.aliasTok < 0 {
			j = q.alias(it, j, to)
		} else if k := q.alias(&fromItem{aliasTok: -1}, j, to); k > j {
			return i, q.errAt(sqlerr.SyntaxError, j, "syntax error at or near %s: %s already has the alias %s; write the alias once, before or after the WATERMARK clause", q.describe(j), it.name, q.toks[it.aliasTok].text)
		}
		it.wm.Expr = q.ownColumns(it, it.wmExprFirst, it.wmExprEnd)
	}
	it.last = j - 1
	if it.fn && !it.stream {
		if err := q.tableFunctionWindow(it); err != nil {
			return i, err
		}
	}
	it.input = -1
	if it.stream || it.wm != nil {
		q.register(it)
	} else {
		q.plain = append(q.plain, it)
	}
	return j, nil
}

// register makes a FROM item one of the query's inputs.
func (q *queryRewriter) register(it *fromItem) {
	q.items = append(q.items, it)
	it.input = len(q.st.Inputs)
	q.st.Inputs = append(q.st.Inputs, StreamInput{Name: it.name, Alias: q.aliasName(it), Stream: it.stream, Func: it.fn && it.stream, Watermark: it.wm})
	if it.stream {
		q.st.AnyStream = true
	}
}

// derivedWatermark reads a WATERMARK clause after the derived table whose
// parentheses are the tokens open and close, as Databricks places it:
// ( query ) [watermark_clause] [table_alias] (the alias may also come
// first, as PostgreSQL places it). The clause is cut out of the text and
// its watermark given to the one relation the subquery reads, whose
// columns the watermark column must be (the planner binds the event time
// over an input table). It returns close+1 when no clause follows.
func (q *queryRewriter) derivedWatermark(open, close, to int) (int, error) {
	it := &fromItem{first: open, relFirst: open, relEnd: close + 1, aliasTok: -1, name: "subquery"}
	j := q.alias(it, close+1, to)
	if !q.isWord(j, "watermark") {
		return close + 1, nil
	}
	wmTok := j
	n, err := q.watermark(it, j, to)
	if err != nil {
		return close + 1, err
	}
	j = n
	if it.wmDerived {
		return close + 1, q.errAt(sqlerr.FeatureNotSupported, it.wmExprFirst, "WATERMARK on an expression after a subquery is not supported: compute the column in the subquery and write WATERMARK %s DELAY OF ... after it", it.wmColText)
	}
	var inner []*fromItem
	for _, c := range append(append([]*fromItem(nil), q.items...), q.plain...) {
		if c.first > open && c.last < close {
			inner = append(inner, c)
		}
	}
	var target *fromItem
	for _, c := range inner {
		if c.stream || len(inner) == 1 {
			if target != nil {
				return close + 1, q.errAt(sqlerr.FeatureNotSupported, wmTok, "a WATERMARK clause after a subquery that reads several streams is not supported: put a WATERMARK clause on each stream inside the subquery")
			}
			target = c
		}
	}
	if target == nil {
		return close + 1, q.errAt(sqlerr.FeatureNotSupported, wmTok, "a WATERMARK clause after a subquery needs the subquery to read one table: put the WATERMARK clause on the table inside the subquery")
	}
	if target.wm != nil {
		return close + 1, q.errAt(sqlerr.SyntaxError, wmTok, "syntax error at or near \"WATERMARK\": %s already has a WATERMARK clause inside the subquery", target.name)
	}
	wm := it.wm
	wm.Expr = q.ownColumns(it, it.wmExprFirst, it.wmExprEnd)
	target.wm = wm
	target.wmColText = it.wmColText
	target.wmExprText = it.wmExprText
	if target.input < 0 {
		q.register(target)
	} else {
		q.st.Inputs[target.input].Watermark = wm
	}
	q.rw.big = append(q.rw.big, edit{start: q.cutStart(wmTok), end: q.toks[n-1].end})
	q.rewrites = true
	if it.aliasTok < 0 {
		j = q.alias(it, j, to)
	}
	return j, nil
}

// alias reads "[AS] alias [(cols)]" at j into it and returns the index
// after it (j when there is none). WATERMARK is never an alias: it starts
// the clause.
func (q *queryRewriter) alias(it *fromItem, j, to int) int {
	it.aliasFirst, it.aliasEnd = j, j
	switch {
	case q.is(j, pg_query.Token_AS) && q.labelLike(j+1) && j+1 < to:
		it.aliasTok = j + 1
		j += 2
	case q.nameLike(j) && !q.isWord(j, "watermark") && j < to:
		it.aliasTok = j
		j++
	default:
		return j
	}
	if q.is(j, tokLParen) {
		if close := q.matchParen(j); close > 0 && close < to {
			j = close + 1
		}
	}
	it.aliasEnd = j
	return j
}

// ownColumns renders the watermark expression in tokens [from, to) over
// the relation's own columns: a qualifier naming the item (its alias, or
// the relation's name when it has none) is dropped, because the planner
// binds the expression over the input table alone (o.event_time is the
// input's event_time).
func (q *queryRewriter) ownColumns(it *fromItem, from, to int) string {
	self := it.name
	if k := strings.LastIndexByte(self, '.'); k >= 0 {
		self = self[k+1:]
	}
	if it.aliasTok >= 0 {
		self = identValue(q.toks[it.aliasTok].text)
	}
	var b strings.Builder
	at := q.toks[from].start
	for k := from; k+2 < to; k++ {
		if q.nameLike(k) && identValue(q.toks[k].text) == self && q.is(k+1, tokDot) && q.labelLike(k+2) && !q.is(k-1, tokDot) && !q.is(k+3, tokDot) {
			b.WriteString(q.rw.render(at, q.toks[k].start))
			at = q.toks[k+2].start
			k++
		}
	}
	b.WriteString(q.rw.render(at, q.toks[to-1].end))
	return strings.TrimSpace(b.String())
}

func (q *queryRewriter) aliasName(it *fromItem) string {
	if it.aliasTok < 0 {
		return ""
	}
	return identValue(q.toks[it.aliasTok].text)
}

const watermarkWant = "syntax error in WATERMARK clause at or near %s: expected WATERMARK <column> [AS <name>] DELAY OF INTERVAL '<n> <unit>'"

// watermark reads WATERMARK expr [AS col] DELAY OF interval at i.
func (q *queryRewriter) watermark(it *fromItem, i, to int) (int, error) {
	j := i + 1
	depth := 0
	exprFirst := j
	for ; j < to; j++ {
		t := q.toks[j]
		if t.kind == tokLParen {
			depth++
		} else if t.kind == tokRParen {
			if depth == 0 {
				break
			}
			depth--
		} else if depth == 0 && (t.kind == pg_query.Token_AS || q.isWord(j, "delay") || t.kind == tokComma ||
			t.kind == pg_query.Token_JOIN || t.kind == pg_query.Token_WHERE || t.kind == pg_query.Token_WINDOW || t.kind == pg_query.Token_ON) {
			break
		}
	}
	if j == exprFirst {
		return i, q.errAt(sqlerr.SyntaxError, j, watermarkWant, q.describe(j))
	}
	exprEnd := j
	it.wmExprFirst, it.wmExprEnd = exprFirst, exprEnd
	wm := &WatermarkSpec{Pos: q.pos(i)}
	wm.Expr = q.rw.render(q.toks[exprFirst].start, q.toks[exprEnd-1].end)
	bare := true
	for k := exprFirst; k < exprEnd; k++ {
		if (k-exprFirst)%2 == 0 && !q.labelLike(k) || (k-exprFirst)%2 == 1 && !q.is(k, tokDot) {
			bare = false
		}
	}
	if (exprEnd-exprFirst)%2 == 0 || !q.nameLike(exprFirst) {
		bare = false
	}
	colTok := -1
	if bare {
		colTok = exprEnd - 1
	}
	if !q.is(j, pg_query.Token_AS) && !q.isWord(j, "delay") {
		// Point at what broke the clause: after "WATERMARK col" that is
		// the first token that cannot continue a column reference.
		at := j
		for k := exprFirst; k < exprEnd; k++ {
			if (k-exprFirst)%2 == 0 && !q.labelLike(k) || (k-exprFirst)%2 == 1 && !q.is(k, tokDot) {
				if k > exprFirst && (q.nameLike(k) || q.is(k, pg_query.Token_INTERVAL)) {
					at = k
				}
				break
			}
		}
		return i, q.errAt(sqlerr.SyntaxError, at, watermarkWant, q.describe(at))
	}
	if q.is(j, pg_query.Token_AS) {
		if !q.labelLike(j+1) || j+1 >= to {
			return i, q.errAt(sqlerr.SyntaxError, j+1, watermarkWant, q.describe(j+1))
		}
		if colTok < 0 || identValue(q.toks[colTok].text) != identValue(q.toks[j+1].text) {
			it.wmDerived = true
		}
		colTok = j + 1
		j += 2
	}
	if colTok < 0 {
		return i, q.errAt(sqlerr.SyntaxError, exprFirst, "WATERMARK on an expression needs a name: write WATERMARK %s AS <column> DELAY OF ...", wm.Expr)
	}
	wm.Column = identValue(q.toks[colTok].text)
	it.wmColText = q.toks[colTok].text
	it.wmExprText = wm.Expr
	if !q.isWord(j, "delay") || !q.isWord(j+1, "of") {
		return i, q.errAt(sqlerr.SyntaxError, j, watermarkWant, q.describe(j))
	}
	j += 2
	lit, ok := q.interval(j)
	if !ok || lit.next > to {
		return i, q.errAt(sqlerr.SyntaxError, j, "syntax error in WATERMARK clause at or near %s: expected DELAY OF INTERVAL '<n> <unit>'", q.describe(j))
	}
	if lit.calendar {
		return i, q.errAt(sqlerr.InvalidParameterValue, j, "watermark delay must be a fixed length of time (days, hours, minutes, seconds), not months or years")
	}
	if lit.d < 0 {
		return i, q.errAt(sqlerr.InvalidParameterValue, j, "watermark delay must not be negative")
	}
	wm.Delay = lit.d
	it.wm = wm
	return lit.next, nil
}

// window handles a WINDOW token: the ksqlDB clause WINDOW kind (...), the
// Spark column or function "window", or PostgreSQL's WINDOW w AS (...)
// (left alone).
func (q *queryRewriter) window(i, to int, f *frame) (int, error) {
	switch {
	case q.nameLike(i+1) && q.is(i+2, tokLParen):
		return q.ksqlWindow(i, to, f)
	case q.nameLike(i + 1):
		// WINDOW w AS (...): PostgreSQL's named windows.
		f.inFrom = false
		return i, nil
	case q.is(i+1, tokLParen):
		q.quoteWindow(i)
		return i, q.sparkWindow(i, Tumbling)
	default:
		// SELECT window, ... / window.start / GROUP BY window
		q.quoteWindow(i)
		return i, nil
	}
}

// quoteWindow makes Spark's "window" column and function acceptable to
// PostgreSQL's grammar, where WINDOW is reserved.
func (q *queryRewriter) quoteWindow(i int) {
	q.rw.small = append(q.rw.small, edit{start: q.toks[i].start, end: q.toks[i].end, text: `"window"`})
}

func (q *queryRewriter) ksqlWindow(i, to int, f *frame) (int, error) {
	kindTok := i + 1
	spec := &WindowSpec{Pos: q.pos(i)}
	var want string
	switch q.word(kindTok) {
	case "tumbling":
		spec.Kind, want = Tumbling, "SIZE INTERVAL '<n> <unit>'"
	case "hopping":
		spec.Kind, want = Hopping, "SIZE INTERVAL '<n> <unit>', ADVANCE BY INTERVAL '<n> <unit>'"
	case "session":
		spec.Kind, want = Session, "GAP INTERVAL '<n> <unit>'"
	default:
		return i, q.errAt(sqlerr.FeatureNotSupported, kindTok, "WINDOW %s is not supported: use WINDOW TUMBLING, HOPPING or SESSION",
			strings.ToUpper(identValue(q.toks[kindTok].text)))
	}
	msg := "syntax error in WINDOW clause at or near %s: expected " + want
	close := q.matchParen(i + 2)
	if close < 0 || close >= to {
		return i, q.errAt(sqlerr.SyntaxError, i+2, msg, q.describe(i+2))
	}
	j := i + 3
	var sizeTok, slideTok, gapTok = -1, -1, -1
	for j < close {
		var which *int
		var d *time.Duration
		switch {
		case q.isWord(j, "size") && spec.Kind != Session && sizeTok < 0:
			which, d = &sizeTok, &spec.Size
			j++
		case q.isWord(j, "advance") && q.isWord(j+1, "by") && spec.Kind == Hopping && slideTok < 0:
			which, d = &slideTok, &spec.Slide
			j += 2
		case q.isWord(j, "gap") && spec.Kind == Session && gapTok < 0:
			which, d = &gapTok, &spec.Gap
			j++
		case spec.Kind == Session && gapTok < 0 && j == i+3:
			// ksqlDB writes SESSION (30 MINUTES)
			which, d = &gapTok, &spec.Gap
		default:
			return i, q.errAt(sqlerr.SyntaxError, j, msg, q.describe(j))
		}
		lit, ok := q.interval(j)
		if !ok || lit.next > close {
			return i, q.errAt(sqlerr.SyntaxError, j, msg, q.describe(j))
		}
		if lit.calendar {
			return i, q.errAt(sqlerr.InvalidParameterValue, j, "window intervals must be a fixed length of time (days, hours, minutes, seconds), not months or years")
		}
		*which, *d = j, lit.d
		j = lit.next
		if q.is(j, tokComma) && j+1 < close {
			j++
		} else if j != close {
			return i, q.errAt(sqlerr.SyntaxError, j, msg, q.describe(j))
		}
	}
	switch {
	case spec.Kind != Session && sizeTok < 0, spec.Kind == Hopping && slideTok < 0, spec.Kind == Session && gapTok < 0:
		return i, q.errAt(sqlerr.SyntaxError, close, msg, q.describe(close))
	}
	if err := q.validateWindow(spec, sizeTok, slideTok, gapTok); err != nil {
		return i, err
	}
	q.ksql = append(q.ksql, ksqlWindow{spec: spec, tok: i, level: f.level, sel: f.sel})
	q.windows = append(q.windows, windowAt{tok: i, spec: spec})
	q.rw.big = append(q.rw.big, edit{start: q.cutStart(i), end: q.toks[close].end})
	q.rewrites = true
	f.inFrom = false
	return close + 1, nil
}

// cutStart is where removing the clause starting at token i begins: the
// whitespace before it goes too, so no double spaces are left behind
// (comments stay).
func (q *tokenStream) cutStart(i int) int {
	start := q.toks[i].start
	floor := 0
	if i > 0 {
		floor = q.toks[i-1].end
	}
	for start > floor && strings.ContainsRune(" \t\r\n", rune(q.sql[start-1])) {
		start--
	}
	return start
}

// validateWindow checks sizes; the token indexes point the error at the
// interval concerned.
func (q *queryRewriter) validateWindow(spec *WindowSpec, sizeTok, slideTok, gapTok int) error {
	switch spec.Kind {
	case Tumbling, Hopping:
		if spec.Size <= 0 {
			return q.errAt(sqlerr.InvalidParameterValue, sizeTok, "window size must be positive")
		}
		if spec.Kind == Hopping {
			if spec.Slide <= 0 {
				return q.errAt(sqlerr.InvalidParameterValue, slideTok, "window slide must be positive")
			}
			if spec.Slide > spec.Size {
				return q.errAt(sqlerr.InvalidParameterValue, slideTok, "window slide %s must not exceed the window size %s", formatDuration(spec.Slide), formatDuration(spec.Size))
			}
			if spec.Size%spec.Slide != 0 {
				return q.errAt(sqlerr.InvalidParameterValue, slideTok, "window slide %s must divide the window size %s", formatDuration(spec.Slide), formatDuration(spec.Size))
			}
		}
	case Session:
		if spec.Gap <= 0 {
			return q.errAt(sqlerr.InvalidParameterValue, gapTok, "session gap must be positive")
		}
	}
	return nil
}

// args splits the call whose '(' is at open into argument token spans.
func (q *tokenStream) args(open int) (spans [][2]int, close int) {
	close = q.matchParen(open)
	if close < 0 {
		return nil, -1
	}
	depth := 0
	start := open + 1
	for k := open + 1; k < close; k++ {
		switch q.toks[k].kind {
		case tokLParen:
			depth++
		case tokRParen:
			depth--
		case tokComma:
			if depth == 0 {
				spans = append(spans, [2]int{start, k})
				start = k + 1
			}
		}
	}
	if start < close || len(spans) > 0 {
		spans = append(spans, [2]int{start, close})
	}
	return spans, close
}

// constInterval reads a span that is exactly one interval literal (or a
// string holding one, as Spark writes '5 minutes').
func (q *queryRewriter) constInterval(span [2]int) (time.Duration, bool, error) {
	lit, ok := q.interval(span[0])
	if !ok || lit.next != span[1] {
		return 0, false, nil
	}
	if lit.calendar {
		return 0, false, q.errAt(sqlerr.InvalidParameterValue, span[0], "window intervals must be a fixed length of time (days, hours, minutes, seconds), not months or years")
	}
	return lit.d, true, nil
}

// bareColumn returns the column a span names when it is name[.name...].
func (q *queryRewriter) bareColumn(span [2]int) (string, bool) {
	n := span[1] - span[0]
	if n <= 0 || n%2 == 0 || !q.nameLike(span[0]) {
		return "", false
	}
	for k := span[0]; k < span[1]; k++ {
		if (k-span[0])%2 == 0 && !q.labelLike(k) || (k-span[0])%2 == 1 && !q.is(k, tokDot) {
			return "", false
		}
	}
	return identValue(q.toks[span[1]-1].text), true
}

// tableFunctionWindow fills a WindowSpec from TUMBLE/HOP/SESSION(rel, col,
// intervals...) in FROM when the intervals are constants.
func (q *queryRewriter) tableFunctionWindow(it *fromItem) error {
	last := it.name
	if k := strings.LastIndexByte(last, '.'); k >= 0 {
		last = last[k+1:]
	}
	var kind WindowKind
	switch last {
	case "tumble":
		kind = Tumbling
	case "hop":
		kind = Hopping
	case "session":
		kind = Session
	default:
		return nil
	}
	open := q.firstParenAfter(it.relFirst)
	spans, _ := q.args(open)
	want := 3
	if kind == Hopping {
		want = 4
	}
	if len(spans) != want {
		return nil // the binder reports the wrong argument count
	}
	spec := &WindowSpec{Kind: kind, Pos: q.pos(it.relFirst)}
	spec.TimeColumn, _ = q.bareColumn(spans[1])
	a, ok, err := q.constInterval(spans[2])
	if err != nil || !ok {
		return err
	}
	sizeTok, slideTok, gapTok := spans[2][0], -1, -1
	switch kind {
	case Tumbling:
		spec.Size = a
	case Session:
		spec.Gap, gapTok = a, spans[2][0]
	case Hopping:
		b, ok, err := q.constInterval(spans[3])
		if err != nil || !ok {
			return err
		}
		spec.Slide, spec.Size = a, b // slide first, then size, as RisingWave
		slideTok, sizeTok = spans[2][0], spans[3][0]
	}
	if err := q.validateWindow(spec, sizeTok, slideTok, gapTok); err != nil {
		return err
	}
	q.windows = append(q.windows, windowAt{tok: it.relFirst, spec: spec})
	return nil
}

func (q *queryRewriter) firstParenAfter(i int) int {
	for k := i; k < len(q.toks); k++ {
		if q.is(k, tokLParen) {
			return k
		}
	}
	return len(q.toks)
}

// sparkWindow reads window(col, width[, slide]) or session_window(col, gap).
func (q *queryRewriter) sparkWindow(i int, kind WindowKind) error {
	q.rewrites = true
	spans, _ := q.args(i + 1)
	if len(spans) < 2 {
		return nil
	}
	spec := &WindowSpec{Kind: kind, Pos: q.pos(i)}
	spec.TimeColumn, _ = q.bareColumn(spans[0])
	a, ok, err := q.constInterval(spans[1])
	if err != nil || !ok {
		return err
	}
	sizeTok, slideTok, gapTok := spans[1][0], -1, -1
	switch {
	case kind == Session:
		spec.Gap, gapTok = a, spans[1][0]
	case len(spans) >= 3:
		b, ok, err := q.constInterval(spans[2])
		if err != nil || !ok {
			return err
		}
		spec.Kind, spec.Size, spec.Slide = Hopping, a, b
		slideTok = spans[2][0]
		if b == a {
			spec.Kind, spec.Slide = Tumbling, 0
		}
	default:
		spec.Size = a
	}
	if err := q.validateWindow(spec, sizeTok, slideTok, gapTok); err != nil {
		return err
	}
	q.windows = append(q.windows, windowAt{tok: i, spec: spec})
	return nil
}

// bindWindows attaches each ksqlDB WINDOW clause to the watermarked FROM
// item of its SELECT, fills st.Window and records the item rewrites.
func (q *queryRewriter) bindWindows() error {
	for _, w := range q.ksql {
		var target *fromItem
		for _, it := range q.items {
			if it.level != w.level || it.sel != w.sel || it.first > w.tok || it.wm == nil {
				continue
			}
			if target != nil {
				return q.errAt(sqlerr.FeatureNotSupported, w.tok, "WINDOW clause over several watermarked inputs is not supported: window one input with TUMBLE/HOP/SESSION in FROM")
			}
			target = it
		}
		if target == nil {
			return q.errAt(sqlerr.SyntaxError, w.tok, "WINDOW clause needs an event-time column: add WATERMARK <column> DELAY OF ... to the FROM item")
		}
		if target.window != nil {
			return q.errAt(sqlerr.SyntaxError, w.tok, "syntax error: more than one WINDOW clause")
		}
		w.spec.TimeColumn = target.wm.Column
		target.window = w.spec
	}
	first := -1
	for k, w := range q.windows {
		if first < 0 || w.tok < q.windows[first].tok {
			first = k
		}
	}
	if first >= 0 {
		q.st.Window = q.windows[first].spec
	}
	for _, it := range q.items {
		q.rw.big = append(q.rw.big, edit{start: q.toks[it.first].start, end: q.toks[it.last].end, text: q.itemText(it)})
	}
	return nil
}

// itemText is the canonical text of a rewritten FROM item.
func (q *queryRewriter) itemText(it *fromItem) string {
	rel := q.rw.render(q.toks[it.relFirst].start, q.toks[it.relEnd-1].end)
	aliasSpan := ""
	if it.aliasEnd > it.aliasFirst {
		aliasSpan = " " + q.rw.render(q.toks[it.aliasFirst].start, q.toks[it.aliasEnd-1].end)
	}
	// The name the rest of the query uses for this item.
	outer := ""
	if it.aliasTok >= 0 {
		outer = q.toks[it.aliasTok].text
	} else if !it.fn {
		outer = q.toks[it.relEnd-1].text
	}
	src := rel
	if it.wmDerived {
		src = "(SELECT *, " + it.wmExprText + " AS " + it.wmColText + " FROM " + rel + aliasSpan + ")"
	}
	if w := it.window; w != nil {
		var call string
		switch w.Kind {
		case Tumbling:
			call = "TUMBLE(" + src + ", " + it.wmColText + ", " + formatInterval(w.Size) + ")"
		case Hopping:
			call = "HOP(" + src + ", " + it.wmColText + ", " + formatInterval(w.Slide) + ", " + formatInterval(w.Size) + ")"
		case Session:
			call = "SESSION(" + src + ", " + it.wmColText + ", " + formatInterval(w.Gap) + ")"
		}
		if outer == "" {
			return call
		}
		return call + " AS " + outer
	}
	if it.wmDerived {
		if outer == "" {
			return src
		}
		return src + " " + outer
	}
	return rel + aliasSpan
}

// finish renders the canonical query, checks that PostgreSQL's grammar
// takes it as one query, and stores it.
func (q *queryRewriter) finish(from, end int) error {
	if from >= end {
		return q.errAt(sqlerr.SyntaxError, from, "syntax error: expected a query")
	}
	start, stop := q.toks[from].start, q.toks[end-1].end
	text, segs := q.rw.apply(start, stop)
	q.st.Query = text
	q.st.QueryOffset = start
	if err := checkNestingDepth(text); err != nil {
		return err
	}
	tree, err := pg_query.Parse(text)
	if err != nil && !isStackDepthError(err) {
		// Databricks' query spellings (GROUP BY ALL, QUALIFY, raw:path …)
		// stay in Query as written; Parse rewrites them again.
		if t2, _, ok := dialectRetry(text, &err); ok {
			tree, err = t2, nil
		}
	}
	if isStackDepthError(err) {
		return sqlerr.StackDepthExceeded()
	}
	if err != nil {
		var pe *parser.Error
		pos := start
		msg := err.Error()
		if errors.As(err, &pe) {
			msg = pe.Message
			if pe.Cursorpos > 0 {
				pos = origOffset(segs, byteOffset(text, pe.Cursorpos-1))
			}
		}
		return sqlerr.At(sqlerr.SyntaxError, charPos(q.sql, pos+1), "%s", msg)
	}
	if len(tree.Stmts) != 1 || tree.Stmts[0].Stmt == nil || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		return q.errAt(sqlerr.SyntaxError, from, "syntax error at or near %s: expected one query (SELECT, WITH, VALUES or TABLE)", q.describe(from))
	}
	return nil
}

// byteOffset converts a 0-based character offset into a byte offset.
func byteOffset(s string, chars int) int {
	if chars <= 0 {
		return 0
	}
	n := 0
	for i := range s {
		if n == chars {
			return i
		}
		n++
	}
	return len(s)
}
