package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weir-sql/weir/internal/pgtest"
)

// BenchmarkNexmarkSourceQueries times Nexmark q0 (pass through), q1
// (currency conversion), q2 (selection) and a 10-second tumbling-window
// aggregate as streaming tables reading an unpaced nexmark source of 1M
// events (920k bids) — generator to caught-up table — with the cores the
// weir process used meanwhile, next to PostgreSQL's COPY of the same bids
// plus the same query as batch SQL, in the same run:
//
//	go test ./engine -run X -bench NexmarkSourceQueries -benchtime 1x -count 3
func BenchmarkNexmarkSourceQueries(b *testing.B) {
	srv := startServer(b, b.TempDir())
	w := srv.connect(b)
	pg := pgtest.Shared(b).Connect(b)
	const events, bids = 1_000_000, 920_000
	rows := textRows(b, w, "SELECT * FROM nexmark('bid', max_events => 1000000, seed => 5)")
	copyText := strings.Join(rows, "\n") + "\n"
	ctx := context.Background()
	queries := []struct{ name, stream, batch string }{
		{"q0", "SELECT auction, bidder, price, date_time, extra FROM STREAM %s",
			"SELECT auction, bidder, price, date_time, extra FROM nx_q"},
		{"q1", "SELECT auction, bidder, 0.908 * price AS price, date_time, extra FROM STREAM %s",
			"SELECT auction, bidder, 0.908 * price AS price, date_time, extra FROM nx_q"},
		{"q2", "SELECT auction, price FROM STREAM %s WHERE auction % 123 = 0",
			"SELECT auction, price FROM nx_q WHERE auction % 123 = 0"},
		{"window", "SELECT channel, window_start, window_end, count(*) AS n, sum(price) AS total FROM STREAM %s WATERMARK date_time DELAY OF INTERVAL 2 SECONDS WINDOW TUMBLING (SIZE INTERVAL 10 SECONDS) GROUP BY channel, window_start, window_end",
			"SELECT channel, to_timestamp(floor(extract(epoch FROM date_time) / 10) * 10), count(*), sum(price) FROM nx_q GROUP BY 1, 2"},
	}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			var st, pt, cores float64
			for i := 0; i < b.N; i++ {
				src := fmt.Sprintf("src_%s_%d", q.name, i)
				srcExec(b, w, "CREATE SOURCE "+src+" WITH (connector = 'nexmark', table = 'bid', max_events = 1000000, seed = 5, paced = false)")
				c0, start := cpu(), time.Now()
				srcExec(b, w, "CREATE STREAMING TABLE t_"+src+" AS "+strings.Replace(q.stream, "%s", src, 1))
				waitConsumedTB(b, w, "t_"+src, bids, 300*time.Second)
				d := time.Since(start).Seconds()
				st += d
				cores += (cpu() - c0).Seconds() / d
				srcExec(b, w, "DROP SOURCE "+src+" CASCADE")
				// PostgreSQL: COPY the same bids, then the batch query.
				if _, err := pg.Exec(ctx, "DROP TABLE IF EXISTS nx_q; CREATE TABLE nx_q (auction bigint, bidder bigint, price bigint, channel text, url text, date_time timestamp, extra text)"); err != nil {
					b.Fatal(err)
				}
				start = time.Now()
				if _, err := pg.PgConn().CopyFrom(ctx, bytes.NewBufferString(copyText), "COPY nx_q FROM STDIN"); err != nil {
					b.Fatal(err)
				}
				textRows(b, pg, q.batch)
				pt += time.Since(start).Seconds()
			}
			n := float64(b.N)
			b.ReportMetric(n*events/st, "weir-events/s")
			b.ReportMetric(n*events/pt, "pg-copy+batch-events/s")
			b.ReportMetric(st/pt, "weir/pg-time")
			b.ReportMetric(cores/n, "weir-cores")
		})
	}
}
