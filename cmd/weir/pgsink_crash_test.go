package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

// TestPostgresSinkAfterKill kills the real binary with SIGKILL while a
// postgres sink delivers an append-mode and an update-mode table, several
// times, and restarts it: PostgreSQL's tables end equal to weir's
// streaming tables (an epoch delivered twice would double silver_out's
// rows; one lost would miss them).
func TestPostgresSinkAfterKill(t *testing.T) {
	url := pgtest.Shared(t).FreshDatabase(t)
	ctx := context.Background()
	pg, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	if _, err := pg.Exec(ctx, `CREATE TABLE silver_out (id bigint, region text, amount numeric(12,2));
		CREATE TABLE totals_out (region text PRIMARY KEY, n bigint, total numeric)`); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "data")
	port := freePort(t)
	srv, _ := startCrashServer(t, dir, port, nil)
	connect := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, srv.url())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	w := connect()
	for _, q := range []string{
		`CREATE TABLE ev (id bigint, region text, amount numeric(12,2))`,
		`CREATE STREAMING TABLE silver AS SELECT id, region, amount FROM STREAM ev`,
		`CREATE STREAMING TABLE totals WITH (output_mode = 'update') AS SELECT region, count(*) AS n, sum(amount) AS total FROM STREAM ev GROUP BY region`,
		fmt.Sprintf(`CREATE SINK silver_pg FROM silver WITH (connector = 'postgres', url = '%s', table = 'silver_out')`, url),
		fmt.Sprintf(`CREATE SINK totals_pg FROM totals WITH (connector = 'postgres', url = '%s', table = 'totals_out', primary_key = 'region')`, url),
	} {
		if _, err := w.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	next := 0
	insert := func(c *pgx.Conn) error {
		var vals []string
		for i := 0; i < 40; i++ {
			next++
			vals = append(vals, fmt.Sprintf("(%d, 'r%d', %d.%02d)", next, next%5, next%41, next%100))
		}
		_, err := c.Exec(ctx, "INSERT INTO ev VALUES "+strings.Join(vals, ", "))
		return err
	}
	for kill := 0; kill < 3; kill++ {
		for i := 0; i < 5; i++ {
			if err := insert(w); err != nil {
				t.Fatal(err)
			}
		}
		// Kill while the last inserts' epochs are on their way.
		srv.kill()
		w.Close(ctx)
		srv, _ = startCrashServer(t, dir, port, nil)
		w = connect()
	}
	defer srv.kill()
	defer w.Close(ctx)
	if err := insert(w); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, "silver to hold every row", fmt.Sprintf("SELECT count(*) = %d FROM silver", next))
	waitFor(t, w, "totals to count every row", fmt.Sprintf("SELECT sum(n) = %d FROM totals", next))
	for _, q := range [][2]string{
		{`SELECT id::text || '|' || region || '|' || amount::text FROM silver`, `SELECT id::text || '|' || region || '|' || amount::text FROM silver_out`},
		{`SELECT region || '|' || n::text || '|' || total::text FROM totals`, `SELECT region || '|' || n::text || '|' || total::text FROM totals_out`},
	} {
		want := pgAccounts(t, w, q[0]) // pgcdc_crash_test.go: rows sorted
		waitUntilEqual(t, "PostgreSQL's copy of "+q[0], want, func() []string {
			rows, err := pg.Query(ctx, q[1])
			if err != nil {
				return nil
			}
			got, _ := pgx.CollectRows(rows, pgx.RowTo[string])
			sort.Strings(got)
			return got
		})
	}
}
