package engine_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

// TestStartupOutputStyles connects to weir and to PostgreSQL with DateStyle
// as a startup parameter and IntervalStyle / bytea_output in options (as
// PGOPTIONS sends them), and requires the same text for every value.
func TestStartupOutputStyles(t *testing.T) {
	pg := pgtest.Shared(t)
	srv := startServer(t, t.TempDir())
	const q = `SELECT current_setting('DateStyle'), current_setting('IntervalStyle'), date '2024-01-02', timestamp '2024-01-02 03:04:05.5',
		timestamptz '2024-07-02 03:04:05+00', interval '-1 year -2 mons', interval '3 days 04:05:06', '\x41ff'::bytea, date '03/04/2024'`
	answer := func(url string) []string {
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeParams["DateStyle"] = "Postgres, DMY"
		cfg.RuntimeParams["TimeZone"] = "Europe/Paris"
		cfg.RuntimeParams["options"] = "-c IntervalStyle=sql_standard -c bytea_output=escape"
		c, err := pgx.ConnectConfig(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		rows, err := c.Query(context.Background(), q, pgx.QueryExecModeSimpleProtocol)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			for _, v := range rows.RawValues() {
				out = append(out, string(v))
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	want, got := answer(pg.FreshDatabase(t)), answer(srv.url())
	if len(want) != len(got) {
		t.Fatalf("PostgreSQL %q, weir %q", want, got)
	}
	for i := range want {
		if want[i] != got[i] {
			t.Errorf("column %d: PostgreSQL %q, weir %q", i+1, want[i], got[i])
		}
	}
}
