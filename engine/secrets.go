package engine

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// CREATE SECRET, DROP SECRET and SHOW SECRETS (dialect.md, Secrets), and
// secret('name') in connector options. A secret's value is sealed in the
// catalog (catalog/secret.go) with the key of --secret-key-file; only
// resolveSecrets ever opens it, when a connector opens, so that stored
// definitions, SHOW, EXPLAIN, the event log and pg_stat_activity carry
// secret('name') and never the value.
//
// Who may: superusers create secrets; the owner (and roles with its
// privileges) drops one, grants USAGE on it (GRANT USAGE ON SECRET,
// grant_objects.go) and gives it away (ALTER SECRET ... OWNER TO,
// alter_owner.go); naming one in a connector's options needs USAGE
// (secret_usage.go).

var showSecretsColumns = []wire.Column{{Name: "name", Type: types.Text}, {Name: "owner", Type: types.Text},
	{Name: "created", Type: types.Text}}

func (s *Session) runSecretStatement(st *statement, io wire.ExecIO) (wire.Result, error) {
	ss := st.stream
	if s.tx.open && ss.Kind != parse.ShowSecrets {
		return nil, sqlerr.New(sqlerr.ActiveTransaction, "secret statements cannot run inside a transaction block")
	}
	switch ss.Kind {
	case parse.CreateSecret:
		if err := s.requireSuperuser("create secret"); err != nil {
			return nil, err
		}
		if s.eng.secretKey == nil {
			return nil, sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "CREATE SECRET needs a secret key, and this server has none").
				WithHint("Start weir serve with --secret-key-file FILE (32 random bytes, or 64 hex digits, outside the data directory).")
		}
		var owner uint32
		if r, ok := s.eng.cat.Role(s.user); ok {
			owner = r.OID
		}
		err := s.eng.cat.CreateSecret(ss.Name, owner, s.eng.secretKey, ss.Secret.Value, ss.IfNotExists)
		if catalog.IsNotice(err) {
			io.Notice("NOTICE", sqlerr.DuplicateObject, fmt.Sprintf("secret \"%s\" already exists, skipping", ss.Name))
			return commandResult("CREATE SECRET"), nil
		}
		if err != nil {
			return nil, err
		}
		return commandResult("CREATE SECRET"), nil
	case parse.DropSecret:
		for _, n := range ss.Names {
			sec, ok := s.eng.cat.LookupSecret(n.Name)
			if !ok {
				if ss.IfExists {
					io.Notice("NOTICE", sqlerr.UndefinedObject, fmt.Sprintf("secret \"%s\" does not exist, skipping", n.Name))
					continue
				}
				return nil, sqlerr.New(sqlerr.UndefinedObject, "secret \"%s\" does not exist", n.Name)
			}
			if !s.superuser && !s.eng.cat.HasPrivsOfRole(s.currentRoleOID(), sec.Owner) {
				return nil, sqlerr.New(sqlerr.InsufficientPrivilege, "must be owner of secret %s", n.Name)
			}
			if err := s.eng.cat.DropSecret(n.Name); err != nil {
				return nil, err
			}
		}
		return commandResult("DROP SECRET"), nil
	}
	var cols [3][]any
	for _, sec := range s.eng.cat.Secrets() {
		owner := ""
		if r, ok := s.eng.cat.RoleByOID(sec.Owner); ok {
			owner = r.Name
		}
		for i, v := range []any{sec.Name, owner, sec.Created.Format(time.RFC3339)} {
			cols[i] = append(cols[i], v)
		}
	}
	return &batchResult{cols: st.cols, batches: []arrow.RecordBatch{anyBatch(st.cols, cols[:])}, tag: "SHOW"}, nil
}

// secretRef is an option value that names a secret: secret('name').
var secretRef = regexp.MustCompile(`^(?i:secret)\s*\(\s*'([^']*)'\s*\)$`)

// resolveSecrets returns options with every secret('name') value
// replaced by the secret's value; options itself is left as written (it
// is what the catalog stores). Connectors call it when they open, never
// at CREATE, so the value lives only in the connector's memory.
// Unknown secret: 42704. role is who the connector runs as (the
// source's or sink's owner): it needs USAGE on each secret it names
// unless it owns it (42501, privilege_checks_secret.go).
func (e *Engine) resolveSecrets(role uint32, options map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(options))
	for k, v := range options {
		r, err := e.resolveSecret(role, v)
		if err != nil {
			return nil, err
		}
		out[k] = r
	}
	return out, nil
}

// resolveSecret is resolveSecrets of one value.
func (e *Engine) resolveSecret(role uint32, v string) (string, error) {
	m := secretRef.FindStringSubmatch(v)
	if m == nil {
		return v, nil
	}
	if err := e.checkSecretUsableBy(role, m[1]); err != nil { // privilege_checks_secret.go
		return "", err
	}
	if e.secretKey == nil {
		return "", sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "secret(%q) needs a secret key, and this server has none", m[1]).
			WithHint("Start weir serve with the --secret-key-file the secret was created under.")
	}
	return e.cat.SecretValue(m[1], e.secretKey)
}

// resolveFilesSecrets resolves secret('name') in a files source's
// options. A files option is not a credential: the files connector reads
// its options once, at CREATE SOURCE, so it resolves them there.
func (e *Engine) resolveFilesSecrets(role uint32, opts []catalog.FilesOption) ([]catalog.FilesOption, error) {
	out := make([]catalog.FilesOption, len(opts))
	for i, o := range opts {
		v, err := e.resolveSecret(role, o.Value)
		if err != nil {
			return nil, err
		}
		out[i] = catalog.FilesOption{Name: o.Name, Value: v}
	}
	return out, nil
}

// redactSecrets returns text with every literal of every CREATE or ALTER
// SECRET statement in it replaced (its value, whether after AS or in
// WITH (value = …)), for the places that show statement texts
// (pg_stat_activity, the audit log). Literals are found by the scanner's
// tokens, so every way of quoting (E'…', $$…$$, U&'…') is covered; a text
// the scanner cannot read loses everything from the first CREATE SECRET.
func redactSecrets(text string) string {
	upper := strings.ToUpper(text)
	if !strings.Contains(upper, "SECRET") {
		return text
	}
	res, err := pg_query.Scan(text)
	if err != nil {
		if i := strings.Index(upper, "SECRET"); i >= 0 {
			return text[:i] + "SECRET <redacted>"
		}
		return text
	}
	var b strings.Builder
	last, inSecret, stmtStart := 0, false, true
	toks := res.Tokens
	for i, t := range toks {
		switch {
		case t.Token == pg_query.Token_ASCII_59: // ';' ends a statement
			inSecret, stmtStart = false, true
			continue
		case stmtStart:
			inSecret = (t.Token == pg_query.Token_CREATE || t.Token == pg_query.Token_ALTER) && i+1 < len(toks) &&
				strings.EqualFold(tokenText(text, toks[i+1]), "secret")
			stmtStart = false
		case inSecret && (t.Token == pg_query.Token_SCONST || t.Token == pg_query.Token_USCONST):
			start, end := int(t.Start), int(t.End)
			if start >= last && end <= len(text) && start < end {
				b.WriteString(text[last:start])
				b.WriteString("'<redacted>'")
				last = end
			}
		}
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// tokenText is token t's text in text ("" for a token out of range).
func tokenText(text string, t *pg_query.ScanToken) string {
	if int(t.End) > len(text) || t.Start < 0 || t.Start > t.End {
		return ""
	}
	return text[t.Start:t.End]
}
