package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/internal/pgtest"
)

// describeRows runs q (extended protocol, so the statement's RowDescription
// comes from Describe) and returns its rows as text, NULL as "NULL".
func describeRows(t *testing.T, conn *pgx.Conn, q string) [][]string {
	t.Helper()
	rows, err := conn.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		vals := rows.RawValues()
		r := make([]string, len(vals))
		for i, v := range vals {
			if v == nil {
				r[i] = "NULL"
			} else {
				r[i] = string(v)
			}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// detail is the value of a row of DESCRIBE EXTENDED's detailed section.
func detail(rows [][]string, name string) (string, bool) {
	in := false
	for _, r := range rows {
		if r[0] == "# Detailed Table Information" {
			in = true
			continue
		}
		if in && r[0] == name {
			return r[1], true
		}
	}
	return "", false
}

// DESCRIBE EXTENDED of a running streaming table reports the runner's
// state and checkpoint as weir_catalog.streaming_progress sees them.
func TestDescribeExtendedStreamingTable(t *testing.T) {
	srv := startServer(t, t.TempDir())
	conn := srv.connect(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE raw (id bigint, ts timestamp)",
		"INSERT INTO raw VALUES (1, '2026-01-01 10:00:00'), (2, '2026-01-01 10:00:30')",
		`CREATE STREAMING TABLE counts COMMENT 'per window' TBLPROPERTIES ('quality' = 'silver')
		   AS SELECT window.start, count(*) AS n
		   FROM STREAM raw WATERMARK ts DELAY OF INTERVAL 10 SECONDS GROUP BY window(ts, '1 minute')`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var rows [][]string
	deadline := time.Now().Add(15 * time.Second)
	for {
		rows = describeRows(t, conn, "DESCRIBE TABLE EXTENDED counts")
		if st, _ := detail(rows, "State"); strings.Contains(st, " 2 input rows") && strings.Contains(st, "watermark") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("streaming table did not read its input: %v", rows)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var epoch int64
	var oid uint32
	if err := conn.QueryRow(ctx, "SELECT epoch FROM weir_catalog.streaming_progress WHERE name = 'counts'").Scan(&epoch); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SELECT 'counts'::regclass::oid").Scan(&oid); err != nil {
		t.Fatal(err)
	}
	rows = describeRows(t, conn, "DESCRIBE TABLE EXTENDED counts")
	want := map[string]string{
		"Catalog":          "weir",
		"Database":         "public",
		"Table":            "counts",
		"Owner":            "weir",
		"Type":             "STREAMING_TABLE",
		"Comment":          "per window",
		"Table Properties": "[quality=silver]",
		"Output Mode":      "append", // a windowed aggregate over a watermark emits each window once
		"Trigger":          "continuous",
		"Input":            "raw",
		"View Text":        "SELECT window.start, count(*) AS n\n\t\t   FROM STREAM raw WATERMARK ts DELAY OF INTERVAL 10 SECONDS GROUP BY window(ts, '1 minute')",
	}
	for k, v := range want {
		if got, ok := detail(rows, k); !ok || got != v {
			t.Errorf("%s: got %q, want %q", k, got, v)
		}
	}
	created, _ := detail(rows, "Created Time")
	if ct, err := time.Parse("Mon Jan 02 15:04:05 MST 2006", created); err != nil || time.Since(ct) > time.Hour || time.Since(ct) < -time.Minute {
		t.Errorf("Created Time %q: %v", created, err)
	}
	state, _ := detail(rows, "State")
	if !strings.HasPrefix(state, fmt.Sprintf("running, epoch %d, 2 input rows", epoch)) || !strings.Contains(state, "watermark 2026-01-01 10:00:20") {
		t.Errorf("State %q (streaming_progress epoch %d)", state, epoch)
	}
	cp, _ := detail(rows, "Checkpoint")
	if want := fmt.Sprintf("epoch %d; epoch records under store key prefix e/0x%08x/", epoch, oid); !strings.HasPrefix(cp, want) {
		t.Errorf("Checkpoint %q, want prefix %q", cp, want)
	}
	if rows[1][0] != "n" || rows[1][1] != "bigint" || rows[1][2] != "NULL" {
		t.Errorf("column rows: %v", rows[:2])
	}
}

// SHOW CREATE TABLE's statements, run on a fresh server, give the same
// relations: DESCRIBE EXTENDED, SHOW TBLPROPERTIES and SHOW CREATE TABLE
// agree on both servers (but for the creation time and the runner's
// progress).
func TestShowCreateTableRoundTrip(t *testing.T) {
	setup := []string{
		"CREATE SCHEMA sales",
		"SET search_path = sales",
		`CREATE TABLE sales.orders (id bigint NOT NULL, customer text DEFAULT 'anon', amount numeric(10,2), placed timestamp,
		   "Note" varchar(40), tags text[], PRIMARY KEY (id), WATERMARK FOR placed AS placed - INTERVAL '5 seconds') WITH (retention = '2 days')`,
	}
	// Every clause of CREATE STREAMING TABLE weir keeps, a second table
	// with WITH options and EMIT, a view and a source.
	objects := []string{
		`CREATE OR REFRESH STREAMING TABLE big_orders (
		   id bigint NOT NULL COMMENT 'order id',
		   customer string,
		   amount decimal(10,2),
		   placed timestamp,
		   day date GENERATED ALWAYS AS (CAST(placed AS date)) COMMENT 'order day',
		   CONSTRAINT positive EXPECT (amount > 0) ON VIOLATION DROP ROW,
		   CONSTRAINT known EXPECT (customer IS NOT NULL),
		   PRIMARY KEY (id))
		 COMMENT 'orders over 100'
		 TBLPROPERTIES ('pipelines.autoOptimize.zOrderCols' = 'id', delta.appendOnly = 'true')
		 PARTITIONED BY (day)
		 CLUSTER BY (customer)
		 SCHEDULE CRON '0 0 * * * ?' AT TIME ZONE 'Europe/Paris'
		 AS SELECT id, customer, amount, placed FROM STREAM orders WHERE amount > 100`,
		`CREATE STREAMING TABLE per_customer WITH (trigger = 'processing_time 1 second', output_mode = 'update')
		 AS SELECT customer, count(*) AS n, sum(amount) AS total FROM STREAM orders GROUP BY customer`,
		`CREATE STREAMING TABLE per_minute WITH (late_rows = 'late_orders')
		 AS SELECT window_start, count(*) AS n FROM STREAM orders WATERMARK placed DELAY OF INTERVAL 5 SECONDS
		 WINDOW TUMBLING (SIZE INTERVAL 1 MINUTE) GROUP BY window_start EMIT ON WINDOW CLOSE`,
		"CREATE VIEW sales.recent AS SELECT id, amount FROM sales.orders WHERE placed > '2026-01-01'",
		"CREATE SOURCE sales.bids WITH (connector = 'nexmark', table = 'bid', max_events = 50)",
	}
	names := []string{"sales.orders", "sales.big_orders", "sales.per_customer", "sales.per_minute", "sales.recent", "sales.bids"}
	ctx := context.Background()

	a := startServer(t, t.TempDir()).connect(t)
	for _, q := range append(append([]string(nil), setup...), objects...) {
		if _, err := a.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var created []string
	for _, n := range names {
		created = append(created, describeRows(t, a, "SHOW CREATE TABLE "+n)[0][0])
	}

	b := startServer(t, t.TempDir()).connect(t)
	for _, q := range setup[:2] {
		if _, err := b.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for i, q := range created {
		if _, err := b.Exec(ctx, q); err != nil {
			t.Fatalf("SHOW CREATE TABLE %s gave a statement that fails: %v\n%s", names[i], err, q)
		}
	}
	volatile := map[string]bool{"Created Time": true, "State": true, "Checkpoint": true}
	for i, n := range names {
		for _, q := range []string{"DESCRIBE EXTENDED " + n, "SHOW TBLPROPERTIES " + n, "SHOW CREATE TABLE " + n} {
			ra, rb := describeRows(t, a, q), describeRows(t, b, q)
			if len(ra) != len(rb) {
				t.Errorf("%s: %d rows on the first server, %d on the second:\n%v\n%v", q, len(ra), len(rb), ra, rb)
				continue
			}
			for j := range ra {
				if volatile[ra[j][0]] {
					continue
				}
				if strings.Join(ra[j], "|") != strings.Join(rb[j], "|") {
					t.Errorf("%s: row %d differs: %q vs %q\n(statement: %s)", q, j, ra[j], rb[j], created[i])
				}
			}
		}
	}
}

// A name DESCRIBE cannot resolve gets PostgreSQL's error for the same
// name in FROM (code, message), and a syntax error its position.
func TestDescribeErrorsArePostgres(t *testing.T) {
	pg := pgConnFresh(t, pgtest.Shared(t))
	w := startServer(t, t.TempDir()).connect(t)
	ctx := context.Background()
	for _, q := range []string{"CREATE SCHEMA sales", "CREATE TABLE sales.customer (id int, name text)"} {
		if _, err := pg.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"nosuch", "sales.nosuch", "nosch.customer", "weir.sales.nosuch", "other.sales.customer", "abs"} {
		pgName := name
		if strings.HasPrefix(name, "weir.") {
			// The first part is the database: PostgreSQL's test database
			// has another name.
			var db string
			if err := pg.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil {
				t.Fatal(err)
			}
			pgName = db + name[len("weir"):]
		}
		_, perr := pg.Exec(ctx, "SELECT * FROM "+pgName)
		for _, stmt := range []string{"DESCRIBE ", "DESCRIBE TABLE EXTENDED ", "SHOW CREATE TABLE ", "SHOW TBLPROPERTIES "} {
			_, werr := w.Exec(ctx, stmt+name)
			pe, we := asPgError(perr), asPgError(werr)
			if pe == nil || we == nil {
				t.Fatalf("%s%s: PostgreSQL %v, weir %v", stmt, name, perr, werr)
			}
			if pe.Code != we.Code || strings.ReplaceAll(pe.Message, pgName, name) != we.Message {
				t.Errorf("%s%s: weir %s %q, PostgreSQL (SELECT * FROM %s) %s %q", stmt, name, we.Code, we.Message, pgName, pe.Code, pe.Message)
			}
			if we.Position != int32(len(stmt)+1) {
				t.Errorf("%s%s: position %d, want %d", stmt, name, we.Position, len(stmt)+1)
			}
		}
	}
	if _, err := w.Exec(ctx, "DESCRIBE abs"); asPgError(err) == nil || !strings.Contains(asPgError(err).Hint, `\df abs`) {
		t.Errorf("DESCRIBE abs: %v, want a hint naming \\df", err)
	}
	for q, pos := range map[string]int32{
		"DESCRIBE sales.customer name extra":      30,
		"DESCRIBE TABLE":                          15,
		"SHOW CREATE TABLE sales.customer x":      34,
		"SHOW TBLPROPERTIES sales.customer (a b":  35,
		"SHOW TBLPROPERTIES sales.customer (a b)": 38,
		"SHOW TBLPROPERTIES sales.customer (1)":   36,
		"DESC a.b.c.d":                            11,
	} {
		_, err := w.Exec(ctx, q)
		we := asPgError(err)
		if we == nil || we.Code != "42601" || we.Position != pos {
			t.Errorf("%s: got %v (position %v), want 42601 at %d", q, err, we, pos)
		}
	}
}

func asPgError(err error) *pgconn.PgError {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}
