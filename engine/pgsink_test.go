package engine_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/internal/pgtest"
)

// rowsOf runs q and returns its rows as "a|b|c", sorted.
func rowsOf(t *testing.T, c *pgx.Conn, q string) ([]string, error) {
	rows, err := c.Query(context.Background(), q)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// CREATE SINK ... connector = 'postgres' of an append-mode table (inserts)
// and of an update-mode aggregate (upserts by key, deletes): PostgreSQL's
// tables equal weir's streaming tables, also after weir restarts and more
// rows come (every epoch once: the progress row is in the same
// PostgreSQL transaction as its changes).
func TestPostgresSink(t *testing.T) {
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
	dir := t.TempDir()
	srv := startServerWith(t, engine.Config{DataDir: dir})
	w := srv.connect(t)
	execAll(t, w,
		`CREATE TABLE ev (id bigint, region text, amount numeric(12,2))`,
		`CREATE STREAMING TABLE silver AS SELECT id, region, amount FROM STREAM ev WHERE amount > 0`,
		`CREATE STREAMING TABLE totals WITH (output_mode = 'update') AS SELECT region, count(*) AS n, sum(amount) AS total FROM STREAM ev GROUP BY region`,
		fmt.Sprintf(`CREATE SINK silver_pg FROM silver WITH (connector = 'postgres', url = '%s', table = 'silver_out')`, url),
		fmt.Sprintf(`CREATE SINK totals_pg FROM totals WITH (connector = 'postgres', url = '%s', table = 'totals_out', primary_key = 'region')`, url))
	next := 0
	insert := func(w *pgx.Conn) {
		var vals []string
		for i := 0; i < 50; i++ {
			next++
			vals = append(vals, fmt.Sprintf("(%d, 'r%d', %d.%02d)", next, next%4, next%37-3, next%100))
		}
		execAll(t, w, "INSERT INTO ev VALUES "+strings.Join(vals, ", "))
	}
	match := func(w *pgx.Conn) {
		t.Helper()
		for _, q := range [][2]string{
			{`SELECT id::text || '|' || region || '|' || amount::text FROM silver`, `SELECT id::text || '|' || region || '|' || amount::text FROM silver_out`},
			{`SELECT region || '|' || n::text || '|' || total::text FROM totals`, `SELECT region || '|' || n::text || '|' || total::text FROM totals_out`},
		} {
			waitUntil(t, "PostgreSQL's copy of "+q[0], func() (bool, string) {
				want, err := rowsOf(t, w, q[0])
				if err != nil {
					return false, err.Error()
				}
				got, err := rowsOf(t, pg, q[1])
				if err != nil {
					return false, err.Error()
				}
				return strings.Join(got, "\n") == strings.Join(want, "\n"), fmt.Sprintf("weir %d rows, PostgreSQL %d", len(want), len(got))
			})
		}
	}
	for i := 0; i < 3; i++ {
		insert(w)
	}
	match(w)
	w.Close(ctx)
	srv.stop()
	srv = startServerWith(t, engine.Config{DataDir: dir})
	defer srv.stop()
	w = srv.connect(t)
	insert(w)
	match(w)
	var epochs int
	if err := pg.QueryRow(ctx, `SELECT count(*) FROM weir_sink_progress`).Scan(&epochs); err != nil || epochs != 2 {
		t.Fatalf("progress rows: %d, %v", epochs, err)
	}
}
