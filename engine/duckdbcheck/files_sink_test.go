package duckdbcheck

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/connector/filesink"
	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/internal/pgtest"
	"github.com/weir-sql/weir/wire"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

// startWeir starts an in-process weir on a loopback port and connects.
func startWeir(t *testing.T) *pgx.Conn {
	t.Helper()
	eng, err := engine.Open(engine.Config{DataDir: t.TempDir(), FilesRoots: []string{os.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := wire.NewServer(eng, wire.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	go srv.Serve(l)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		eng.Close()
	})
	c, err := pgx.Connect(context.Background(), fmt.Sprintf("postgres://weir@%s/weir?sslmode=disable", l.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func exec(t *testing.T, c *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func lines(t *testing.T, rows interface {
	Next() bool
	Scan(...any) error
	Err() error
}, n int) []string {
	t.Helper()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, n)
		ptrs := make([]any, n)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, n)
		for i, v := range vals {
			parts[i] = `\N`
			if v.Valid {
				parts[i] = v.String
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// A files sink's Parquet output, read by DuckDB (the files the manifests
// list, and a glob of the folder with hive_partitioning), holds
// PostgreSQL's result of the streaming table's query over the same rows.
func TestDuckDBReadsFilesSink(t *testing.T) {
	c := startWeir(t)
	pgs := pgtest.Shared(t)
	pg, err := pgx.Connect(context.Background(), pgs.FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(context.Background())
	exec(t, pg, "SET TimeZone = 'UTC'")
	dir := filepath.Join(t.TempDir(), "lake", "silver")
	const table = `CREATE TABLE orders (order_id bigint, region text, amount numeric(18,2), note text, ts timestamptz)`
	exec(t, c, table, `CREATE STREAMING TABLE silver AS SELECT order_id, region, amount * 2 AS amount2, note, ts FROM STREAM orders WHERE amount > 0`,
		fmt.Sprintf(`CREATE SINK silver_files FROM silver WITH (connector = 'files', path = '%s', format = 'parquet', partition_by = 'region')`, dir))
	exec(t, pg, table)
	batches := []string{
		`(1, 'eu', 10.50, 'first', '2024-01-01 10:00:00+00'), (2, 'us', -3.00, NULL, '2024-01-01 10:01:00+00')`,
		`(3, 'eu', 7.25, '', '2024-01-01 10:02:00+00'), (4, 'apac', 1.00, 'comma, "quote"', '2024-01-01 10:03:00+00')`,
		`(5, 'us', 99.99, 'x', '2024-01-01 10:04:00.123456+00'), (6, 'eu', 0.01, 'tiny', '2024-01-01 10:06:00+00')`,
	}
	for _, b := range batches {
		exec(t, c, "INSERT INTO orders VALUES "+b)
		exec(t, pg, "INSERT INTO orders VALUES "+b)
	}
	rows, err := pg.Query(context.Background(), `SELECT order_id, region, (amount * 2)::text, note, (extract(epoch FROM ts) * 1000000)::bigint::text FROM orders WHERE amount > 0`)
	if err != nil {
		t.Fatal(err)
	}
	want := lines(t, rows, 5)
	rows.Close()
	deadline := time.Now().Add(20 * time.Second)
	var files []string
	for {
		ms, err := filesink.ReadManifests(dir)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		files = files[:0]
		for _, f := range filesink.LiveFiles(ms) {
			n += f.Rows
			files = append(files, "'"+filepath.Join(dir, filepath.FromSlash(f.Path))+"'")
		}
		if n == int64(len(want)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sink holds %d rows, want %d", n, len(want))
		}
		time.Sleep(10 * time.Millisecond) // polling interval, with a deadline
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, from := range []string{
		"read_parquet([" + strings.Join(files, ", ") + "], hive_partitioning = true)",
		"read_parquet('" + dir + "/**/part-*.parquet', hive_partitioning = true)",
	} {
		q := `SELECT order_id::VARCHAR, region, amount2::VARCHAR, note, epoch_us(ts)::VARCHAR FROM ` + from
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("DuckDB: %s: %v", q, err)
		}
		got := lines(t, rows, 5)
		rows.Close()
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("DuckDB %s:\n%s\nwant (PostgreSQL):\n%s", from, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	// The Parquet types DuckDB sees: numeric(18,2) * 2 is numeric without
	// a typmod (text), the others their SQL types.
	var typ string
	if err := db.QueryRow(`SELECT typeof(ts) || ',' || typeof(order_id) || ',' || typeof(amount2) FROM read_parquet(` + files[0] + `) LIMIT 1`).Scan(&typ); err != nil {
		t.Fatal(err)
	}
	if typ != "TIMESTAMP WITH TIME ZONE,BIGINT,VARCHAR" {
		t.Errorf("DuckDB types: %s", typ)
	}
}
