package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/internal/pgtest"
)

// spillData is the table the spill tests query: 60,000 rows with NULLs,
// ties and several types, far more than 64kB of work_mem holds.
var spillData = []string{
	"CREATE TABLE sp (a int, b text, c float8, d numeric(10,2))",
	`INSERT INTO sp SELECT g,
	   CASE WHEN g % 17 = 0 THEN NULL ELSE 'k' || (g % 5000) END,
	   CASE WHEN g % 13 = 0 THEN NULL ELSE (g % 1000)::float8 / 8 END,
	   (g % 777)::numeric / 4
	 FROM generate_series(1, 60000) g`,
}

// spillQueries run with work_mem = 64kB on weir and on PostgreSQL (which
// spills too) and must give identical results. ordered: compare in order
// (the ORDER BY is total). spills: weir must have written spill files.
type spillQuery struct {
	sql     string
	ordered bool
	spills  bool
}

var spillQueries = []spillQuery{
	// sort
	{"SELECT a, b FROM sp ORDER BY b, a", true, true},
	{"SELECT b, c, a FROM sp ORDER BY c DESC NULLS LAST, b NULLS FIRST, a DESC", true, true},
	{"SELECT d, a FROM sp ORDER BY d, a", true, true},
	{"SELECT a FROM sp ORDER BY a % 100, a DESC OFFSET 59990", true, true},
	// hash aggregation
	{"SELECT b, count(*), sum(a), min(c), max(d), avg(d) FROM sp GROUP BY b", false, true},
	{"SELECT a % 20000 AS k, b IS NULL, count(*), sum(c), count(c) FROM sp GROUP BY 1, 2", false, true},
	{"SELECT a % 9000, count(DISTINCT b), count(DISTINCT d), sum(DISTINCT a % 7) FROM sp GROUP BY 1", false, true},
	{"SELECT b, string_agg(a::text, ',' ORDER BY a DESC), array_agg(c ORDER BY c NULLS FIRST, a) FROM sp GROUP BY b", false, true},
	{"SELECT d, a % 50, count(*) FILTER (WHERE a % 2 = 0), sum(a) FILTER (WHERE c IS NULL) FROM sp GROUP BY 1, 2", false, true},
	{"SELECT c, b, count(*) FROM sp GROUP BY c, b HAVING count(*) > 1", false, true},
	{"SELECT count(*), count(DISTINCT b), sum(a), string_agg(DISTINCT b, ',' ORDER BY b) FROM sp", false, false},
	// DISTINCT, DISTINCT ON
	{"SELECT DISTINCT b, a % 7 FROM sp", false, true},
	{"SELECT DISTINCT c, d FROM sp", false, true},
	{"SELECT DISTINCT ON (b) b, a, c FROM sp ORDER BY b, a DESC", true, true},
	{"SELECT DISTINCT ON (a % 20000) a % 20000, b FROM sp ORDER BY a % 20000, b NULLS FIRST, a", true, true},
	// set operations
	{"SELECT b, a % 3 FROM sp UNION SELECT b, a % 5 FROM sp", false, true},
	{"SELECT b, d FROM sp INTERSECT SELECT b, d FROM sp WHERE a % 3 = 0", false, true},
	{"SELECT b, a % 4 FROM sp INTERSECT ALL SELECT b, a % 2 FROM sp", false, true},
	{"SELECT b, c FROM sp EXCEPT SELECT b, c FROM sp WHERE a % 4 = 0", false, true},
	{"SELECT b, a % 3 FROM sp EXCEPT ALL SELECT b, a % 6 FROM sp WHERE a < 40000", false, true},
	// window partitions
	{"SELECT a, b, row_number() OVER (PARTITION BY b ORDER BY a), sum(c) OVER (PARTITION BY b ORDER BY a) FROM sp", false, true},
	{"SELECT a, rank() OVER w, dense_rank() OVER w, lag(a) OVER w, count(*) OVER (PARTITION BY a % 3000) FROM sp WINDOW w AS (PARTITION BY a % 3000 ORDER BY c NULLS FIRST, a)", false, true},
	{"SELECT a, sum(a) OVER (PARTITION BY d ORDER BY a ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING), first_value(b) OVER (PARTITION BY d ORDER BY a) FROM sp", false, true},
	{"SELECT a, row_number() OVER (ORDER BY a DESC), sum(a) OVER () FROM sp", false, false},
	// hash join (grace: both sides partitioned)
	{"SELECT x.a, y.a, x.b FROM sp x JOIN sp y ON x.b = y.b AND x.a % 7 = y.a % 7", false, true},
	{"SELECT x.a, y.a FROM sp x LEFT JOIN (SELECT * FROM sp WHERE a % 3 = 0) y ON x.a = y.a + 1", false, true},
	{"SELECT x.a, y.a FROM (SELECT * FROM sp WHERE a % 2 = 0) x RIGHT JOIN sp y ON x.c = y.c AND x.a = y.a", false, true},
	{"SELECT x.a, y.a, y.b FROM (SELECT * FROM sp WHERE a % 5 = 0) x FULL JOIN (SELECT * FROM sp WHERE a % 3 = 0) y ON x.a = y.a AND x.b = y.b", false, true},
}

func TestSpillMatchesPostgres(t *testing.T) { checkSpillQueries(t, spillQueries) }

// checkSpillQueries runs queries over spillData with work_mem 64kB on
// weir and PostgreSQL and compares the results.
func checkSpillQueries(t *testing.T, queries []spillQuery) {
	checkSpillQueriesOver(t, spillData, queries)
}

// checkSpillQueriesOver is checkSpillQueries over the tables data makes;
// it returns weir's server for checks after the queries.
func checkSpillQueriesOver(t *testing.T, data []string, queries []spillQuery) *server {
	pg := pgtest.Shared(t)
	srv := startServer(t, t.TempDir())
	w := srv.connect(t)
	p := pgConnFresh(t, pg)
	ctx := context.Background()
	for _, sql := range data {
		if _, err := w.Exec(ctx, sql); err != nil {
			t.Fatalf("weir: %s: %v", sql, err)
		}
		if _, err := p.Exec(ctx, sql); err != nil {
			t.Fatalf("PostgreSQL: %s: %v", sql, err)
		}
	}
	for _, c := range []string{"SET work_mem = '64kB'", "SET max_parallel_workers_per_gather = 0"} {
		if _, err := p.Exec(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Exec(ctx, "SET work_mem = '64kB'"); err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		before := exec.SpillFilesCreated()
		start := time.Now()
		wo := runQuery(w, q.sql)
		took := time.Since(start)
		spilled := exec.SpillFilesCreated() - before
		start = time.Now()
		po := runQuery(p, q.sql)
		t.Logf("%s: weir %v (%d spill files), PostgreSQL %v", q.sql, took, spilled, time.Since(start))
		if d := diffOutcomes(po, wo, q.ordered); d != "" {
			t.Errorf("%s\n%s %s", q.sql, d, wo.err)
		}
		if q.spills && spilled == 0 {
			t.Errorf("%s: weir did not spill with work_mem 64kB", q.sql)
		}
		if len(po.rows) == 0 {
			t.Errorf("%s: no rows", q.sql)
		}
	}
	return srv
}
