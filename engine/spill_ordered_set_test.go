package engine_test

import "testing"

// spillOrderedSetQueries: ordered-set aggregates over inputs far past
// work_mem = 64kB, on weir and PostgreSQL (checkSpillQueries). Their input
// goes to the spilling sort of aggregates with ORDER BY; a percentile keeps
// only the rows its fractions need, mode only the current run and the best.
var spillOrderedSetQueries = []spillQuery{
	{"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a), percentile_cont(0.37) WITHIN GROUP (ORDER BY c DESC), percentile_disc(0.9) WITHIN GROUP (ORDER BY b), percentile_disc(0.25) WITHIN GROUP (ORDER BY d) FROM sp", false, true},
	{"SELECT percentile_cont(ARRAY[0.1, 0.5, 0.99]) WITHIN GROUP (ORDER BY c), percentile_disc(ARRAY[0, 0.5, 1]) WITHIN GROUP (ORDER BY b DESC) FROM sp", false, true},
	{"SELECT mode() WITHIN GROUP (ORDER BY b), mode() WITHIN GROUP (ORDER BY d DESC), mode() WITHIN GROUP (ORDER BY c) FILTER (WHERE a % 3 = 0) FROM sp", false, true},
	{"SELECT rank(3000) WITHIN GROUP (ORDER BY a), dense_rank('k777') WITHIN GROUP (ORDER BY b DESC), percent_rank(50) WITHIN GROUP (ORDER BY c NULLS FIRST), cume_dist(100.25) WITHIN GROUP (ORDER BY d) FROM sp", false, true},
	{"SELECT a % 3, percentile_cont(0.5) WITHIN GROUP (ORDER BY c), percentile_disc(0.5) WITHIN GROUP (ORDER BY b), mode() WITHIN GROUP (ORDER BY d) FROM sp GROUP BY 1", false, true},
}

func TestSpillOrderedSetMatchesPostgres(t *testing.T) {
	checkSpillQueries(t, spillOrderedSetQueries)
}
