package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestSetReturningFunctionsStream: a series with an infinite or huge end
// is produced lazily, a batch at a time, in FROM and in a select list, so
// LIMIT stops it at once; one that is consumed whole stops on cancel.
func TestSetReturningFunctionsStream(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	for _, q := range []string{
		"SELECT * FROM generate_series('2020-01-01'::timestamp, 'infinity', interval '1 day') LIMIT 10",
		"SELECT * FROM generate_series('2020-01-01'::timestamptz, 'infinity', interval '1 second') LIMIT 10",
		"SELECT generate_series('2020-01-01'::timestamp, 'infinity', interval '1 day') LIMIT 10",
		"SELECT * FROM generate_series(1::int8, 9223372036854775807) LIMIT 10",
		"SELECT generate_series(1::int8, 9223372036854775807) LIMIT 10",
		"SELECT * FROM generate_series(1::numeric, 1e300) LIMIT 10",
		"SELECT generate_series(1::numeric, 1e300, 0.5) LIMIT 10",
		"SELECT x, generate_series(1, 9223372036854775807::int8) FROM (VALUES (1), (2)) v(x) LIMIT 10",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		rows, err := c.Query(ctx, q)
		n := 0
		if err == nil {
			for rows.Next() {
				n++
			}
			err = rows.Err()
		}
		cancel()
		if err != nil || n != 10 {
			t.Fatalf("%s: %d rows, %v", q, n, err)
		}
	}
	// Consumed whole, an endless series runs until cancelled.
	for _, q := range []string{
		"SELECT count(*) FROM generate_series('2020-01-01'::timestamp, 'infinity', interval '1 microsecond')",
		"SELECT count(*) FROM (SELECT generate_series(1, 9223372036854775807::int8)) s",
		"SELECT count(*) FROM generate_series(1::numeric, 1e300)",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		start := time.Now()
		_, err := c.Exec(ctx, q)
		cancel()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57014" {
			// pgx may report the context error itself once the cancel
			// request went out; what matters is that the statement ends.
			if ctx.Err() == nil || err == nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: took %v to stop after cancel", q, d)
		}
		if c.IsClosed() {
			c = srv.connect(t)
		}
		var one int
		if err := c.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("after cancelling %s: %v", q, err)
		}
	}
}
