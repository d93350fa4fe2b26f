package engine

import (
	"strings"
	"testing"
)

func TestAuditRedact(t *testing.T) {
	for _, c := range []struct{ in, secret string }{
		{"CREATE ROLE alice LOGIN PASSWORD 'hunter2pw'", "hunter2pw"},
		{"create user bob with encrypted password 'it''s-hunter2'", "it's-hunter2"},
		{"ALTER ROLE alice PASSWORD E'esc\\'hunter2'", "hunter2"},
		{"ALTER USER alice WITH PASSWORD $pw$dollar-hunter2$pw$ VALID UNTIL 'infinity'", "dollar-hunter2"},
		{"ALTER ROLE alice PASSWORD 'SCRAM-SHA-256$4096:c2FsdA==$aGFzaA==:a2V5'", "SCRAM-SHA-256"},
		{"CREATE ROLE x PASSWORD 'unterminated-hunter2", "unterminated-hunter2"},
		{"CREATE ROLE x PASSWORD hunter2ident", "hunter2ident"},
		{"CREATE SECRET shop_pw AS 's3cr3t-value'", "s3cr3t-value"},
		{"CREATE SECRET shop_pw AS $$s3cr3t-dollar$$", "s3cr3t-dollar"},
		{"CREATE SOURCE cdc FROM POSTGRES WITH (host = 'db', user = 'u', password = 'opt-hunter2', database = 'shop')", "opt-hunter2"},
		{"CREATE SINK k INTO KAFKA WITH (sasl_password = 'sasl-hunter2')", "sasl-hunter2"},
		{"CREATE SINK k INTO KAFKA WITH ('api.token' = 'tok-hunter2')", "tok-hunter2"},
	} {
		out, removed := auditRedact(c.in)
		// An error quoting the whole value loses it too.
		if strings.Contains(out, c.secret) {
			t.Errorf("auditRedact(%q) = %q: the secret is still there", c.in, out)
		}
		if !strings.Contains(out, "<redacted>") {
			t.Errorf("auditRedact(%q) = %q: no <redacted>", c.in, out)
		}
		if msg := auditScrub(`syntax error at or near "`+c.secret+`"`, removed); strings.Contains(msg, c.secret) && len(removed) > 0 && removed[0] == c.secret {
			t.Errorf("auditScrub left %q in %q", c.secret, msg)
		}
	}
	for _, keep := range []string{"CREATE TABLE t (k bigint)", "ALTER ROLE alice PASSWORD NULL", "GRANT SELECT ON t TO alice",
		"CREATE SOURCE cdc FROM POSTGRES WITH (host = 'db', password = secret('shop_pw'))", "CREATE TABLE tokens (token text)"} {
		if out, _ := auditRedact(keep); out != keep {
			t.Errorf("auditRedact(%q) = %q, want it unchanged", keep, out)
		}
	}
}
