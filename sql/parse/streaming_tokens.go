package parse

import (
	"fmt"
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// The streaming front end works on pg_query.Scan tokens rather than on the
// raw text so that keywords inside string literals, quoted identifiers and
// comments are never mistaken for clauses. Rewrites are byte-range edits of
// the original text: whatever is not edited (comments included) is copied
// through verbatim.

// token is one scanned token; comments are dropped from the token list.
type token struct {
	start, end int // byte offsets into the statement text
	kind       pg_query.Token
	kw         pg_query.KeywordKind
	text       string
}

const (
	tokLParen = pg_query.Token_ASCII_40
	tokRParen = pg_query.Token_ASCII_41
	tokComma  = pg_query.Token_ASCII_44
	tokMinus  = pg_query.Token_ASCII_45
	tokDot    = pg_query.Token_ASCII_46
	tokSemi   = pg_query.Token_ASCII_59
	tokEquals = pg_query.Token_ASCII_61
)

// tokens scans sql; a scanner error (an unterminated literal, say) is a
// 42601 with PostgreSQL's position.
func tokens(sql string) ([]token, error) {
	res, err := pg_query.Scan(sql)
	if err != nil {
		return nil, syntaxError(sql, err)
	}
	out := make([]token, 0, len(res.Tokens))
	for _, t := range res.Tokens {
		if t.Token == pg_query.Token_SQL_COMMENT || t.Token == pg_query.Token_C_COMMENT {
			continue
		}
		s, e := int(t.Start), int(t.End)
		if s < 0 || e > len(sql) || s > e {
			continue
		}
		out = append(out, token{start: s, end: e, kind: t.Token, kw: t.KeywordKind, text: sql[s:e]})
	}
	return out, nil
}

// tokenStream is the token list of one statement plus helpers that make
// out-of-range indexes harmless (the fuzz target relies on that).
type tokenStream struct {
	sql  string
	toks []token
}

func (ts *tokenStream) at(i int) token {
	if i < 0 || i >= len(ts.toks) {
		return token{start: len(ts.sql), end: len(ts.sql)}
	}
	return ts.toks[i]
}

func (ts *tokenStream) is(i int, k pg_query.Token) bool {
	return i >= 0 && i < len(ts.toks) && ts.toks[i].kind == k
}

// word is the lower-cased text of a keyword or an unquoted identifier, and
// "" for anything else: a quoted "stream" is a name, never a keyword.
func (ts *tokenStream) word(i int) string {
	if i < 0 || i >= len(ts.toks) {
		return ""
	}
	t := ts.toks[i]
	if t.kind == pg_query.Token_IDENT && !strings.HasPrefix(t.text, `"`) || t.kw != pg_query.KeywordKind_NO_KEYWORD {
		return strings.ToLower(t.text)
	}
	return ""
}

func (ts *tokenStream) isWord(i int, w string) bool { return ts.word(i) == w }

// nameLike reports whether token i can be a (column or relation) name
// without quoting: an identifier or a non-reserved keyword.
func (ts *tokenStream) nameLike(i int) bool {
	if i < 0 || i >= len(ts.toks) {
		return false
	}
	t := ts.toks[i]
	switch t.kind {
	case pg_query.Token_IDENT, pg_query.Token_UIDENT:
		return true
	}
	return t.kw == pg_query.KeywordKind_UNRESERVED_KEYWORD || t.kw == pg_query.KeywordKind_COL_NAME_KEYWORD
}

// labelLike is any name or keyword (what may follow a dot or AS).
func (ts *tokenStream) labelLike(i int) bool {
	if ts.nameLike(i) {
		return true
	}
	return i >= 0 && i < len(ts.toks) && ts.toks[i].kw != pg_query.KeywordKind_NO_KEYWORD
}

// identValue is the name a token denotes: quoted identifiers unquoted,
// others folded to lower case as PostgreSQL does.
func identValue(text string) string {
	if len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
		return strings.ReplaceAll(text[1:len(text)-1], `""`, `"`)
	}
	return strings.ToLower(text)
}

// matchParen returns the index of the ')' closing the '(' at i, or -1.
func (ts *tokenStream) matchParen(i int) int {
	depth := 0
	for j := i; j < len(ts.toks); j++ {
		switch ts.toks[j].kind {
		case tokLParen:
			depth++
		case tokRParen:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// qualifiedName reads name[.name[.name]] at i; it returns the unquoted
// parts and the index after the name, or ok=false.
func (ts *tokenStream) qualifiedName(i int) (parts []string, next int, ok bool) {
	if !ts.nameLike(i) {
		return nil, i, false
	}
	parts = append(parts, identValue(ts.toks[i].text))
	j := i + 1
	for ts.is(j, tokDot) && ts.labelLike(j+1) && len(parts) < 3 {
		parts = append(parts, identValue(ts.toks[j+1].text))
		j += 2
	}
	return parts, j, true
}

// pos is the 1-based character position of token i (or of the end of the
// text when i is past the last token).
func (ts *tokenStream) pos(i int) int {
	return charPos(ts.sql, ts.at(i).start+1)
}

func (ts *tokenStream) errAt(code string, i int, format string, args ...any) error {
	return sqlerr.At(code, ts.pos(i), format, args...)
}

// describe names token i for "at or near" messages.
func (ts *tokenStream) describe(i int) string {
	if i >= len(ts.toks) {
		return "end of input"
	}
	return fmt.Sprintf("%q", ts.toks[i].text)
}

// edit replaces sql[start:end] with text. When copied is set,
// text[copyAt:copyAt+copyLen] is a verbatim copy of sql[copyFrom:] moved
// here (QUALIFY's condition), so positions inside it map back exactly.
type edit struct {
	start, end int
	text       string

	copied                    bool
	copyAt, copyLen, copyFrom int
}

// rewriter collects edits of one statement. Small edits (interval literal
// spellings, quoting of the Spark "window" column) may sit inside the span
// of a big edit (a FROM item rewritten whole); a big edit renders the text
// it copies through render, so the small edits inside still apply.
type rewriter struct {
	sql   string
	small []edit
	big   []edit
}

// render returns sql[start:end] with the small edits inside it applied.
func (r *rewriter) render(start, end int) string {
	var b strings.Builder
	at := start
	for _, e := range r.sortedSmall() {
		if e.start < start || e.end > end || e.start < at {
			continue
		}
		b.WriteString(r.sql[at:e.start])
		b.WriteString(e.text)
		at = e.end
	}
	if at < end {
		b.WriteString(r.sql[at:end])
	}
	return b.String()
}

func (r *rewriter) sortedSmall() []edit {
	sort.SliceStable(r.small, func(a, b int) bool { return r.small[a].start < r.small[b].start })
	return r.small
}

// segment maps a piece of the output back to the original text.
type segment struct {
	out, orig int
	verbatim  bool
}

// apply renders sql[start:end] with every edit and returns the mapping of
// output offsets to original offsets (for error positions).
func (r *rewriter) apply(start, end int) (string, []segment) {
	var all []edit
	for _, e := range r.big {
		if e.start >= start && e.end <= end {
			all = append(all, e)
		}
	}
	for _, e := range r.small {
		if e.start < start || e.end > end {
			continue
		}
		inside := false
		for _, b := range r.big {
			if e.start >= b.start && e.end <= b.end {
				inside = true
				break
			}
		}
		if !inside {
			all = append(all, e)
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].start < all[b].start })
	var b strings.Builder
	var segs []segment
	at := start
	for _, e := range all {
		if e.start < at {
			continue // overlapping edits cannot happen; be safe anyway
		}
		if e.start > at {
			segs = append(segs, segment{out: b.Len(), orig: at, verbatim: true})
			b.WriteString(r.sql[at:e.start])
		}
		segs = append(segs, segment{out: b.Len(), orig: e.start})
		if e.copied {
			segs = append(segs, segment{out: b.Len() + e.copyAt, orig: e.copyFrom, verbatim: true},
				segment{out: b.Len() + e.copyAt + e.copyLen, orig: e.start})
		}
		b.WriteString(e.text)
		at = e.end
	}
	if at < end {
		segs = append(segs, segment{out: b.Len(), orig: at, verbatim: true})
		b.WriteString(r.sql[at:end])
	}
	return b.String(), segs
}

// origOffset maps a byte offset of apply's output to the original text.
func origOffset(segs []segment, out int) int {
	best := -1
	for i, s := range segs {
		if s.out <= out {
			best = i
		}
	}
	if best < 0 {
		if len(segs) > 0 {
			return segs[0].orig
		}
		return 0
	}
	s := segs[best]
	if s.verbatim {
		return s.orig + out - s.out
	}
	return s.orig
}
