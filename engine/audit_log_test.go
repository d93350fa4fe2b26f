package engine_test

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/engine"
)

// auditLogText is what a lockedBuffer (sqlfuzz_test.go) holds.
func auditLogText(l *lockedBuffer) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// auditRow is one row of weir_catalog.audit_log.
type auditRow struct {
	seq                                                  int64
	at                                                   time.Time
	kind                                                 string
	role, sessionUser, client, object, statement, detail *string
	success                                              bool
}

func str(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

func readAudit(t *testing.T, c *pgx.Conn) []auditRow {
	t.Helper()
	rows, err := c.Query(context.Background(), `SELECT seq, time, kind, role, "session_user", client, object, statement, success, detail
		FROM weir_catalog.audit_log ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []auditRow
	for rows.Next() {
		var r auditRow
		if err := rows.Scan(&r.seq, &r.at, &r.kind, &r.role, &r.sessionUser, &r.client, &r.object, &r.statement, &r.success, &r.detail); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// findAudit is the last row of kind whose statement contains text ("":
// any).
func findAudit(t *testing.T, rows []auditRow, kind, text string) auditRow {
	t.Helper()
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].kind == kind && strings.Contains(str(rows[i].statement), text) {
			return rows[i]
		}
	}
	t.Fatalf("no %s event of %q in the audit log", kind, text)
	return auditRow{}
}

// TestAuditLogEvents: every kind the engine records, with its fields; no
// password or secret value reaches the audit log, the server's log or
// any byte of the data directory; a role that is neither a superuser nor
// a pg_read_all_stats member gets 42501.
func TestAuditLogEvents(t *testing.T) {
	dir := t.TempDir()
	var logBuf lockedBuffer
	key := bytes.Repeat([]byte{7}, 32)
	s := startServerWith(t, engine.Config{DataDir: dir, SecretKey: key,
		Logger: slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	c := s.connect(t)
	ctx := context.Background()
	began := time.Now()
	const pw1, pw2, secretValue = "pw-Hunter2-first", "pw-Hunter2-second", "sv-Hunter2-value"
	for _, q := range []string{
		"CREATE TABLE t (k bigint)",
		"CREATE ROLE alice LOGIN PASSWORD '" + pw1 + "'",
		"ALTER ROLE alice WITH PASSWORD '" + pw2 + "'",
		"CREATE ROLE watcher LOGIN",
		"GRANT pg_monitor TO watcher",
		"GRANT pg_monitor TO alice",
		"REVOKE pg_monitor FROM alice",
		"CREATE SECRET shop_pw AS '" + secretValue + "'",
		"CREATE STREAMING TABLE st AS SELECT k FROM STREAM t",
		"DROP STREAMING TABLE st",
		"CREATE VIEW v AS SELECT k FROM t",
		"DROP VIEW v",
		"DROP TABLE t",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Privilege GRANT and REVOKE are audited whether this build runs them
	// or refuses them (0A000 before the privilege work lands).
	c.Exec(ctx, "CREATE TABLE g (k bigint)")
	c.Exec(ctx, "GRANT SELECT ON g TO alice")
	c.Exec(ctx, "REVOKE SELECT ON TABLE public.g FROM alice")
	if _, err := c.Exec(ctx, "CREATE TABLE public.u (k bigint); CREATE TABLE u (k bigint)"); err == nil {
		t.Fatal("a second CREATE TABLE u succeeded")
	}
	// alice may neither read the audit log nor create roles.
	ac, err := connectAs(t, s.url(), "alice", pw2)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ac.Exec(ctx, "SELECT * FROM weir_catalog.audit_log")
	if err == nil || !strings.Contains(err.Error(), "permission denied for view audit_log (SQLSTATE 42501)") {
		t.Fatalf("alice reads the audit log: %v, want 42501 permission denied for view audit_log", err)
	}
	if _, err := ac.Exec(ctx, "CREATE ROLE mallory"); err == nil {
		t.Fatal("alice created a role")
	}
	// A failed login (the wire layer reports it, audit_auth.go).
	const wrongPassword = "pw-Hunter2-wrong"
	if _, err := connectAs(t, s.url(), "alice", wrongPassword); err == nil {
		t.Fatal("alice logged in with a wrong password")
	}
	// A pg_monitor member may read it.
	wc, err := connectAs(t, s.url(), "watcher", "")
	if err != nil {
		t.Fatal(err)
	}
	rows := readAudit(t, wc)
	// The queries of docs/security.md.
	for _, q := range []string{
		`SELECT time, role, client, detail FROM weir_catalog.audit_log WHERE kind = 'connect' AND time > now() - interval '1 hour' ORDER BY seq`,
		`SELECT time, role, statement, detail FROM weir_catalog.audit_log WHERE kind = 'denied' AND time > current_date ORDER BY seq`,
		`SELECT 'weir_catalog.audit_log'::regclass::oid::bigint`,
	} {
		var n int
		rs, err := wc.Query(ctx, q)
		if err == nil {
			for rs.Next() {
				n++
			}
			err = rs.Err()
		}
		if err != nil || n < 1 {
			t.Errorf("%s: %d rows, %v", q, n, err)
		}
	}
	var oid int64
	if err := ac.QueryRow(ctx, `SELECT 'weir_catalog.audit_log'::regclass::oid::bigint`).Scan(&oid); err != nil || oid != 14030 {
		t.Errorf("alice names audit_log: %d, %v (want 14030: naming needs no privilege)", oid, err)
	}

	conn := rows[0]
	if conn.kind != "connect" || str(conn.role) != "weir" || str(conn.sessionUser) != "weir" || !strings.HasPrefix(str(conn.client), "127.0.0.1:") ||
		str(conn.detail) != "database=weir tls=off" || !conn.success || conn.statement != nil || conn.at.Before(began.Add(-time.Minute)) {
		t.Errorf("first event: %+v %s %s %s", conn, str(conn.role), str(conn.client), str(conn.detail))
	}
	if r := findAudit(t, rows, "connect", ""); str(r.role) != "watcher" {
		t.Errorf("the last connect is %s's, want watcher's", str(r.role))
	}
	for _, w := range []struct{ kind, text, object string }{
		{"ddl", "CREATE TABLE t", "public.t"},
		{"ddl", "CREATE ROLE alice", "alice"},
		{"ddl", "ALTER ROLE alice", "alice"},
		{"grant", "GRANT pg_monitor TO watcher", "pg_monitor"},
		{"revoke", "REVOKE pg_monitor FROM alice", "pg_monitor"},
		{"ddl", "CREATE SECRET shop_pw", "shop_pw"},
		{"ddl", "CREATE STREAMING TABLE st", "public.st"},
		{"ddl", "DROP STREAMING TABLE st", "public.st"},
		{"ddl", "CREATE VIEW v", "public.v"},
		{"ddl", "DROP VIEW v", "public.v"},
		{"ddl", "DROP TABLE t", "public.t"},
		{"ddl", "CREATE TABLE public.u", "public.u"},
	} {
		r := findAudit(t, rows, w.kind, w.text)
		if !r.success || str(r.object) != w.object || str(r.role) != "weir" || r.detail != nil || !strings.HasPrefix(str(r.client), "127.0.0.1:") {
			t.Errorf("%s %q: success %v object %s role %s detail %s client %s", w.kind, w.text, r.success, str(r.object), str(r.role), str(r.detail), str(r.client))
		}
	}
	for _, w := range []struct{ kind, text string }{{"grant", "GRANT SELECT ON g"}, {"revoke", "REVOKE SELECT ON TABLE public.g"}} {
		if r := findAudit(t, rows, w.kind, w.text); str(r.object) != "public.g" || r.success != (r.detail == nil) {
			t.Errorf("%s: object %s success %v detail %s", w.text, str(r.object), r.success, str(r.detail))
		}
	}
	if r := findAudit(t, rows, "ddl", "CREATE TABLE u"); r.success || str(r.detail) != `42P07 relation "u" already exists` || str(r.object) != "public.u" {
		t.Errorf("failed CREATE TABLE: success %v detail %s object %s", r.success, str(r.detail), str(r.object))
	}
	if r := findAudit(t, rows, "ddl", "CREATE ROLE alice"); str(r.statement) != "CREATE ROLE alice LOGIN PASSWORD '<redacted>'" {
		t.Errorf("CREATE ROLE reads %q", str(r.statement))
	}
	if r := findAudit(t, rows, "ddl", "CREATE SECRET"); str(r.statement) != "CREATE SECRET shop_pw AS '<redacted>'" {
		t.Errorf("CREATE SECRET reads %q", str(r.statement))
	}
	d := findAudit(t, rows, "denied", "audit_log")
	if d.success || str(d.role) != "alice" || str(d.detail) != "42501 permission denied for view audit_log" {
		t.Errorf("denied read: success %v role %s detail %s", d.success, str(d.role), str(d.detail))
	}
	if r := findAudit(t, rows, "login_failed", ""); str(r.role) != "alice" || r.success || !strings.HasPrefix(str(r.client), "127.0.0.1:") ||
		!strings.HasPrefix(str(r.detail), "28P01 ") {
		t.Errorf("failed login: role %s success %v client %s detail %s", str(r.role), r.success, str(r.client), str(r.detail))
	}
	if r := findAudit(t, rows, "denied", "CREATE ROLE mallory"); r.success || str(r.object) != "mallory" || !strings.HasPrefix(str(r.detail), "42501 ") {
		t.Errorf("denied CREATE ROLE: success %v object %s detail %s", r.success, str(r.object), str(r.detail))
	}
	for i := 1; i < len(rows); i++ {
		if rows[i].seq <= rows[i-1].seq || rows[i].at.Before(rows[i-1].at) {
			t.Errorf("rows out of order at %d: %d after %d", i, rows[i].seq, rows[i-1].seq)
		}
	}

	// Nowhere a password or the secret's value: not in the log, not in
	// any file of the data directory once the engine is closed.
	ac.Close(ctx)
	wc.Close(ctx)
	c.Close(ctx)
	s.stop()
	logText := auditLogText(&logBuf)
	if !strings.Contains(logText, "msg=audit kind=ddl") {
		t.Errorf("the server's log has no audit lines:\n%s", logText)
	}
	for _, secret := range []string{pw1, pw2, secretValue, wrongPassword} {
		if strings.Contains(logText, secret) {
			t.Errorf("the server's log holds %q", secret)
		}
		filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
			if err != nil || de.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err == nil && bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds %q", p, secret)
			}
			return nil
		})
	}
}

func auditExec(t *testing.T, c *pgx.Conn, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestAuditLogLocalClient: a client over a Unix socket is "local".
func TestAuditLogLocalClient(t *testing.T) {
	s := startServer(t, t.TempDir())
	sock := t.TempDir()
	l, err := net.Listen("unix", filepath.Join(sock, ".s.PGSQL.5432"))
	if err != nil {
		t.Fatal(err)
	}
	go s.srv.Serve(l)
	uc, err := connectAs(t, "host="+sock+" port=5432 dbname=weir sslmode=disable", "weir", "")
	if err != nil {
		t.Fatal(err)
	}
	rows := readAudit(t, uc)
	if last := rows[len(rows)-1]; last.kind != "connect" || str(last.client) != "local" || str(last.detail) != "database=weir tls=off" {
		t.Errorf("a Unix socket's connect: %s client %s detail %s", last.kind, str(last.client), str(last.detail))
	}
}

// TestAuditLogRefusedSession: a login the engine refuses after
// authentication (no CONNECT on the database, no such database) is a
// login_failed event, as a wrong password is.
func TestAuditLogRefusedSession(t *testing.T) {
	s := startServer(t, t.TempDir())
	c := s.connect(t)
	auditExec(t, c, "CREATE ROLE bob LOGIN", "REVOKE CONNECT ON DATABASE weir FROM PUBLIC")
	if _, err := connectAs(t, s.url(), "bob", ""); err == nil {
		t.Fatal("bob connected without CONNECT")
	}
	if _, err := connectAs(t, strings.Replace(s.url(), "/weir?", "/nosuch?", 1), "bob", ""); err == nil {
		t.Fatal("bob connected to a database that does not exist")
	}
	rows := readAudit(t, c)
	var got []string
	for _, r := range rows {
		if r.kind == "login_failed" {
			if str(r.role) != "bob" || r.success || !strings.HasPrefix(str(r.client), "127.0.0.1:") {
				t.Errorf("login_failed: role %s success %v client %s", str(r.role), r.success, str(r.client))
			}
			got = append(got, str(r.detail))
		}
	}
	want := []string{`42501 permission denied for database "weir"`, `3D000 database "nosuch" does not exist`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("login_failed details: %q, want %q", got, want)
	}
}

// TestAuditLogBounds: past --audit-log-max-rows the oldest events go;
// past --audit-log-retention every older one does, the younger stay.
func TestAuditLogBounds(t *testing.T) {
	t.Run("max_rows", func(t *testing.T) {
		s := startServerWith(t, engine.Config{DataDir: t.TempDir(), AuditLogMaxRows: 5})
		c := s.connect(t)
		for i := 0; i < 6; i++ {
			auditExec(t, c, "CREATE TABLE t (k bigint)", "DROP TABLE t")
		}
		if n := s.eng.TrimAuditLog(); n != 8 { // a connect and 12 DDL events
			t.Errorf("the trim deleted %d events, want 8", n)
		}
		rows := readAudit(t, c)
		if len(rows) != 5 || str(rows[4].statement) != "DROP TABLE t" || str(rows[3].statement) != "CREATE TABLE t (k bigint)" {
			t.Fatalf("after the trim %d events remain, the last %q", len(rows), str(rows[len(rows)-1].statement))
		}
		if s.eng.TrimAuditLog() != 0 {
			t.Error("a second trim deleted events")
		}
	})
	t.Run("retention", func(t *testing.T) {
		s := startServerWith(t, engine.Config{DataDir: t.TempDir(), AuditLogRetention: 2 * time.Second})
		c := s.connect(t)
		auditExec(t, c, "CREATE TABLE old (k bigint)")
		deadline := time.Now().Add(20 * time.Second)
		for len(readAudit(t, c)) > 0 {
			if time.Now().After(deadline) {
				t.Fatal("events older than the retention are still there")
			}
			s.eng.TrimAuditLog()
			time.Sleep(50 * time.Millisecond) // polling: the events must age
		}
		auditExec(t, c, "CREATE TABLE young (k bigint)")
		s.eng.TrimAuditLog()
		if rows := readAudit(t, c); len(rows) != 1 || str(rows[0].object) != "public.young" {
			t.Fatalf("the young event went with the old: %d rows", len(rows))
		}
	})
}

// TestAuditLogRestart: the audit log is durable: a restart of the engine
// on the same data directory reads every event, and numbers new ones
// after them.
func TestAuditLogRestart(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	c := s.connect(t)
	auditExec(t, c, "CREATE TABLE t (k bigint)", "CREATE ROLE r", "GRANT pg_monitor TO r")
	before := readAudit(t, c)
	c.Close(context.Background())
	s.stop()

	s = startServer(t, dir)
	c = s.connect(t)
	after := readAudit(t, c)
	if len(after) != len(before)+1 {
		t.Fatalf("%d events before the restart, %d after (want one more: the new connect)", len(before), len(after))
	}
	for i, r := range before {
		a := after[i]
		if a.seq != r.seq || a.kind != r.kind || str(a.statement) != str(r.statement) || !a.at.Equal(r.at) || a.success != r.success {
			t.Errorf("event %d changed across the restart: %+v, was %+v", i, a, r)
		}
	}
	if last := after[len(after)-1]; last.kind != "connect" || last.seq <= before[len(before)-1].seq {
		t.Errorf("the new connect: %s seq %d", last.kind, last.seq)
	}
}
