package engine_test

// TestCatalogQueriesOn1000Tables runs the catalog queries of pgjdbc,
// SQLAlchemy 1.4 and psql (testdata/clients/catalog_queries.sql) on a
// catalog of 1,000 tables, each under a deadline: planned as a cross
// product, pgjdbc's getImportedKeys (nine relations in FROM) ran for
// minutes. Row counts are compared with PostgreSQL 15 holding the same
// tables.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

// catalogQuery is one entry of testdata/clients/catalog_queries.sql.
type catalogQuery struct {
	name string
	sql  string
	args []string
}

func readCatalogQueries(t testing.TB) []catalogQuery {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "clients", "catalog_queries.sql"))
	if err != nil {
		t.Fatal(err)
	}
	var out []catalogQuery
	for _, part := range strings.Split(string(b), "\n;;\n") {
		var q catalogQuery
		var body []string
		for _, line := range strings.Split(part, "\n") {
			switch {
			case strings.HasPrefix(line, "-- [") && q.name == "":
				q.name = strings.TrimSuffix(strings.TrimPrefix(line, "-- ["), "]")
			case strings.HasPrefix(line, "-- args: "):
				q.args = strings.Split(strings.TrimPrefix(line, "-- args: "), "|")
			case strings.HasPrefix(line, "--"):
			default:
				body = append(body, line)
			}
		}
		q.sql = strings.TrimSpace(strings.Join(body, "\n"))
		if q.name != "" && q.sql != "" {
			out = append(out, q)
		}
	}
	if len(out) < 10 {
		t.Fatalf("catalog_queries.sql: only %d queries", len(out))
	}
	return out
}

// catalogTablesDDL creates n tables t0000... with a few columns and a
// primary key.
func catalogTablesDDL(n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("CREATE TABLE t%04d (id bigint PRIMARY KEY, name text NOT NULL, amount numeric(10,2), ts timestamptz)", i))
	}
	return out
}

// fill replaces the runner's placeholders.
func (q catalogQuery) fill(oid uint32) (string, []any) {
	r := strings.NewReplacer("{schema}", "public", "{table}", "t0500", "{table2}", "t0501", "{oid}", fmt.Sprint(oid))
	args := make([]any, len(q.args))
	for i, a := range q.args {
		args[i] = r.Replace(a)
	}
	return r.Replace(q.sql), args
}

func countRows(ctx context.Context, c *pgx.Conn, sql string, args []any) (int, error) {
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	n := 0
	for rows.Next() {
		n++
	}
	rows.Close()
	return n, rows.Err()
}

func TestCatalogQueriesOn1000Tables(t *testing.T) {
	const tables = 1000
	queries := readCatalogQueries(t)
	ctx := context.Background()
	srv := startServer(t, t.TempDir())
	wc := srv.connect(t)
	pg := pgtest.Shared(t)
	pc := pgConnFresh(t, pg)
	ddl := catalogTablesDDL(tables)
	for _, c := range []*pgx.Conn{wc, pc} {
		for i := 0; i < len(ddl); i += 100 {
			if _, err := c.Exec(ctx, strings.Join(ddl[i:min(i+100, len(ddl))], ";\n")); err != nil {
				t.Fatal(err)
			}
		}
	}
	oidOf := func(c *pgx.Conn) uint32 {
		var oid uint32
		if err := c.QueryRow(ctx, "SELECT 't0500'::regclass::oid").Scan(&oid); err != nil {
			t.Fatal(err)
		}
		return oid
	}
	woid, poid := oidOf(wc), oidOf(pc)
	for _, q := range queries {
		t.Run(q.name, func(t *testing.T) {
			sql, args := q.fill(woid)
			// A plan that multiplies relations runs for minutes; a good
			// one takes milliseconds. The deadline leaves room for a
			// loaded test machine.
			qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			start := time.Now()
			got, err := countRows(qctx, wc, sql, args)
			elapsed := time.Since(start)
			if err != nil {
				t.Fatalf("weir after %v: %v", elapsed, err)
			}
			t.Logf("%s: %d rows in %v", q.name, got, elapsed.Round(time.Microsecond))
			psql, pargs := q.fill(poid)
			want, err := countRows(ctx, pc, psql, pargs)
			if err != nil {
				t.Fatalf("postgres: %v", err)
			}
			if got != want {
				t.Errorf("weir returned %d rows, PostgreSQL %d", got, want)
			}
		})
	}
}

// BenchmarkCatalogQueries times each catalog query on 1,000 tables
// in-process (for profiling; weirbench -catalog compares with PostgreSQL).
func BenchmarkCatalogQueries(b *testing.B) {
	queries := readCatalogQueries(b)
	ctx := context.Background()
	srv := startServer(b, b.TempDir())
	c := srv.connect(b)
	ddl := catalogTablesDDL(1000)
	for i := 0; i < len(ddl); i += 100 {
		if _, err := c.Exec(ctx, strings.Join(ddl[i:min(i+100, len(ddl))], ";\n")); err != nil {
			b.Fatal(err)
		}
	}
	var oid uint32
	if err := c.QueryRow(ctx, "SELECT 't0500'::regclass::oid").Scan(&oid); err != nil {
		b.Fatal(err)
	}
	for _, q := range queries {
		b.Run(strings.ReplaceAll(q.name, " ", "_"), func(b *testing.B) {
			sql, args := q.fill(oid)
			for i := 0; i < b.N; i++ {
				if _, err := countRows(ctx, c, sql, args); err != nil {
					b.Skip(err)
				}
			}
		})
	}
}
