package main

// The audit log from the real binary (issue 13, point 5): after a kill -9
// every audit event written before the kill is in weir_catalog.audit_log
// again. Events are appended by a background writer a few milliseconds
// after their statement ends (engine/audit_writer.go), so what survives
// is a prefix of what ran: every event a read of the log had seen, and of
// the statements that ran after it all but at most the last few.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestAuditLogAcrossKill(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "data")
	certFile, keyFile := writeSelfSigned(t, tmp) // tls_test.go
	port := freePort(t)
	s, _ := startCrashServer(t, dir, port, []string{"--tls-cert", certFile, "--tls-key", keyFile})
	ctx := context.Background()
	// A connection over TLS says so in its connect event.
	tc, err := pgx.Connect(ctx, fmt.Sprintf("postgres://weir@localhost:%d/weir?sslmode=verify-full&sslrootcert=%s&application_name=auditor", port, certFile))
	if err != nil {
		t.Fatal(err)
	}
	var detail string
	if err := tc.QueryRow(ctx, "SELECT detail FROM weir_catalog.audit_log WHERE kind = 'connect' ORDER BY seq DESC LIMIT 1").Scan(&detail); err != nil ||
		detail != "database=weir tls=TLSv1.3 application_name=auditor" {
		t.Errorf("the TLS connection's connect event: %q (%v)", detail, err)
	}
	tc.Close(ctx)
	c, err := pgx.Connect(ctx, s.url())
	if err != nil {
		t.Fatal(err)
	}
	const seen, after = 20, 200
	for i := 0; i < seen; i++ {
		if _, err := c.Exec(ctx, fmt.Sprintf("CREATE TABLE t%d (k bigint)", i)); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM weir_catalog.audit_log WHERE kind = 'ddl'").Scan(&n); err != nil || n != seen {
		t.Fatalf("the audit log has %d ddl events (%v), want %d", n, err, seen)
	}
	done := make([]time.Time, seen+after) // when each statement had ended, as the client saw it
	for i := seen; i < seen+after; i++ {
		if _, err := c.Exec(ctx, fmt.Sprintf("CREATE TABLE t%d (k bigint)", i)); err != nil {
			t.Fatal(err)
		}
		done[i] = time.Now()
	}
	killed := time.Now()
	s.kill()
	if !strings.Contains(s.log.String(), "msg=audit kind=ddl") {
		t.Errorf("the server's log has no audit lines:\n%s", s.log.String())
	}

	s, _ = startCrashServer(t, dir, port, []string{"--tls-cert", certFile, "--tls-key", keyFile})
	defer s.kill()
	c, err = pgx.Connect(ctx, s.url())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, "SELECT kind, statement, success FROM weir_catalog.audit_log ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var ddl []string
	for rows.Next() {
		var kind string
		var stmt *string
		var ok bool
		if err := rows.Scan(&kind, &stmt, &ok); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, kind)
		if kind == "ddl" {
			if !ok || stmt == nil {
				t.Fatalf("a ddl event without its statement or failed: %v %v", stmt, ok)
			}
			ddl = append(ddl, *stmt)
		}
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	if len(kinds) < 3 || kinds[0] != "connect" || kinds[1] != "connect" || kinds[len(kinds)-1] != "connect" {
		t.Fatalf("the log after the restart: %v, want the first sessions' connects first and the new one's last", kinds)
	}
	if len(ddl) < seen {
		t.Fatalf("%d ddl events after the kill, want at least the %d a read had seen", len(ddl), seen)
	}
	for i, stmt := range ddl {
		if want := fmt.Sprintf("CREATE TABLE t%d (k bigint)", i); stmt != want {
			t.Fatalf("ddl event %d after the kill is %q, want %q: the survivors are not a prefix", i, stmt, want)
		}
	}
	var oldestLost time.Duration
	if len(ddl) < seen+after {
		oldestLost = killed.Sub(done[len(ddl)])
	}
	t.Logf("after the kill: %d of the %d ddl events; the %d lost ended in the last %v before it", len(ddl), seen+after, seen+after-len(ddl), oldestLost)
	// The writer commits within auditLinger (10 ms) and a commit; a
	// second leaves room for a loaded machine, and would still catch a
	// writer that does not write until it is flushed.
	if oldestLost > time.Second {
		t.Errorf("an event of a statement that ended %v before the kill is lost", oldestLost)
	}
}
