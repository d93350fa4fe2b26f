package parse

import (
	"strings"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Source statements (dialect.md, Sources):
//
//	CREATE SOURCE [IF NOT EXISTS] name [ ( column type [, ...] [, WATERMARK FOR col AS col - INTERVAL '...'] ) ]
//	  WITH ( option = value [, ...] )
//	DROP SOURCE [IF EXISTS] name [, ...] [CASCADE | RESTRICT]
//	SHOW SOURCES
//
// They are read by the same token pass as the streaming statements and
// come back as a StreamingStmt of kind CreateSource, DropSource or
// ShowSources. The column list is kept as text (SourceColumns) for the
// engine to parse as PostgreSQL column definitions; its WATERMARK FOR
// element is cut out into Watermark as for CREATE TABLE.

// isSourceWord reports whether token i is SOURCE (unquoted).
func (p *stmtParser) isSourceWord(i int) bool { return p.isWord(i, "source") }

// createSource reads CREATE SOURCE ... (the CREATE token is 0).
func (p *stmtParser) createSource(st *StreamingStmt) error {
	st.Kind = CreateSource
	rest, wm, err := ParseCreateTableWatermark(p.sql)
	if err != nil {
		return err
	}
	st.Watermark = wm
	// Read the statement without its WATERMARK FOR element (positions
	// after a removed element are off by its length; errors inside the
	// WITH list still name the offending token).
	q := p
	if rest != p.sql {
		toks, err := tokens(rest)
		if err != nil {
			return err
		}
		q = &stmtParser{tokenStream: &tokenStream{sql: rest, toks: toks}}
	}
	i := 2
	if q.isWord(i, "if") && q.isWord(i+1, "not") && q.isWord(i+2, "exists") {
		st.IfNotExists = true
		i += 3
	}
	if i, err = q.sourceName(st, i); err != nil {
		return err
	}
	if q.is(i, tokLParen) {
		close := q.matchParen(i)
		if close < 0 {
			return q.errAt(sqlerr.SyntaxError, i, "syntax error: missing ) after the column list of CREATE SOURCE")
		}
		st.SourceColumns = strings.TrimSpace(q.sql[q.at(i).end:q.at(close).start])
		st.SourceColumnsPos = q.pos(i)
		i = close + 1
	}
	if !q.isWord(i, "with") || !q.is(i+1, tokLParen) {
		return q.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected WITH ( connector = '...', option = value [, ...] )", q.describe(i))
	}
	if i, err = q.options(st, i+1); err != nil {
		return err
	}
	if i < q.end() {
		return q.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected end of CREATE SOURCE", q.describe(i))
	}
	return nil
}

// sourceName reads a source's name at i.
func (p *stmtParser) sourceName(st *StreamingStmt, i int) (int, error) {
	parts, next, ok := p.qualifiedName(i)
	if !ok {
		return i, p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected a source name", p.describe(i))
	}
	st.Name = parts[len(parts)-1]
	if len(parts) >= 2 {
		st.Schema = parts[len(parts)-2]
	}
	st.Names = append(st.Names, QualifiedName{Schema: st.Schema, Name: st.Name})
	return next, nil
}

// dropSource reads DROP SOURCE [IF EXISTS] name [, ...] [CASCADE | RESTRICT].
func (p *stmtParser) dropSource(st *StreamingStmt) error {
	st.Kind = DropSource
	return p.dropNames(st, "source", "DROP SOURCE")
}

// dropNames reads what follows DROP SOURCE / DROP SINK: [IF EXISTS]
// name [, ...] [CASCADE | RESTRICT] (what names the objects, for errors;
// stmt the statement).
func (p *stmtParser) dropNames(st *StreamingStmt, what, stmt string) error {
	i := 2
	if p.isWord(i, "if") && p.isWord(i+1, "exists") {
		st.IfExists = true
		i += 2
	}
	for {
		parts, next, ok := p.qualifiedName(i)
		if !ok {
			return p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected a %s name", p.describe(i), what)
		}
		q := QualifiedName{Name: parts[len(parts)-1]}
		if len(parts) >= 2 {
			q.Schema = parts[len(parts)-2]
		}
		st.Names = append(st.Names, q)
		if i = next; !p.is(i, tokComma) {
			break
		}
		i++
	}
	st.Schema, st.Name = st.Names[0].Schema, st.Names[0].Name
	switch {
	case p.isWord(i, "cascade"):
		st.Cascade = true
		i++
	case p.isWord(i, "restrict"):
		i++
	}
	if i < p.end() {
		return p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected end of %s", p.describe(i), stmt)
	}
	return nil
}

// showSources reads SHOW SOURCES.
func (p *stmtParser) showSources(st *StreamingStmt) error {
	st.Kind = ShowSources
	if p.end() > 2 {
		return p.errAt(sqlerr.SyntaxError, 2, "syntax error at or near %s: SHOW SOURCES takes no arguments", p.describe(2))
	}
	return nil
}

// sourceStatement dispatches the source statements; ok is false when the
// text is not one.
func (p *stmtParser) sourceStatement(st *StreamingStmt) (ok bool, err error) {
	switch {
	case p.isWord(0, "create") && p.isSourceWord(1):
		return true, p.createSource(st)
	case p.isWord(0, "drop") && p.isSourceWord(1):
		return true, p.dropSource(st)
	case p.isWord(0, "show") && p.isWord(1, "sources"):
		return true, p.showSources(st)
	}
	return false, nil
}
