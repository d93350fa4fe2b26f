package parse

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Secret statements (dialect.md, Secrets), in Materialize's and
// RisingWave's spelling (a value after AS reads as "the secret is this"):
//
//	CREATE SECRET [IF NOT EXISTS] name AS 'value'
//	CREATE SECRET [IF NOT EXISTS] name WITH (value = 'value')
//	CREATE SECRET [IF NOT EXISTS] name WITH (backend = 'meta') AS 'value'
//	DROP SECRET [IF EXISTS] name [, ...]
//	SHOW SECRETS
//
// The value is in Secret.Value only; the engine never keeps the
// statement's text.

// The statement kinds of this file (numbered apart from the others').
const (
	CreateSecret StreamingKind = 400 + iota // CREATE SECRET name AS 'value'
	DropSecret                              // DROP SECRET [IF EXISTS] name [, ...]
	ShowSecrets                             // SHOW SECRETS
)

// IsSecret reports whether kind is one of this file's statements.
func IsSecret(kind StreamingKind) bool {
	return kind == CreateSecret || kind == DropSecret || kind == ShowSecrets
}

// SecretSpec is CREATE SECRET's value.
type SecretSpec struct {
	Value string
}

// secretStatement dispatches the secret statements; ok is false when the
// text is not one.
func (p *stmtParser) secretStatement(st *StreamingStmt) (ok bool, err error) {
	switch {
	case p.isWord(0, "create") && p.isWord(1, "secret"):
		return true, p.createSecret(st)
	case p.isWord(0, "drop") && p.isWord(1, "secret"):
		st.Kind = DropSecret
		return true, p.dropNames(st, "secret", "DROP SECRET") // source_stmt.go
	case p.isWord(0, "show") && p.isWord(1, "secrets"):
		st.Kind = ShowSecrets
		if p.end() > 2 {
			return true, p.errAt(sqlerr.SyntaxError, 2, "syntax error at or near %s: SHOW SECRETS takes no arguments", p.describe(2))
		}
		return true, nil
	}
	return false, nil
}

// createSecret reads CREATE SECRET ... (CREATE is token 0).
func (p *stmtParser) createSecret(st *StreamingStmt) error {
	st.Kind = CreateSecret
	i := 2
	if p.isWord(i, "if") && p.isWord(i+1, "not") && p.isWord(i+2, "exists") {
		st.IfNotExists = true
		i += 3
	}
	parts, next, ok := p.qualifiedName(i)
	if !ok {
		return p.errAt(sqlerr.SyntaxError, i, "syntax error at or near %s: expected a secret name", p.describe(i))
	}
	if len(parts) > 1 {
		return p.errAt(sqlerr.SyntaxError, i, "secret names are not schema-qualified")
	}
	st.Name = parts[0]
	i = next
	var spec *SecretSpec
	if p.isWord(i, "with") && p.is(i+1, tokLParen) {
		// WITH (value = '…') (dialect.md), or RisingWave's WITH (backend =
		// 'meta') before AS. The options go to a scratch statement, never
		// to st.Options: nothing of the value may travel further.
		var opts StreamingStmt
		at := i + 1
		var err error
		if i, err = p.options(&opts, at); err != nil {
			return err
		}
		for k, v := range opts.Options {
			switch k {
			case "value":
				spec = &SecretSpec{Value: v}
			case "backend":
				if v != "meta" {
					return p.errAt(sqlerr.InvalidParameterValue, at, "secret backend \"%s\" is not supported: weir keeps secrets in its catalog (backend = 'meta')", v)
				}
			default:
				return p.errAtH(sqlerr.InvalidParameterValue, at, "unrecognized CREATE SECRET option \"%s\"", k).
					WithHint("CREATE SECRET name WITH (value = '…') or CREATE SECRET name AS '…'.")
			}
		}
	}
	if p.isWord(i, "as") {
		if spec != nil {
			return p.errAt(sqlerr.SyntaxError, i, "syntax error in CREATE SECRET: the value is given twice (WITH (value = …) and AS)")
		}
		if i+1 >= p.end() || p.at(i+1).kind != pg_query.Token_SCONST {
			return p.errAt(sqlerr.SyntaxError, i, "syntax error in CREATE SECRET: expected AS 'value' after the name")
		}
		v, _ := stringValue(p.at(i + 1).text)
		spec = &SecretSpec{Value: v}
		i += 2
	}
	if spec == nil {
		// The token is not described: it may be the value itself.
		return p.errAt(sqlerr.SyntaxError, i, "syntax error in CREATE SECRET: expected AS 'value' or WITH (value = '…') after the name")
	}
	st.Secret = spec
	if i < p.end() {
		return p.errAt(sqlerr.SyntaxError, i, "syntax error in CREATE SECRET: expected end of statement after the value")
	}
	return nil
}
