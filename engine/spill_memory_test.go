package engine_test

import (
	"testing"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/internal/pgtest"
)

// TestSpillWithinQueryMemory: operators whose input is far larger than
// the server's query memory (16MB here) complete with the default
// work_mem by spilling, where holding the input would fail with 53200,
// and give PostgreSQL's answer; afterwards nothing is held.
func TestSpillWithinQueryMemory(t *testing.T) {
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), QueryMemory: 16 << 20})
	w := srv.connect(t)
	p := pgConnFresh(t, pgtest.Shared(t))
	for _, sql := range []string{
		// Nested loops whose inner side (6M rows) is past 16MB.
		"SELECT count(*), sum(b), count(b) FROM generate_series(1, 3) a LEFT JOIN generate_series(1, 6000000) b ON b > a * 2000000 - 3",
		"SELECT count(*), count(a), sum(a) FROM generate_series(1, 3) a RIGHT JOIN generate_series(1, 6000000) b ON b < a * 2 + 1",
		// Aggregates whose ordered or distinct input (3M rows) is past
		// 16MB, with small results.
		"SELECT count(DISTINCT g), sum(DISTINCT g % 1000), count(*) FROM generate_series(1, 3000000) g",
		"SELECT string_agg(CASE WHEN g % 250000 = 0 THEN g::text END, ',' ORDER BY g % 1000003 DESC, g) FROM generate_series(1, 3000000) g",
		"SELECT g % 2, count(DISTINCT g), string_agg(CASE WHEN g % 500000 = 0 THEN g::text END, ',' ORDER BY -g) FROM generate_series(1, 3000000) g GROUP BY 1 ORDER BY 1",
	} {
		wo, po := runQuery(w, sql), runQuery(p, sql)
		if wo.err != "" {
			t.Errorf("%s: weir: %s (%s)", sql, wo.err, wo.code)
			continue
		}
		if d := diffOutcomes(po, wo, true); d != "" {
			t.Errorf("%s: %s", sql, d)
		}
		if used := srv.eng.QueryMemory().Used(); used != 0 {
			t.Errorf("%s: %d bytes held after the query", sql, used)
		}
	}
}
