package engine

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// What the audit log stores of a statement is its text with every secret
// taken out: a role's password (CREATE/ALTER ROLE|USER|GROUP … [ENCRYPTED]
// PASSWORD '…', also a SCRAM verifier psql's \password sends), a secret's
// value (CREATE SECRET … AS '…', redacted as pg_stat_activity redacts it,
// redactSecrets) and a connector option's literal value whose name says it
// is one (password = '…', sasl_password = '…', 'api.token' = '…'; a
// secret('name') reference stays). They are found by the statement's
// tokens, so every way of quoting (E'…', $$…$$, U&'…') is covered, and a
// text the scanner cannot read (an unterminated literal) loses everything
// after the first such word.

// auditRedacted is what replaces a secret in an audited text.
const auditRedacted = "'<redacted>'"

// auditRedact returns text without its passwords and secret values, and
// the values it took out (to scrub an error message that quotes one).
func auditRedact(text string) (string, []string) {
	upper := strings.ToUpper(text)
	first := -1
	for _, w := range auditSensitiveWords {
		if i := strings.Index(upper, w); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	if first < 0 {
		return text, nil
	}
	hasSecret := strings.Contains(upper, "SECRET")
	res, err := pg_query.Scan(text)
	if err != nil {
		return text[:first] + auditRedacted, nil
	}
	toks := res.Tokens
	var removed []string
	var b strings.Builder
	last := 0
	cut := func(t *pg_query.ScanToken) {
		start, end := int(t.Start), int(t.End)
		if start < last || end > len(text) || start >= end {
			return
		}
		b.WriteString(text[last:start])
		b.WriteString(auditRedacted)
		removed = append(removed, auditUnquote(text[start:end]))
		last = end
	}
	// A secret's value is any literal of CREATE or ALTER SECRET.
	secretStmt := hasSecret && len(toks) > 2 && (toks[0].Token == pg_query.Token_CREATE || toks[0].Token == pg_query.Token_ALTER) &&
		strings.EqualFold(tokenText(text, toks[1]), "secret")
	for i, t := range toks {
		switch {
		case t.Token == pg_query.Token_PASSWORD && i+1 < len(toks) && toks[i+1].Token != pg_query.Token_NULL_P &&
			toks[i+1].Token != pg_query.Token_ASCII_61:
			// A role's: PASSWORD NULL removes one, nothing to hide; an
			// unquoted word is a syntax error that would echo it.
			cut(toks[i+1])
		case auditSensitiveName(text, t) && i+2 < len(toks) && toks[i+1].Token == pg_query.Token_ASCII_61 && auditIsLiteral(toks[i+2]):
			cut(toks[i+2]) // an option: name = 'value'
		case secretStmt && (t.Token == pg_query.Token_SCONST || t.Token == pg_query.Token_USCONST):
			cut(t) // a secret's value, after AS or in WITH (value = …)
		}
	}
	if last == 0 && len(removed) == 0 {
		return redactSecrets(text), nil
	}
	b.WriteString(text[last:])
	return redactSecrets(b.String()), removed
}

// auditSensitiveWords are the words whose value a text hides.
var auditSensitiveWords = []string{"PASSWORD", "SECRET", "TOKEN", "CREDENTIAL"}

// auditSensitiveName reports whether token t names a value to hide: a word
// or a quoted option name holding one of auditSensitiveWords.
func auditSensitiveName(text string, t *pg_query.ScanToken) bool {
	switch t.Token {
	case pg_query.Token_SCONST, pg_query.Token_IDENT, pg_query.Token_PASSWORD:
	default:
		if t.KeywordKind == pg_query.KeywordKind_NO_KEYWORD {
			return false
		}
	}
	w := strings.ToUpper(tokenText(text, t))
	for _, s := range auditSensitiveWords {
		if strings.Contains(w, s) {
			return true
		}
	}
	return false
}

func auditIsLiteral(t *pg_query.ScanToken) bool {
	return t.Token == pg_query.Token_SCONST || t.Token == pg_query.Token_USCONST
}

// auditScrub takes the values auditRedact removed out of msg (an error
// message may quote the token it failed at).
func auditScrub(msg string, removed []string) string {
	for _, v := range removed {
		if len(v) >= 3 { // a one- or two-letter value would erase words
			msg = strings.ReplaceAll(msg, v, "<redacted>")
		}
	}
	return msg
}

// auditUnquote is the value of a literal's text, near enough to find it
// quoted in a message (a doubled quote is one; $$x$$ and E'x' are x).
func auditUnquote(lit string) string {
	s := lit
	if len(s) > 0 && (s[0] == 'E' || s[0] == 'e') && len(s) > 1 && s[1] == '\'' {
		s = s[1:]
	}
	if strings.HasPrefix(s, "U&") || strings.HasPrefix(s, "u&") {
		s = s[2:]
	}
	switch {
	case len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'':
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	case strings.HasPrefix(s, "$"):
		if i := strings.Index(s[1:], "$"); i >= 0 {
			tag := s[:i+2]
			if strings.HasSuffix(s, tag) && len(s) >= 2*len(tag) {
				return s[len(tag) : len(s)-len(tag)]
			}
		}
	}
	return s
}
