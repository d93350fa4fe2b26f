package engine_test

import "testing"

// spillMoreQueries: the operators that spill past work_mem besides hash
// aggregation, hash join, sort, DISTINCT and window partitions, run with
// work_mem = 64kB on weir and PostgreSQL (checkSpillQueries).
var spillMoreQueries = []spillQuery{
	// Nested loop (no equality keys): the inner side goes to a spill
	// file, scanned once per work_mem block of outer rows. PostgreSQL
	// has no FULL JOIN without an equality and runs a non-equi EXISTS as
	// a correlated subquery, so exec's TestBlockNestedLoopKinds covers
	// FULL, semi and anti joins.
	{"SELECT x.a, y.a FROM (SELECT * FROM sp WHERE a <= 3000) x JOIN (SELECT * FROM sp WHERE a <= 4000) y ON y.a > x.a AND y.a < x.a + 3", false, true},
	{"SELECT x.a, y.b, y.d FROM (SELECT * FROM sp WHERE a <= 3000) x LEFT JOIN (SELECT * FROM sp WHERE a <= 4000) y ON y.a > x.a * 2 AND y.a <= x.a * 2 + 1", false, true},
	{"SELECT x.a, x.c, y.a FROM (SELECT * FROM sp WHERE a <= 3000) x RIGHT JOIN (SELECT * FROM sp WHERE a <= 4000) y ON x.a * 3 < y.a AND x.a * 3 + 2 >= y.a", false, true},
	{"SELECT x.a, y.a FROM (SELECT * FROM sp WHERE a <= 2500) x JOIN (SELECT * FROM sp WHERE a <= 3500) y ON x.b < y.b AND x.a + y.a = 3001", false, true},
	// Aggregates with ORDER BY or DISTINCT: without GROUP BY (one group,
	// so hash partitions cannot help) and with a few huge groups, their
	// input goes to a spilling sort; only the result grows in memory.
	{"SELECT count(*), string_agg(b, ',' ORDER BY b DESC, a), length(string_agg(a::text, ',' ORDER BY c NULLS FIRST, a DESC)) FROM sp", false, true},
	{"SELECT array_agg(a ORDER BY d DESC, a) FROM sp WHERE a % 7 = 0", false, true},
	{"SELECT json_agg(a ORDER BY a DESC), jsonb_agg(b ORDER BY a) FROM sp WHERE a % 3 = 0", false, true},
	{"SELECT string_agg(a::text, ';' ORDER BY b NULLS FIRST, a DESC) FILTER (WHERE a % 2 = 0) FROM sp", false, true},
	{"SELECT count(DISTINCT a % 30000), count(DISTINCT b), sum(DISTINCT d), avg(DISTINCT c), count(DISTINCT (a % 20000)::text) FROM sp", false, true},
	{"SELECT string_agg(DISTINCT b, ',' ORDER BY b DESC), array_agg(DISTINCT c ORDER BY c NULLS FIRST) FROM sp", false, true},
	{"SELECT count(DISTINCT a), sum(DISTINCT a % 1000) FILTER (WHERE c IS NOT NULL) FROM sp", false, true},
	{"SELECT a % 3, count(DISTINCT a), count(DISTINCT d), string_agg(b, ',' ORDER BY a DESC) FROM sp GROUP BY 1", false, true},
}

func TestSpillMoreMatchesPostgres(t *testing.T) { checkSpillQueries(t, spillMoreQueries) }
