package engine_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/engine"
)

// An AUTO CDC flow over a postgres-cdc source: the change rows (_op
// r/c/u/d, _lsn) applied as SCD type 1 by the table's primary key,
// sequenced by _lsn, deletes where _op = 'd', give PostgreSQL's own table,
// while changes stream in and after a weir restart.
func TestAutoCDCOverPgCDC(t *testing.T) {
	pg, shop := startLogicalPG(t)
	key := make([]byte, 32)
	rand.Read(key)
	dir := t.TempDir()
	srv := startServerWith(t, engine.Config{DataDir: dir, SecretKey: key})
	w := srv.connect(t)
	execAll(t, w,
		`CREATE SECRET shop_pw AS 's3cret'`,
		fmt.Sprintf(`CREATE SOURCE shop WITH (connector = 'postgres-cdc', hostname = '127.0.0.1', port = %d,
		  username = 'replicator', password = secret('shop_pw'), database.name = 'shop',
		  table.name = 'public.customers', slot.name = 'weir_shop', publication = 'weir_shop')`, pg.Port),
		// dialect.md's changelog table: the same, in one statement.
		`CREATE TABLE customers (customer_id bigint PRIMARY KEY, name text, segment text, credit numeric(12,2), since timestamptz)
		   FROM shop TABLE 'public.customers'`,
		`CREATE OR REFRESH STREAMING TABLE customers_silver`,
		`CREATE FLOW customers_flow AS AUTO CDC INTO customers_silver FROM STREAM(shop) KEYS (customer_id)
		   APPLY AS DELETE WHEN _op = 'd' SEQUENCE BY _lsn COLUMNS * EXCEPT (_op, _lsn) STORED AS SCD TYPE 1`,
		// The changelog table read as a stream: its inserts, updates and
		// deletes reach the aggregate, which subtracts what a change took away.
		`CREATE STREAMING TABLE segments AS SELECT segment, count(*) AS n, sum(credit) AS credit, max(since) AS newest, min(name) AS first_name
		   FROM STREAM customers GROUP BY segment`)
	// What a changelog table refuses; a refused one leaves no table.
	for stmt, code := range map[string]string{
		`CREATE TABLE c2 (customer_id bigint, name text) FROM shop TABLE 'public.customers'`:                  "42P16",
		`CREATE TABLE c2 (customer_id bigint PRIMARY KEY, name text) FROM shop TABLE 'public.orders'`:         "0A000",
		`CREATE TABLE c2 (customer_id bigint PRIMARY KEY, name text) FROM customers TABLE 'public.customers'`: "42809",
		`CREATE TABLE c2 (customer_id bigint PRIMARY KEY, nope text) FROM shop TABLE 'public.customers'`:      "42703",
		`CREATE TABLE c2 (customer_id int PRIMARY KEY, name text) FROM shop TABLE 'customers'`:                "42804",
	} {
		_, err := w.Exec(context.Background(), stmt)
		if pe, ok := err.(*pgconn.PgError); !ok || pe.Code != code {
			t.Errorf("%s: got %v, want SQLSTATE %s", stmt, err, code)
		}
	}
	if got := queryLines(t, w, "SELECT count(*) FROM pg_class WHERE relname = 'c2'"); got != "0" {
		t.Errorf("a refused changelog table was left in the catalog")
	}
	// SHOW CREATE TABLE replays: the table, then the flow it amounts to.
	if got := queryLines(t, w, "SHOW CREATE TABLE customers"); !strings.Contains(got, `CREATE FLOW "customers" AS AUTO CDC INTO "customers" FROM STREAM("shop") KEYS ("customer_id") APPLY AS DELETE WHEN _op = 'd' SEQUENCE BY _lsn`) ||
		!strings.Contains(got, "PRIMARY KEY (customer_id)\n") {
		t.Errorf("SHOW CREATE TABLE customers:\n%s", got)
	}
	for round := 0; round < 3; round++ {
		shopChanges(t, shop, round)
	}
	waitSilver(t, w, shop, "customers_silver")
	waitSilver(t, w, shop, "customers")
	waitSegments(t, w, shop)
	w.Close(context.Background())
	srv.stop()
	shopChanges(t, shop, 3) // while weir is down
	srv = startServerWith(t, engine.Config{DataDir: dir, SecretKey: key})
	defer srv.stop()
	w = srv.connect(t)
	shopChanges(t, shop, 4)
	waitSilver(t, w, shop, "customers_silver")
	waitSilver(t, w, shop, "customers")
	waitSegments(t, w, shop)
}

// waitSegments waits until the aggregate over the changelog table equals
// PostgreSQL's GROUP BY over its own table.
func waitSegments(t *testing.T, w, shop *pgx.Conn) {
	t.Helper()
	const q = `SELECT concat_ws('|', segment, n, credit, newest AT TIME ZONE 'UTC', first_name) FROM %s`
	collect := func(c *pgx.Conn, sql string) ([]string, error) {
		rows, err := c.Query(context.Background(), sql)
		if err != nil {
			return nil, err
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		sort.Strings(got)
		return got, err
	}
	want, err := collect(shop, fmt.Sprintf(q, "(SELECT segment, count(*) AS n, sum(credit) AS credit, max(since) AS newest, min(name) AS first_name FROM customers GROUP BY segment) s"))
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "segments to equal PostgreSQL's GROUP BY", func() (bool, string) {
		got, err := collect(w, fmt.Sprintf(q, "segments"))
		if err != nil {
			return false, err.Error()
		}
		if strings.Join(got, "\n") == strings.Join(want, "\n") {
			return true, ""
		}
		return false, fmt.Sprintf("weir %v, PostgreSQL %v", got, want)
	})
}

// waitSilver waits until table holds PostgreSQL's rows.
func waitSilver(t *testing.T, w, shop *pgx.Conn, table string) {
	t.Helper()
	want := strings.Join(sourceRows(t, shop), "\n")
	waitUntil(t, table+" to equal PostgreSQL's customers", func() (bool, string) {
		rows, err := w.Query(context.Background(), `SELECT `+shopRow+` FROM `+table)
		if err != nil {
			return false, err.Error()
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return false, err.Error()
		}
		sort.Strings(got)
		if strings.Join(got, "\n") == want {
			return true, ""
		}
		return false, fmt.Sprintf("weir %d rows, PostgreSQL %d", len(got), strings.Count(want, "\n")+1)
	})
}
