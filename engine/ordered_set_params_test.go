package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

// TestOrderedSetParamsMatchPostgres: an ordered-set aggregate's fraction
// or hypothetical value as a parameter of a prepared statement (what
// Grafana and ORMs send), over rows and over no rows (where PostgreSQL
// still checks a scalar fraction), on weir and PostgreSQL.
func TestOrderedSetParamsMatchPostgres(t *testing.T) {
	pg := pgtest.Shared(t)
	srv := startServer(t, t.TempDir())
	w := srv.connect(t)
	p := pgConnFresh(t, pg)
	cases := []struct {
		sql  string
		args []any
	}{
		{"SELECT (percentile_cont($1) WITHIN GROUP (ORDER BY x))::text FROM generate_series(1, 10) x", []any{0.5}},
		{"SELECT (percentile_cont($1) WITHIN GROUP (ORDER BY x))::text FROM generate_series(1, 10) x", []any{0.31}},
		{"SELECT (percentile_cont($1) WITHIN GROUP (ORDER BY x))::text FROM generate_series(1, 10) x", []any{1.5}},
		{"SELECT (percentile_disc($1) WITHIN GROUP (ORDER BY x))::text FROM generate_series(1, 10) x WHERE x > 20", []any{1.5}},
		{"SELECT (percentile_disc($1) WITHIN GROUP (ORDER BY x))::text FROM generate_series(1, 10) x WHERE x > 20", []any{0.5}},
		{"SELECT (percentile_cont($1::float8[]) WITHIN GROUP (ORDER BY x))::text FROM generate_series(1, 10) x", []any{"{0.1,0.9}"}},
		{"SELECT (rank($1) WITHIN GROUP (ORDER BY x))::text, (cume_dist($1) WITHIN GROUP (ORDER BY x))::text FROM generate_series(1, 10) x", []any{4}},
	}
	run := func(c *pgx.Conn, sql string, args []any) string {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		rows, err := c.Query(ctx, sql, args...)
		if err != nil {
			return "error " + err.Error()
		}
		defer rows.Close()
		out := ""
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				return "error " + err.Error()
			}
			out += fmt.Sprint(vals) + "\n"
		}
		if err := rows.Err(); err != nil {
			return "error " + err.Error()
		}
		return out
	}
	for _, c := range cases {
		want, got := run(p, c.sql, c.args), run(w, c.sql, c.args)
		if want != got {
			t.Errorf("%s %v:\nPostgreSQL: %s\nweir:       %s", c.sql, c.args, want, got)
		}
	}
}
