package engine

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// What the audit log stores of a statement is its text with every secret
// taken out: a role's password (CREATE/ALTER ROLE|USER|GROUP … [ENCRYPTED]
// PASSWORD '…', also a SCRAM verifier psql's \password sends) and a
// secret's value (CREATE SECRET … AS '…', redacted as pg_stat_activity
// redacts it, redactSecrets). The password is found by the statement's
// tokens, so every way of quoting it (E'…', $$…$$, U&'…') is covered, and
// a text the scanner cannot read (an unterminated literal) loses
// everything after the word PASSWORD.

// auditRedacted is what replaces a secret in an audited text.
const auditRedacted = "'<redacted>'"

// auditRedact returns text without its passwords and secret values, and
// the values it took out (to scrub an error message that quotes one).
func auditRedact(text string) (string, []string) {
	upper := strings.ToUpper(text)
	hasPassword, hasSecret := strings.Contains(upper, "PASSWORD"), strings.Contains(upper, "SECRET")
	if !hasPassword && !hasSecret {
		return text, nil
	}
	res, err := pg_query.Scan(text)
	if err != nil {
		if i := strings.Index(upper, "PASSWORD"); i >= 0 {
			return text[:i+len("PASSWORD")] + " " + auditRedacted, nil
		}
		return redactSecrets(text), nil
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
		removed = append(removed, unquoteLiteral(text[start:end]))
		last = end
	}
	// A secret's value is a literal after AS in CREATE or ALTER SECRET.
	secretStmt := hasSecret && len(toks) > 2 && (toks[0].Token == pg_query.Token_CREATE || toks[0].Token == pg_query.Token_ALTER) &&
		strings.EqualFold(tokenText(text, toks[1]), "secret")
	afterAS := false
	for i, t := range toks {
		switch {
		case t.Token == pg_query.Token_PASSWORD && i+1 < len(toks) && toks[i+1].Token != pg_query.Token_NULL_P:
			// PASSWORD NULL removes one: nothing to hide.
			cut(toks[i+1])
		case secretStmt && t.Token == pg_query.Token_AS:
			afterAS = true
		case secretStmt && afterAS && (t.Token == pg_query.Token_SCONST || t.Token == pg_query.Token_USCONST):
			cut(t)
		}
	}
	if last == 0 && len(removed) == 0 {
		return redactSecrets(text), nil
	}
	b.WriteString(text[last:])
	return redactSecrets(b.String()), removed
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

func tokenText(text string, t *pg_query.ScanToken) string {
	if int(t.End) > len(text) || t.Start < 0 || t.Start > t.End {
		return ""
	}
	return text[t.Start:t.End]
}

// unquoteLiteral is the value of a literal's text, near enough to find it
// quoted in a message (a doubled quote is one; $$x$$ and E'x' are x).
func unquoteLiteral(lit string) string {
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
