package parse

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Databricks writes some queries in spellings PostgreSQL's grammar never
// takes. They are recognised only after PostgreSQL's parse has failed
// (PostgreSQL's reading of a text always wins) and rewritten, on scanner
// tokens, into PostgreSQL's grammar plus two markers the binder reads:
//
//	GROUP BY ALL                    -> GROUP BY $00   (ParamRef AllColumns)
//	ORDER BY ALL [ASC|DESC] [NULLS] -> ORDER BY $00 … (ParamRef AllColumns)
//	… FROM t QUALIFY cond ORDER BY  -> SELECT …, (cond) AS <QualifyColumn> FROM t ORDER BY
//	FROM VALUES (1, 'a'), (2, 'b') [AS t[(a, b)]]
//	                                -> FROM (VALUES …) AS t(a, b), Spark's names
//	                                   col1, col2 … when none are given
//	VALUES 1, 2, 3                  -> SELECT * FROM (VALUES (1), (2), (3)) AS "*VALUES*"(col1)
//	`Name`                          -> "name" (backtickNames)
//	raw:store.fruit[0]['type']      -> (raw::json #>> '{store,fruit,0,type}')
//	INTERVAL 10 SECONDS             -> INTERVAL '10 seconds'
//
// Every location of the parsed tree is mapped back to the text the client
// sent, so errors point into it.

// AllColumns is the ParamRef number that stands for Databricks' GROUP BY
// ALL and ORDER BY ALL: no client can write it (a parameter is $ and
// digits). The rewrite writes $00 (the length of ALL) and fixTree renumbers
// it; a text that holds a $0 of its own is not rewritten.
const AllColumns = -1

// QualifyColumn is the name of the select-list item that holds a QUALIFY
// condition: no identifier a client writes can hold a NUL.
const QualifyColumn = "\x00qualify"

// qualifyMarker is how the rewritten text names the QUALIFY item before
// the tree is fixed up.
const qualifyMarker = "?qualify?"

// databricksQuery parses sql after rewriting its Databricks spellings; ok
// is false when there are none or the rewritten text does not parse
// either (the caller then reports PostgreSQL's error on the original).
func databricksQuery(sql string) (tree *pg_query.ParseResult, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			tree, ok = nil, false // a bug here must not take the session down: report PostgreSQL's error
		}
	}()
	toks, err := tokens(sql)
	if err != nil || strings.Contains(sql, qualifyMarker) {
		return nil, false
	}
	ts := &tokenStream{sql: sql, toks: toks}
	for i := range toks {
		if toks[i].kind == pg_query.Token_PARAM {
			if n, _ := strconv.Atoi(toks[i].text[1:]); n == 0 {
				return nil, false // $0 would be read as a marker
			}
		}
	}
	d := &dbxRewrite{tokenStream: ts, rw: &rewriter{sql: sql}}
	before := len(d.rw.small)
	ts.canonicalIntervals(d.rw, 0, len(toks))
	d.changed = len(d.rw.small) > before
	d.allMarkers()
	d.fromValues()
	d.qualify()
	d.jsonPaths()
	d.tableArgs() // databricks_table_arg.go
	if !d.changed {
		return nil, false
	}
	text, segs := d.rw.apply(0, len(sql))
	tree, err = pg_query.Parse(text)
	if err != nil {
		return nil, false
	}
	fixTree(tree, segs, len(text))
	return tree, true
}

type dbxRewrite struct {
	*tokenStream
	rw      *rewriter
	changed bool
}

func (d *dbxRewrite) small(i, j int, text string) {
	d.rw.small = append(d.rw.small, edit{start: d.toks[i].start, end: d.toks[j].end, text: text})
	d.changed = true
}

// endsClause reports whether token i cannot continue an expression list:
// the clause before it is complete.
func (d *dbxRewrite) endsClause(i int) bool {
	if i >= len(d.toks) {
		return true
	}
	switch d.toks[i].kind {
	case tokSemi, tokRParen, pg_query.Token_HAVING, pg_query.Token_ORDER, pg_query.Token_LIMIT,
		pg_query.Token_OFFSET, pg_query.Token_FETCH, pg_query.Token_WINDOW, pg_query.Token_UNION,
		pg_query.Token_INTERSECT, pg_query.Token_EXCEPT, pg_query.Token_FOR:
		return true
	}
	return d.isWord(i, "qualify")
}

// allMarkers rewrites GROUP BY ALL and ORDER BY ALL. PostgreSQL reads
// GROUP BY ALL a, b (ALL as a set quantifier); only ALL with nothing after
// it is Databricks'. "$00" keeps the text's length.
func (d *dbxRewrite) allMarkers() {
	var open []int // the '(' tokens around i
	for i := 0; i+2 < len(d.toks); i++ {
		switch d.toks[i].kind {
		case tokLParen:
			open = append(open, i)
		case tokRParen:
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
		if !d.is(i+1, pg_query.Token_BY) || !d.is(i+2, pg_query.Token_ALL) {
			continue
		}
		if len(open) > 0 {
			// Only a query's own clause: not ORDER BY inside OVER (...)
			// or an aggregate's argument list.
			switch d.word(open[len(open)-1] + 1) {
			case "select", "with", "values", "table":
			default:
				continue
			}
		}
		switch {
		case d.is(i, pg_query.Token_GROUP_P) && d.endsClause(i+3):
		case d.is(i, pg_query.Token_ORDER):
			j := i + 3
			if d.is(j, pg_query.Token_ASC) || d.is(j, pg_query.Token_DESC) {
				j++
			}
			if d.isWord(j, "nulls") && (d.isWord(j+1, "first") || d.isWord(j+1, "last")) {
				j += 2
			}
			if !d.endsClause(j) {
				continue
			}
		default:
			continue
		}
		d.small(i+2, i+2, "$00")
	}
}

// fromValues rewrites FROM VALUES rows [[AS] alias [(cols)]] (and JOIN
// VALUES …), which PostgreSQL takes only in parentheses, and a statement
// VALUES 1, 2, 3 (rows of one bare constant each, which PostgreSQL never
// takes).
func (d *dbxRewrite) fromValues() {
	for i := 0; i+2 < len(d.toks); i++ {
		top := i == 0 && d.is(0, pg_query.Token_VALUES)
		v := i + 1
		if top {
			v = 0
		} else if !d.is(i, pg_query.Token_FROM) && !d.is(i, pg_query.Token_JOIN) || !d.is(v, pg_query.Token_VALUES) {
			continue
		}
		rows, width := d.valuesRows(v + 1)
		if len(rows) == 0 || top && !rows[0].bare {
			continue
		}
		j := rows[len(rows)-1].last + 1
		alias, cols := `"*VALUES*"`, false
		k := j
		if !top {
			switch {
			case d.is(k, pg_query.Token_AS) && d.labelLike(k+1):
				alias, k = d.toks[k+1].text, k+2
			case d.nameLike(k) && !d.isWord(k, "qualify"):
				alias, k = d.toks[k].text, k+1
			}
			if d.is(k, tokLParen) {
				cols = true
				if close := d.matchParen(k); close > 0 {
					k = close + 1
				}
			}
		}
		names := ""
		if !cols {
			var b strings.Builder
			b.WriteString("(")
			for c := 1; c <= width; c++ {
				if c > 1 {
					b.WriteString(", ")
				}
				b.WriteString("col" + strconv.Itoa(c))
			}
			b.WriteString(")")
			names = b.String()
		}
		if top {
			d.small(v, v, "SELECT * FROM (VALUES")
		} else {
			d.small(v, v, "(VALUES")
		}
		suffix := ")"
		if k == j {
			suffix += " AS " + alias + names
		} else if !cols {
			// The alias as written stays; the columns are named after it.
			d.small(k-1, k-1, d.toks[k-1].text+names)
		}
		for n, r := range rows {
			text := d.sql[d.toks[r.first].start:d.toks[r.last].end]
			if r.bare {
				text = "(" + text + ")"
			}
			if n == len(rows)-1 {
				text += suffix
			} else if !r.bare {
				continue
			}
			d.small(r.first, r.last, text)
		}
		i = k - 1
	}
}

// valuesRow is one row of VALUES: tokens [first, last], in parentheses or
// one bare constant.
type valuesRow struct {
	first, last int
	bare        bool
}

// valuesRows reads the rows after VALUES and the width of the first.
func (d *dbxRewrite) valuesRows(j int) (rows []valuesRow, width int) {
	for {
		switch {
		case d.is(j, tokLParen):
			spans, close := d.args(j)
			if close < 0 {
				return nil, 0
			}
			if width == 0 {
				width = len(spans)
			}
			rows = append(rows, valuesRow{first: j, last: close})
			j = close + 1
		case d.bareConstant(j) > j:
			end := d.bareConstant(j)
			if width == 0 {
				width = 1
			}
			rows = append(rows, valuesRow{first: j, last: end - 1, bare: true})
			j = end
		default:
			return rows, width
		}
		if !d.is(j, tokComma) {
			return rows, width
		}
		j++
	}
}

// bareConstant returns the index after a constant ([-]number, string,
// TRUE, FALSE, NULL) at j, or j.
func (d *dbxRewrite) bareConstant(j int) int {
	k := j
	if d.is(k, tokMinus) {
		k++
	}
	switch d.at(k).kind {
	case pg_query.Token_ICONST, pg_query.Token_FCONST:
		return k + 1
	case pg_query.Token_SCONST, pg_query.Token_TRUE_P, pg_query.Token_FALSE_P, pg_query.Token_NULL_P:
		if k == j {
			return k + 1
		}
	}
	return j
}

// qualify moves QUALIFY cond into its SELECT's list as a hidden item the
// binder filters on after the window functions are computed.
func (d *dbxRewrite) qualify() {
	depth := 0
	type level struct{ sel, from int }
	levels := map[int]*level{}
	for i := 0; i < len(d.toks); i++ {
		switch d.toks[i].kind {
		case tokLParen:
			depth++
			continue
		case tokRParen:
			delete(levels, depth)
			depth--
			continue
		case pg_query.Token_SELECT:
			levels[depth] = &level{sel: i, from: -1}
			continue
		case pg_query.Token_FROM:
			if l := levels[depth]; l != nil && l.from < 0 {
				l.from = i
			}
			continue
		}
		l := levels[depth]
		if !d.isWord(i, "qualify") || l == nil || d.is(i-1, tokDot) || d.is(i-1, pg_query.Token_AS) {
			continue
		}
		// The condition runs to the next clause at this depth.
		end, dd := i+1, 0
		for ; end < len(d.toks); end++ {
			if d.is(end, tokLParen) {
				dd++
			} else if d.is(end, tokRParen) {
				if dd == 0 {
					break
				}
				dd--
			} else if dd == 0 && d.endsClause(end) && !d.is(end, pg_query.Token_WINDOW) {
				break
			}
		}
		if end == i+1 {
			continue
		}
		at := l.from
		if at < 0 {
			at = i
		}
		cs, ce := d.toks[i+1].start, d.toks[end-1].end
		cond := d.rw.render(cs, ce)
		item := ", (" + cond + ") AS \"" + qualifyMarker + "\""
		verbatim := cond == d.sql[cs:ce]
		// The edits are big: the condition's own small edits (JSON paths,
		// intervals) are rendered into the moved text above.
		moved := edit{text: item, copied: verbatim, copyAt: 3, copyLen: len(cond), copyFrom: cs}
		if at == i {
			// No FROM: the item goes where the clause was.
			moved.start, moved.end = d.cutStart(i), d.toks[end-1].end
			d.rw.big = append(d.rw.big, moved)
		} else {
			d.rw.big = append(d.rw.big, edit{start: d.cutStart(i), end: d.toks[end-1].end})
			moved.start, moved.end, moved.text = d.toks[at].start, d.toks[at].start, item+" "
			d.rw.big = append(d.rw.big, moved)
		}
		d.changed = true
		i = end - 1
	}
}

// jsonPaths rewrites Databricks' JSON path expressions base:path, where
// base is a column reference or a parenthesised expression, into json's
// #>> (a missing step gives NULL, JSON null gives SQL NULL, strings come
// unquoted, objects and arrays as their JSON text, as Databricks returns).
func (d *dbxRewrite) jsonPaths() {
	bracket := 0
	for i := 1; i+1 < len(d.toks); i++ {
		switch d.toks[i].kind {
		case pg_query.Token_ASCII_91:
			bracket++
			continue
		case pg_query.Token_ASCII_93:
			bracket--
			continue
		}
		if bracket > 0 || d.toks[i].kind != pg_query.Token_ASCII_58 {
			continue
		}
		first, ok := d.jsonBase(i - 1)
		if !ok {
			continue
		}
		path, steps, end, ok := d.jsonPath(i + 1)
		if !ok {
			continue
		}
		base := d.rw.render(d.toks[first].start, d.toks[i-1].end)
		text := "(" + base + "::json #>> " + pathLiteral(path) + ")"
		if strings.Contains(steps, "i") {
			// An undelimited name matches a field whatever its case
			// (sql/expr/funcs_spark_json_path.go).
			text = "_json_path_ci(" + base + "::json, " + pathLiteral(path) + ", '" + steps + "')"
		}
		d.rw.big = append(d.rw.big, edit{start: d.toks[first].start, end: d.toks[end-1].end, text: text})
		d.changed = true
		i = end - 1
	}
}

// jsonBase finds the first token of the operand ending at token last.
func (d *dbxRewrite) jsonBase(last int) (int, bool) {
	if d.is(last, tokRParen) {
		depth := 0
		for k := last; k >= 0; k-- {
			switch d.toks[k].kind {
			case tokRParen:
				depth++
			case tokLParen:
				depth--
				if depth == 0 {
					if d.nameLike(k-1) || d.at(k-1).kw == pg_query.KeywordKind_TYPE_FUNC_NAME_KEYWORD {
						return k - 1, true // a function call
					}
					return k, true
				}
			}
		}
		return 0, false
	}
	if !d.labelLike(last) || d.toks[last].kw == pg_query.KeywordKind_RESERVED_KEYWORD {
		return 0, false
	}
	k := last
	for d.is(k-1, tokDot) && d.labelLike(k-2) {
		k -= 2
	}
	return k, true
}

// jsonPath reads the path after the colon: { name | [ 'field' ] | [ n ] }
// then { . name | [ 'field' ] | [ n ] }*. steps has a letter per element:
// 'i' for a name (matched whatever its case), 'e' for a bracketed field
// or an index (matched exactly).
func (d *dbxRewrite) jsonPath(i int) (path []string, steps string, end int, ok bool) {
	j := i
	for {
		switch {
		case (j == i || d.is(j-1, tokDot)) && d.labelLike(j) && !d.is(j, pg_query.Token_SCONST):
			path = append(path, jsonField(d.toks[j].text))
			steps += "i"
			j++
		case d.is(j, pg_query.Token_ASCII_91) && d.is(j+2, pg_query.Token_ASCII_93):
			t := d.toks[j+1]
			switch t.kind {
			case pg_query.Token_SCONST:
				s, sok := stringValue(t.text)
				if !sok {
					return nil, "", i, false
				}
				path = append(path, s)
			case pg_query.Token_ICONST:
				path = append(path, t.text)
			default:
				return nil, "", i, false
			}
			steps += "e"
			j += 3
		default:
			return nil, "", i, false
		}
		if d.is(j, tokDot) && d.labelLike(j+1) {
			j++
			continue
		}
		if d.is(j, pg_query.Token_ASCII_91) && d.is(j+2, pg_query.Token_ASCII_93) {
			continue
		}
		return path, steps, j, true
	}
}

// pathLiteral spells a path as a text[] literal.
func pathLiteral(path []string) string {
	var b strings.Builder
	b.WriteString("'{")
	for k, p := range path {
		if k > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"`)
		b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`, `'`, `''`).Replace(p))
		b.WriteString(`"`)
	}
	b.WriteString("}'")
	return b.String()
}

// fixTree maps every location of the tree back to the original text and
// turns the rewrite's markers into the values the binder reads.
func fixTree(tree *pg_query.ParseResult, segs []segment, textLen int) {
	for _, raw := range tree.Stmts {
		start := int(raw.StmtLocation)
		end := textLen
		if raw.StmtLen > 0 {
			end = start + int(raw.StmtLen)
		}
		os, oe := origOffset(segs, start), origEnd(segs, end)
		raw.StmtLocation = int32(os)
		if raw.StmtLen > 0 {
			raw.StmtLen = int32(oe - os)
		}
		walkMessages(raw.Stmt.ProtoReflect(), func(m protoreflect.Message) {
			switch x := m.Interface().(type) {
			case *pg_query.ParamRef:
				if x.Number == 0 {
					x.Number = AllColumns
				}
			case *pg_query.ResTarget:
				if x.Name == qualifyMarker {
					x.Name = QualifyColumn
				}
			}
			fd := m.Descriptor().Fields().ByName("location")
			if fd == nil || fd.Kind() != protoreflect.Int32Kind {
				return
			}
			if loc := m.Get(fd).Int(); loc >= 0 {
				m.Set(fd, protoreflect.ValueOfInt32(int32(origOffset(segs, int(loc)))))
			}
		})
	}
}

// origEnd maps an end offset (exclusive) of the output back.
func origEnd(segs []segment, out int) int {
	if out <= 0 {
		return 0
	}
	return origOffset(segs, out-1) + 1
}

func walkMessages(m protoreflect.Message, visit func(protoreflect.Message)) {
	if !m.IsValid() {
		return
	}
	visit(m)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walkMessages(l.Get(i).Message(), visit)
			}
		case fd.Message() != nil && !fd.IsMap():
			walkMessages(v.Message(), visit)
		}
		return true
	})
}

// jsonField is the key a path identifier names: as written (a quoted one
// unquoted). Databricks matches an identifier step without regard to
// case: a path with one is read by _json_path_ci, not #>>.
func jsonField(text string) string {
	if strings.HasPrefix(text, `"`) {
		return identValue(text)
	}
	return text
}

// dialectRetry is Parse's last try when PostgreSQL's grammar rejects a
// text: Databricks' spellings (after Spark's window fields, when those
// are there too). It returns the tree and the text its locations are in.
// A Databricks feature weir does not have replaces *perr with a 0A000
// naming it (databricks_refused.go).
func dialectRetry(sql string, perr *error) (*pg_query.ParseResult, string, bool) {
	if err := refusedFeature(sql); err != nil {
		*perr = err
		return nil, sql, false
	}
	base := sql
	if r, ok := SparkWindowFields(sql); ok {
		base = r
	}
	if r, ok := backtickNames(base); ok {
		base = r
	}
	if r, ok := sparkCalls(base); ok { // spark_calls.go
		base = r
	}
	if r, ok := tryCasts(base); ok { // spark_try_cast.go
		base = r
	}
	tree, ok := databricksQuery(base)
	if !ok && base != sql {
		// Only names (backticks, window fields) or calls needed rewriting.
		if t, err := pg_query.Parse(base); err == nil {
			return t, base, true
		}
	}
	return tree, base, ok
}

// ParseQueryText parses a query as the streaming front end reads it:
// PostgreSQL's grammar, then Databricks' spellings (GROUP BY ALL,
// QUALIFY, backticks, Spark calls). It returns the tree and the text its
// locations point into: the query itself, or the query with Databricks'
// names and calls rewritten (which parses the same way again). The
// engine's rewriting of table functions in FROM (nexmark(), read_files())
// splices that text.
func ParseQueryText(sql string) (*pg_query.ParseResult, string, error) {
	tree, err := pg_query.Parse(sql)
	if err == nil {
		return tree, sql, nil
	}
	if t2, text, ok := dialectRetry(sql, &err); ok {
		return t2, text, nil
	}
	return nil, sql, err
}
