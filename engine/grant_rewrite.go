package engine

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// weir's own forms of GRANT and ALTER ... OWNER TO, which PostgreSQL's
// grammar does not know, rewritten by a token pass into forms it does,
// naming object kinds weir has no other use for:
//
//	GRANT|REVOKE ... ON SECRET s ...        → ... ON FOREIGN SERVER s ...
//	ALTER SECRET s OWNER TO r               → ALTER SERVER s OWNER TO r
//	ALTER STREAMING TABLE t OWNER TO r      → ALTER MATERIALIZED VIEW t OWNER TO r
//	ALTER SOURCE t OWNER TO r               → ALTER FOREIGN TABLE t OWNER TO r
//
// A secret is the foreign server of weir's privilege model (USAGE is
// its one privilege), so grant.go and alter_owner.go read those kinds
// as secrets, streaming tables and sources. The rewrite keeps the words'
// places in the text apart from the one replaced.

// aclStatementText is text with weir's forms above rewritten, or text
// itself.
func aclStatementText(text string) string {
	head := strings.ToLower(strings.TrimSpace(text))
	if !strings.HasPrefix(head, "grant") && !strings.HasPrefix(head, "revoke") && !strings.HasPrefix(head, "alter") {
		return text
	}
	res, err := pg_query.Scan(text)
	if err != nil || len(res.Tokens) < 4 {
		return text
	}
	toks := res.Tokens
	word := func(i int) string {
		if i >= len(toks) {
			return ""
		}
		return strings.ToLower(text[toks[i].Start:toks[i].End])
	}
	replace := func(from, to int, with string) string {
		return text[:toks[from].Start] + with + text[toks[to].End:]
	}
	switch word(0) {
	case "grant", "revoke":
		for i := 1; i+2 < len(toks); i++ {
			if word(i) == "on" && word(i+1) == "secret" && toks[i+1].Token == pg_query.Token_IDENT {
				switch word(i + 2) {
				case "to", "from", ",", ";", ".":
					return text // a table (or schema) called secret
				}
				return replace(i+1, i+1, "FOREIGN SERVER")
			}
		}
	case "alter":
		kindEnd, with := 0, ""
		switch {
		case word(1) == "secret":
			kindEnd, with = 1, "SERVER"
		case word(1) == "streaming" && word(2) == "table":
			kindEnd, with = 2, "MATERIALIZED VIEW"
		case word(1) == "source":
			kindEnd, with = 1, "FOREIGN TABLE"
		default:
			return text
		}
		// The name: one identifier, or schema.name.
		k := kindEnd + 2
		if word(kindEnd+2) == "." {
			k = kindEnd + 4
		}
		if word(k) == "owner" && word(k+1) == "to" {
			return replace(1, kindEnd, with)
		}
	}
	return text
}
