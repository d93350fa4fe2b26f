package parse

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Column mask statements, in Databricks' spelling (ALTER TABLE … COLUMN
// clause; the column mask clause), which PostgreSQL's grammar does not
// know:
//
//	ALTER [STREAMING] TABLE t { ALTER | CHANGE } [COLUMN] c SET MASK f [USING COLUMNS ( other_col | literal [, ...] )]
//	ALTER [STREAMING] TABLE t { ALTER | CHANGE } [COLUMN] c DROP MASK

// The statement kinds of this file (numbered apart from the others').
const (
	SetColumnMask  StreamingKind = 500 + iota // ALTER TABLE … ALTER COLUMN c SET MASK f
	DropColumnMask                            // ALTER TABLE … ALTER COLUMN c DROP MASK
)

// IsColumnMask reports whether kind is one of this file's statements.
func IsColumnMask(kind StreamingKind) bool { return kind == SetColumnMask || kind == DropColumnMask }

// MaskSpec is a column mask statement's clause.
type MaskSpec struct {
	Column string
	// Function is the mask function's name as written, its parts joined
	// by "." (unquoted).
	Function string
	// Using are the USING COLUMNS items as SQL text: a column as a quoted
	// identifier, a literal as written.
	Using []string
	// Streaming is set for ALTER STREAMING TABLE.
	Streaming bool
	// FunctionPos is the 1-based position of the function's name.
	FunctionPos int
}

// maskStatement reads the column mask statements; ok is false when the
// text is not one.
func (p *stmtParser) maskStatement(st *StreamingStmt) (ok bool, err error) {
	if !p.isWord(0, "alter") {
		return false, nil
	}
	i := 1
	streaming := p.isWord(i, "streaming")
	if streaming {
		i++
	}
	if !p.is(i, pg_query.Token_TABLE) {
		return false, nil
	}
	var named StreamingStmt
	j, err := p.name(&named, i+1)
	if err != nil {
		return false, nil
	}
	if !p.isWord(j, "alter") && !p.isWord(j, "change") {
		return false, nil
	}
	j++
	if p.isWord(j, "column") {
		j++
	}
	if !p.nameLike(j) && !p.is(j, pg_query.Token_IDENT) {
		return false, nil
	}
	col := identValue(p.toks[j].text)
	j++
	switch {
	case p.isWord(j, "set") && p.isWord(j+1, "mask"):
		st.Kind = SetColumnMask
	case p.isWord(j, "drop") && p.isWord(j+1, "mask"):
		st.Kind = DropColumnMask
	default:
		return false, nil
	}
	st.Name, st.Schema = named.Name, named.Schema
	spec := &MaskSpec{Column: col, Streaming: streaming}
	st.Mask = spec
	j += 2
	if st.Kind == SetColumnMask {
		parts, next, ok := p.qualifiedName(j)
		if !ok {
			return true, p.errAt(sqlerr.SyntaxError, j, "syntax error at or near %s: expected the mask function's name", p.describe(j))
		}
		spec.Function, spec.FunctionPos = strings.Join(parts, "."), p.pos(j)
		j = next
		if p.is(j, pg_query.Token_USING) {
			if !p.isWord(j+1, "columns") || !p.is(j+2, tokLParen) {
				return true, p.errAt(sqlerr.SyntaxError, j+1, "syntax error at or near %s: expected USING COLUMNS (…)", p.describe(j+1))
			}
			close := p.matchParen(j + 2)
			if close < 0 {
				return true, p.errAt(sqlerr.SyntaxError, p.end(), "syntax error at end of input")
			}
			if spec.Using, err = p.maskUsing(j+3, close); err != nil {
				return true, err
			}
			j = close + 1
		}
	}
	if j < p.end() {
		return true, p.errAt(sqlerr.SyntaxError, j, "syntax error at or near %s", p.describe(j))
	}
	return true, nil
}

// maskUsing reads the USING COLUMNS items of tokens [i, close).
func (p *stmtParser) maskUsing(i, close int) ([]string, error) {
	var out []string
	for i < close {
		from := i
		switch {
		case p.is(i, pg_query.Token_SCONST), p.is(i, pg_query.Token_ICONST), p.is(i, pg_query.Token_FCONST),
			p.is(i, pg_query.Token_TRUE_P), p.is(i, pg_query.Token_FALSE_P), p.is(i, pg_query.Token_NULL_P):
			out = append(out, p.text(i, i+1))
			i++
		case p.is(i, tokMinus) && (p.is(i+1, pg_query.Token_ICONST) || p.is(i+1, pg_query.Token_FCONST)):
			out = append(out, p.text(i, i+2))
			i += 2
		case p.nameLike(i):
			out = append(out, `"`+strings.ReplaceAll(identValue(p.toks[i].text), `"`, `""`)+`"`)
			i++
		default:
			return nil, p.errAt(sqlerr.SyntaxError, from, "syntax error at or near %s: USING COLUMNS takes column names and literals", p.describe(from))
		}
		if i < close {
			if !p.is(i, tokComma) {
				return nil, p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s", p.describe(i))
			}
			i++
		}
	}
	return out, nil
}

// ColumnMaskClause is a MASK clause of a column in CREATE TABLE
// (Databricks: column_identifier data_type … MASK func [USING COLUMNS (…)]).
type ColumnMaskClause struct {
	Column   string
	Function string   // as written, parts joined by "."
	Using    []string // as MaskSpec.Using
	Pos      int      // 1-based position of MASK
}

// CutColumnMasks removes the MASK clauses from the column list of
// CREATE TABLE text and returns the rest, which PostgreSQL's grammar
// reads, with the clauses in column order. Texts without any come back
// unchanged with no clauses.
func CutColumnMasks(sql string) (rest string, masks []ColumnMaskClause, err error) {
	defer func() {
		if r := recover(); r != nil {
			rest, masks, err = sql, nil, sqlerr.New(sqlerr.InternalError, "MASK clause front end failed: %v", r)
		}
	}()
	toks, err := tokens(sql)
	if err != nil || len(toks) == 0 {
		return sql, nil, nil
	}
	p := &stmtParser{tokenStream: &tokenStream{sql: sql, toks: toks}}
	if !p.isWord(0, "create") {
		return sql, nil, nil
	}
	open := -1
	for i := 1; i < len(toks) && i < 12; i++ {
		if p.is(i, tokLParen) {
			open = i
			break
		}
	}
	tableOK := false
	for i := 1; i < open; i++ {
		if p.is(i, pg_query.Token_TABLE) {
			tableOK = true
		}
	}
	if open < 0 || !tableOK {
		return sql, nil, nil
	}
	close := p.matchParen(open)
	if close < 0 {
		return sql, nil, nil
	}
	rw := &rewriter{sql: sql}
	depth := 0
	elemStart := open + 1
	for k := open + 1; k < close; k++ {
		switch {
		case p.is(k, tokLParen):
			depth++
		case p.is(k, tokRParen):
			depth--
		case p.is(k, tokComma) && depth == 0:
			elemStart = k + 1
		case depth == 0 && k > elemStart+1 && p.isWord(k, "mask") && p.nameLike(elemStart):
			parts, next, ok := p.qualifiedName(k + 1)
			if !ok {
				return sql, nil, p.errAt(sqlerr.SyntaxError, k+1, "syntax error at or near %s: expected the mask function's name", p.describe(k+1))
			}
			m := ColumnMaskClause{Column: identValue(toks[elemStart].text), Function: strings.Join(parts, "."), Pos: p.pos(k)}
			end := next
			if p.is(next, pg_query.Token_USING) {
				if !p.isWord(next+1, "columns") || !p.is(next+2, tokLParen) {
					return sql, nil, p.errAt(sqlerr.SyntaxError, next+1, "syntax error at or near %s: expected USING COLUMNS (…)", p.describe(next+1))
				}
				uc := p.matchParen(next + 2)
				if uc < 0 || uc >= close {
					return sql, nil, p.errAt(sqlerr.SyntaxError, next+2, "syntax error at or near %s", p.describe(next+2))
				}
				if m.Using, err = p.maskUsing(next+3, uc); err != nil {
					return sql, nil, err
				}
				end = uc + 1
			}
			masks = append(masks, m)
			rw.big = append(rw.big, edit{start: toks[k].start, end: toks[end-1].end})
			k = end - 1
		}
	}
	if len(masks) == 0 {
		return sql, nil, nil
	}
	out, _ := rw.apply(0, len(sql))
	return out, masks, nil
}

// maskClause reads MASK f [USING COLUMNS (…)] at j (MASK), within tokens
// before close, and returns the index after it.
func (p *stmtParser) maskClause(j, close int) (*MaskSpec, int, error) {
	parts, next, ok := p.qualifiedName(j + 1)
	if !ok || next > close {
		return nil, j, p.errAt(sqlerr.SyntaxError, j+1, "syntax error at or near %s: expected the mask function's name", p.describe(j+1))
	}
	m := &MaskSpec{Function: strings.Join(parts, "."), FunctionPos: p.pos(j + 1)}
	if !p.is(next, pg_query.Token_USING) {
		return m, next, nil
	}
	if !p.isWord(next+1, "columns") || !p.is(next+2, tokLParen) {
		return nil, j, p.errAt(sqlerr.SyntaxError, next+1, "syntax error at or near %s: expected USING COLUMNS (…)", p.describe(next+1))
	}
	uc := p.matchParen(next + 2)
	if uc < 0 || uc >= close {
		return nil, j, p.errAt(sqlerr.SyntaxError, next+2, "syntax error at or near %s", p.describe(next+2))
	}
	using, err := p.maskUsing(next+3, uc)
	if err != nil {
		return nil, j, err
	}
	m.Using = using
	return m, uc + 1, nil
}
