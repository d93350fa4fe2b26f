package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkAutoCDC: 200,000 changes of 10,000 keys, sequences out of
// order, every tenth a delete, inserted in 20 statements (so applied over
// many epochs) into the feed of an AUTO CDC flow of each SCD type; the
// time from the first insert until REFRESH returns (every change
// applied), and the inserts alone as the baseline; then flows with
// TRUNCATE WHEN, IGNORE NULL UPDATES and TRACK HISTORY ON over such a
// feed with NULLs and truncates; and SCD1 read as a stream by an
// aggregate (scd1_read: both tables' REFRESH returned).
//
//	go test ./engine -run '^$' -bench AutoCDC -benchtime=1x
func BenchmarkAutoCDC(b *testing.B) {
	const changes, keys = 200_000, 10_000
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		srv := startServer(b, b.TempDir())
		c := srv.connect(b)
		run := func(q string) {
			if _, err := c.Exec(ctx, q); err != nil {
				b.Fatalf("%s: %v", q, err)
			}
		}
		insert := func(table string) {
			for k := 0; k < 20; k++ {
				run(fmt.Sprintf("INSERT INTO %s SELECT g %% %d, g, CASE WHEN g %% 10 = 0 THEN 'D' ELSE 'U' END, (g * 7919) %% 1000003 FROM generate_series(%d, %d) g",
					table, keys, k*changes/20+1, (k+1)*changes/20))
			}
		}
		// For the clauses: a third of the values NULL, one change in 20,000
		// a truncate.
		insertClauses := func(table string) {
			for k := 0; k < 20; k++ {
				run(fmt.Sprintf(`INSERT INTO %s SELECT g %% %d, CASE WHEN g %% 3 = 0 THEN NULL ELSE g END,
					CASE WHEN g %% 20000 = 0 THEN 'T' WHEN g %% 10 = 0 THEN 'D' ELSE 'U' END, (g * 7919) %% 1000003 FROM generate_series(%d, %d) g`,
					table, keys, k*changes/20+1, (k+1)*changes/20))
			}
		}
		run("CREATE TABLE feed0 (k int, v int, op text, seq bigint)")
		start := time.Now()
		insert("feed0")
		baseline := time.Since(start)
		b.ReportMetric(float64(changes)/baseline.Seconds(), "inserts/s")
		for _, scd := range []string{"1", "2"} {
			run("CREATE TABLE feed" + scd + " (k int, v int, op text, seq bigint)")
			run("CREATE OR REFRESH STREAMING TABLE t" + scd)
			run("CREATE FLOW f" + scd + " AS AUTO CDC INTO t" + scd + " FROM STREAM(feed" + scd + ") KEYS (k) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq STORED AS SCD TYPE " + scd)
			start := time.Now()
			insert("feed" + scd)
			run("REFRESH STREAMING TABLE t" + scd)
			d := time.Since(start)
			b.ReportMetric(float64(changes)/d.Seconds(), "scd"+scd+"_changes/s")
		}
		// SCD1 again, read as a stream by an aggregate: the target's change
		// log written in each epoch, and the reader's retractions.
		run("CREATE TABLE feed1r (k int, v int, op text, seq bigint)")
		run("CREATE OR REFRESH STREAMING TABLE t1r")
		run("CREATE FLOW f1r AS AUTO CDC INTO t1r FROM STREAM(feed1r) KEYS (k) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq STORED AS SCD TYPE 1")
		run("CREATE STREAMING TABLE t1r_groups AS SELECT k % 100 AS g, count(*) AS n, sum(v) AS s, max(v) AS hi FROM STREAM t1r GROUP BY k % 100")
		start = time.Now()
		insert("feed1r")
		run("REFRESH STREAMING TABLE t1r")
		run("REFRESH STREAMING TABLE t1r_groups")
		b.ReportMetric(float64(changes)/time.Since(start).Seconds(), "scd1_read_changes/s")
		for name, clauses := range map[string]string{
			"scd1_truncate": "APPLY AS TRUNCATE WHEN op = 'T'", "scd1_ignore_nulls": "IGNORE NULL UPDATES",
			"scd2_track_k_only": "STORED AS SCD TYPE 2 TRACK HISTORY ON * EXCEPT (v)",
		} {
			run("CREATE TABLE feed_" + name + " (k int, v int, op text, seq bigint)")
			run("CREATE OR REFRESH STREAMING TABLE " + name)
			run("CREATE FLOW f_" + name + " AS AUTO CDC INTO " + name + " FROM STREAM(feed_" + name + ") KEYS (k) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq " + clauses)
			start := time.Now()
			insertClauses("feed_" + name)
			run("REFRESH STREAMING TABLE " + name)
			b.ReportMetric(float64(changes)/time.Since(start).Seconds(), name+"_changes/s")
		}
		srv.stop()
	}
}
