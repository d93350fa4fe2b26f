package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/internal/pgtest"
)

// TestWorkMemSetting: SET / SHOW work_mem accept, print and reject what
// PostgreSQL does.
func TestWorkMemSetting(t *testing.T) {
	pg := pgConnFresh(t, pgtest.Shared(t))
	w := startServer(t, t.TempDir()).connect(t)
	values := []string{"'64kB'", "'1MB'", "1024", "'2048kB'", "'1GB'", "'4MB'", "'1 MB'", "'100000B'", "65", "DEFAULT",
		"'32kB'", "'abc'", "'1mb'", "'10 XB'", "63", "'3TB'",
		"'1.5MB'", "'0.5GB'", "'65.4'", "'65.6'", "'66000B'", "' 128kB '", "'-64kB'", "'2147483647kB'", "'2147483648kB'"}
	for _, v := range values {
		sql := "SET work_mem = " + v
		po, wo := runQuery(pg, sql), runQuery(w, sql)
		if po.code != wo.code {
			t.Errorf("%s: PostgreSQL %q (%s), weir %q (%s)", sql, po.err, po.code, wo.err, wo.code)
		}
		po, wo = runQuery(pg, "SHOW work_mem"), runQuery(w, "SHOW work_mem")
		if d := diffOutcomes(po, wo, true); d != "" {
			t.Errorf("after %s: SHOW work_mem: %s (PostgreSQL %v, weir %v)", sql, d, po.rows, wo.rows)
		}
	}
	po, wo := runQuery(pg, "SELECT current_setting('work_mem')"), runQuery(w, "SELECT current_setting('work_mem')")
	if d := diffOutcomes(po, wo, true); d != "" {
		t.Errorf("current_setting: %s", d)
	}
}

// TestQueryMemoryBudget: a query that needs more than the server's query
// memory (work_mem set high, so that it does not spill) fails with 53200
// naming the operator; the session and other sessions go on, and all its
// memory is given back.
func TestQueryMemoryBudget(t *testing.T) {
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), QueryMemory: 16 << 20})
	a, b := srv.connect(t), srv.connect(t)
	ctx := context.Background()
	if _, err := a.Exec(ctx, "SET work_mem = '1GB'"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct{ sql, op string }{
		{"SELECT g FROM generate_series(1, 4000000) g ORDER BY g DESC", "Sort"},
		{"SELECT g % 3000000, count(*) FROM generate_series(1, 4000000) g GROUP BY 1", "HashAggregate"},
		{"SELECT count(*) FROM (SELECT row_number() OVER (ORDER BY g) FROM generate_series(1, 2000000) g) s", "WindowAgg"},
		// Both sides large: the planner holds the smaller side, so a 3-row
		// side would be held instead and fit.
		{"SELECT count(*) FROM generate_series(1, 5000000) a, generate_series(1, 5000000) b", "NestedLoop join"},
	} {
		sql := q.sql
		_, err := a.Exec(ctx, sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "53200" {
			t.Fatalf("%s: want 53200, got %v", sql, err)
		}
		if !strings.Contains(pe.Detail, "query memory") || !strings.Contains(pe.Detail, q.op) {
			t.Errorf("%s: DETAIL %q does not name the budget and %s", sql, pe.Detail, q.op)
		}
		if used := srv.eng.QueryMemory().Used(); used != 0 {
			t.Errorf("%s: %d bytes still held after the query failed", sql, used)
		}
		var n int64
		if err := b.QueryRow(ctx, "SELECT count(*) FROM generate_series(1, 1000)").Scan(&n); err != nil || n != 1000 {
			t.Fatalf("other session: %v %d", err, n)
		}
		if err := a.QueryRow(ctx, "SELECT count(*) FROM generate_series(1, 1000)").Scan(&n); err != nil || n != 1000 {
			t.Fatalf("same session after 53200: %v %d", err, n)
		}
	}
	if used := srv.eng.QueryMemory().Used(); used != 0 {
		t.Errorf("%d bytes still held when idle", used)
	}
	// With the default work_mem the same sort spills and succeeds.
	if _, err := a.Exec(ctx, "RESET work_mem"); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := a.QueryRow(ctx, "SELECT count(*) FROM (SELECT g FROM generate_series(1, 4000000) g ORDER BY g DESC OFFSET 10) s").Scan(&n); err != nil || n != 3999990 {
		t.Fatalf("spilling sort: %v %d", err, n)
	}
}

// TestSpillDirectory: spill files live under DATA/tmp, are gone when the
// query ends, and stale ones are removed when the server starts.
func TestSpillDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "tmp", "q1-stale"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tmp", "q1-stale", "sort-run-1.arrow"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, dir)
	entries, err := os.ReadDir(filepath.Join(dir, "tmp"))
	if err != nil || len(entries) != 0 {
		t.Fatalf("DATA/tmp at start: %v %v", entries, err)
	}
	c := srv.connect(t)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "SET work_mem = '64kB'"); err != nil {
		t.Fatal(err)
	}
	// Spill, and fail midway: cancelled by a deadline.
	rows, err := c.Query(ctx, "SELECT g FROM generate_series(1, 300000) g ORDER BY g DESC")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	rows.Close()
	if rows.Err() != nil || n != 300000 {
		t.Fatalf("spilled sort: %v, %d rows", rows.Err(), n)
	}
	qctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = c.Exec(qctx, "SELECT g FROM generate_series(1, 50000000) g ORDER BY g DESC")
	cancel()
	if err == nil {
		t.Fatal("cancelled query succeeded")
	}
	c = srv.connect(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		entries, _ = os.ReadDir(filepath.Join(dir, "tmp"))
		if len(entries) == 0 && srv.eng.QueryMemory().Used() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("DATA/tmp after the queries: %d entries, %d bytes held", len(entries), srv.eng.QueryMemory().Used())
		}
		time.Sleep(10 * time.Millisecond) // waiting for the cancelled query to unwind, with a deadline
	}
}

func TestParseMemorySize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{{"2GB", 2 << 30, true}, {"512mb", 512 << 20, true}, {"1048576", 1 << 20, true}, {"64 kB", 64 << 10, true},
		{"1.5GB", 3 << 29, true}, {"0", 0, false}, {"abc", 0, false}, {"-1GB", 0, false}, {"10XB", 0, false}} {
		got, ok := engine.ParseMemorySize(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseMemorySize(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
