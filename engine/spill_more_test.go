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
}

func TestSpillMoreMatchesPostgres(t *testing.T) { checkSpillQueries(t, spillMoreQueries) }
