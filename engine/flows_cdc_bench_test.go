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
// applied), and the inserts alone as the baseline.
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
		srv.stop()
	}
}
