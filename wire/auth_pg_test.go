package wire_test

import (
	"context"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509/pkix"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/weir-sql/weir/internal/pgtest"
	"github.com/weir-sql/weir/wire"
)

// startPostgresTLS starts a throwaway PostgreSQL 15 with ssl on, a
// certificate of pki, pki's CA for client certificates and rules as its
// pg_hba.conf (after a line that lets the test's postgres connection in),
// and runs setup as postgres. It returns the server's address.
func startPostgresTLS(t *testing.T, pki *testPKI, rules string, setup ...string) string {
	t.Helper()
	pg, err := pgtest.Start()
	if err != nil {
		t.Fatalf("start PostgreSQL: %v", err)
	}
	t.Cleanup(pg.Stop)
	data := filepath.Join(pg.Dir, "data")
	st, err := os.Stat(data)
	if err != nil {
		t.Fatal(err)
	}
	owner := st.Sys().(*syscall.Stat_t)
	crt, key := pki.issue(pkix.Name{CommonName: "localhost"}, true)
	files := map[string]string{"server.crt": crt, "server.key": key, "root.crt": pki.CAFile}
	for name, src := range files {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(data, name)
		if err := os.WriteFile(dst, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dst, int(owner.Uid), int(owner.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(data, "pg_hba.conf"), []byte("host all postgres 127.0.0.1/32 trust\n"+rules), 0o600); err != nil {
		t.Fatal(err)
	}
	c := pg.Connect(t)
	ctx := context.Background()
	for _, q := range append([]string{"ALTER SYSTEM SET ssl = on", "ALTER SYSTEM SET ssl_ca_file = 'root.crt'", "SELECT pg_reload_conf()"}, setup...) {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var ssl string
	if err := c.QueryRow(ctx, "SHOW ssl").Scan(&ssl); err != nil || ssl != "on" {
		t.Fatalf("ssl %q: %v", ssl, err)
	}
	return fmt.Sprintf("127.0.0.1:%d", pg.Port)
}

// TestAuthMatchesPostgres runs the same logins against weir and a real
// PostgreSQL 15 with the same pg_hba.conf lines, roles and certificates,
// and requires the same outcome: SQLSTATE and message of every refusal
// (rules, certificates, channel binding, SCRAM's GS2 flags).
func TestAuthMatchesPostgres(t *testing.T) {
	pki := newTestPKI(t, elliptic.P256())
	weir, _ := startHBAServerWithPKI(t, "127.0.0.1:0", hbaTestRules, wire.AuthThrottle{Limit: -1}, pki)
	pg := startPostgresTLS(t, pki, hbaTestRules,
		"CREATE DATABASE db", "CREATE ROLE tester LOGIN", "CREATE ROLE alice LOGIN", "CREATE ROLE rej LOGIN",
		"CREATE ROLE erin LOGIN", "SET password_encryption = 'scram-sha-256'", "CREATE ROLE carol LOGIN PASSWORD 'pw'",
		"CREATE ROLE frank LOGIN PASSWORD 'pw'")
	aliceCrt, aliceKey := pki.issue(pkix.Name{CommonName: "alice", Organization: []string{"Weir Test"}}, false)
	bobCrt, bobKey := pki.issue(pkix.Name{CommonName: "bob"}, false)
	carolCrt, carolKey := pki.issue(pkix.Name{CommonName: "carol"}, false)
	certs := func(crt, key string) string { return "sslmode=require&sslcert=" + crt + "&sslkey=" + key }
	logins := []struct{ user, db, opts string }{
		{"tester", "db", "sslmode=disable"},
		{"tester", "db", "sslmode=require"},
		{"nobody", "db", "sslmode=disable"},
		{"rej", "db", "sslmode=disable"},
		{"carol:pw", "db", "sslmode=disable"},
		{"carol:nope", "db", "sslmode=disable"},
		{"carol:pw", "other", "sslmode=disable"},
		{"dave:pw", "db", "sslmode=disable"},
		{"ghost", "db", "sslmode=disable"},
		{"alice", "db", certs(aliceCrt, aliceKey)},
		{"alice", "db", certs(bobCrt, bobKey)},
		{"alice", "db", "sslmode=require"},
		{"carol:pw", "db", certs(carolCrt, carolKey) + "&channel_binding=require"},
		{"carol:nope", "db", certs(carolCrt, carolKey)},
		{"carol:pw", "db", certs(bobCrt, bobKey)},
		{"carol:pw", "db", "sslmode=require"},
		{"erin", "db", certs(bobCrt, bobKey)},
	}
	ctx := testCtx(t)
	for _, l := range logins {
		got := loginOutcome(ctx, fmt.Sprintf("postgres://%s@%s/%s?%s", l.user, weir.addr, l.db, l.opts))
		want := loginOutcome(ctx, fmt.Sprintf("postgres://%s@%s/%s?%s", l.user, pg, l.db, l.opts))
		if got != want {
			t.Errorf("%s to %s with %s:\n weir       %s\n PostgreSQL %s", l.user, l.db, l.opts, got, want)
		}
	}

	// SCRAM by hand, as frank, whose rule asks only for the password.
	good := func(cert []byte) []byte { h := sha256.Sum256(cert); return h[:] }
	bad := func([]byte) []byte { return make([]byte, sha256.Size) }
	for _, c := range []struct {
		tls       bool
		mech, gs2 string
		cbind     func([]byte) []byte
	}{
		{true, "SCRAM-SHA-256-PLUS", "p=tls-server-end-point,,", good},
		{true, "SCRAM-SHA-256-PLUS", "p=tls-server-end-point,,", bad},
		{true, "SCRAM-SHA-256-PLUS", "p=tls-unique,,", good},
		{true, "SCRAM-SHA-256-PLUS", "n,,", nil},
		{true, "SCRAM-SHA-256-PLUS", "y,,", nil},
		{true, "SCRAM-SHA-256", "y,,", nil},
		{true, "SCRAM-SHA-256", "n,,", nil},
		{true, "SCRAM-SHA-256", "p=tls-server-end-point,,", good},
		{true, "SCRAM-SHA-256", "n,,", func([]byte) []byte { return []byte("x") }},
		{false, "SCRAM-SHA-256-PLUS", "p=tls-server-end-point,,", good},
		{false, "SCRAM-SHA-256", "y,,", nil},
		{false, "SCRAM-SHA-256", "x,,", nil},
		{false, "SCRAM-SHA-256", "n,a=carol,", nil},
	} {
		gotMechs, got := scramTLSAs(t, weir.addr, "frank", c.tls, c.mech, c.gs2, c.cbind)
		wantMechs, want := scramTLSAs(t, pg, "frank", c.tls, c.mech, c.gs2, c.cbind)
		if fmt.Sprint(gotMechs) != fmt.Sprint(wantMechs) || got != want {
			t.Errorf("tls=%v %s %q:\n weir       %v %s\n PostgreSQL %v %s", c.tls, c.mech, c.gs2, gotMechs, got, wantMechs, want)
		}
	}
}
