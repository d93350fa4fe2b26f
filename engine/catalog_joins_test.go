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
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/catalogqueries"
	"github.com/weir-sql/weir/internal/pgtest"
)

// readCatalogQueries reads testdata/clients/catalog_queries.sql.
func readCatalogQueries(t testing.TB) []catalogqueries.Query {
	t.Helper()
	qs, err := catalogqueries.Read(filepath.Join("..", "testdata", "clients", "catalog_queries.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 10 {
		t.Fatalf("catalog_queries.sql: only %d queries", len(qs))
	}
	return qs
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
		t.Run(q.Name, func(t *testing.T) {
			sql, args := q.Fill(woid)
			// A plan that multiplies relations runs for minutes; a good
			// one takes milliseconds. The deadline leaves room for a
			// loaded test machine.
			qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			start := time.Now()
			got, err := catalogqueries.CountRows(qctx, wc, sql, args)
			elapsed := time.Since(start)
			if err != nil {
				t.Fatalf("weir after %v: %v", elapsed, err)
			}
			t.Logf("%s: %d rows in %v", q.Name, got, elapsed.Round(time.Microsecond))
			psql, pargs := q.Fill(poid)
			want, err := catalogqueries.CountRows(ctx, pc, psql, pargs)
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
		b.Run(strings.ReplaceAll(q.Name, " ", "_"), func(b *testing.B) {
			sql, args := q.Fill(oid)
			for i := 0; i < b.N; i++ {
				if _, err := catalogqueries.CountRows(ctx, c, sql, args); err != nil {
					b.Skip(err)
				}
			}
		})
	}
}
