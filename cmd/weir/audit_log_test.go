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

	"github.com/jackc/pgx/v5"
)

func TestAuditLogAcrossKill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	port := freePort(t)
	s, _ := startCrashServer(t, dir, port, nil)
	ctx := context.Background()
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
	for i := seen; i < seen+after; i++ {
		if _, err := c.Exec(ctx, fmt.Sprintf("CREATE TABLE t%d (k bigint)", i)); err != nil {
			t.Fatal(err)
		}
	}
	s.kill()
	if !strings.Contains(s.log.String(), "audit=ddl") {
		t.Errorf("the server's log has no audit lines:\n%s", s.log.String())
	}

	s, _ = startCrashServer(t, dir, port, nil)
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
	if len(kinds) < 2 || kinds[0] != "connect" || kinds[len(kinds)-1] != "connect" {
		t.Fatalf("the log after the restart: %v, want the first session's connect first and the new one's last", kinds)
	}
	if len(ddl) < seen {
		t.Fatalf("%d ddl events after the kill, want at least the %d a read had seen", len(ddl), seen)
	}
	for i, stmt := range ddl {
		if want := fmt.Sprintf("CREATE TABLE t%d (k bigint)", i); stmt != want {
			t.Fatalf("ddl event %d after the kill is %q, want %q: the survivors are not a prefix", i, stmt, want)
		}
	}
	t.Logf("after the kill: %d of the %d ddl events (%d lost from the tail)", len(ddl), seen+after, seen+after-len(ddl))
	if lost := seen + after - len(ddl); lost > after/2 {
		t.Errorf("%d events lost by the kill: more than the last few milliseconds' worth", lost)
	}
}
