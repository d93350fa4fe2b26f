package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestCancelLongOperators: a CancelRequest stops each memory-heavy
// operator (in-memory and spilling sort, hash aggregate build, hash join
// build, a runaway cross join, a window over a spilled partition) within one second, with 57014.
func TestCancelLongOperators(t *testing.T) {
	srv := startServer(t, t.TempDir())
	ctx := context.Background()
	for _, q := range []struct{ workMem, sql string }{
		{"1GB", "SELECT g FROM generate_series(1, 20000000) g ORDER BY g % 1000003, g DESC"},
		{"64kB", "SELECT g FROM generate_series(1, 20000000) g ORDER BY g % 1000003, g DESC"},
		{"1GB", "SELECT g % 5000000, count(*), sum(g) FROM generate_series(1, 20000000) g GROUP BY 1"},
		{"64kB", "SELECT g % 5000000, count(*), sum(g) FROM generate_series(1, 20000000) g GROUP BY 1"},
		{"1GB", "SELECT count(*) FROM generate_series(1, 20000000) a JOIN generate_series(1, 20000000) b ON a = b"},
		{"64kB", "SELECT count(*) FROM generate_series(1, 20000000) a JOIN generate_series(1, 20000000) b ON a = b"},
		{"4MB", "SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b"},
		// a window over one partition far past work_mem: written to its
		// spill file, then computed from it (a 50,000-row sliding frame)
		{"64kB", "SELECT max(s) FROM (SELECT sum(g) OVER (ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) AS s FROM generate_series(1, 20000000) g) w"},
		{"64kB", "SELECT max(s) FROM (SELECT sum(g) OVER (ORDER BY g DESC ROWS BETWEEN 50000 PRECEDING AND CURRENT ROW) AS s FROM generate_series(1, 300000) g) w"},
	} {
		c := srv.connect(t)
		if _, err := c.Exec(ctx, "SET work_mem = '"+q.workMem+"'"); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := c.Exec(ctx, q.sql)
			done <- err
		}()
		// Cancel once the operator is inside its loops: it holds query
		// memory from its first buffered batch on.
		for deadline := time.Now().Add(10 * time.Second); srv.eng.QueryMemory().Used() == 0; {
			select {
			case err := <-done:
				t.Fatalf("work_mem %s: %s ended before the cancel: %v", q.workMem, q.sql, err)
			case <-time.After(5 * time.Millisecond): // polling interval
			}
			if time.Now().After(deadline) {
				t.Fatalf("work_mem %s: %s holds no query memory after 10 s", q.workMem, q.sql)
			}
		}
		cancelled := time.Now()
		if err := c.PgConn().CancelRequest(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "57014" {
				t.Errorf("work_mem %s: %s: want 57014, got %v", q.workMem, q.sql, err)
			}
			if d := time.Since(cancelled); d > time.Second {
				t.Errorf("work_mem %s: %s: stopped %v after the cancel", q.workMem, q.sql, d)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("work_mem %s: %s: still running 10 s after the cancel", q.workMem, q.sql)
		}
		if used := srv.eng.QueryMemory().Used(); used != 0 {
			t.Errorf("%s: %d bytes held after the cancel", q.sql, used)
		}
	}
}
