package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weir-sql/weir/engine"
)

// BenchmarkKafkaWindowed: events/s of Kafka → a streaming table's
// tumbling-window aggregate (JSON events decoded into typed columns,
// update mode), next to a baseline measured in the same run: a tight
// franz-go consume loop reading the same records from the same in-process
// cluster (kfake) and doing nothing with them. Run with -benchtime=1x;
// docs/benchmarks.md records a run.
func BenchmarkKafkaWindowed(b *testing.B) {
	const events = 300_000
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(4, "ev"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	broker := c.ListenAddrs()[0]
	prod, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.DefaultProduceTopic("ev"))
	if err != nil {
		b.Fatal(err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var recs []*kgo.Record
	for i := 0; i < events; i++ {
		at := base.Add(time.Duration(i) * 10 * time.Millisecond)
		// The record's timestamp is the event's time (CreateTime, as a
		// producer of events sets it): the source aligns partitions on it.
		recs = append(recs, &kgo.Record{Key: []byte(fmt.Sprint(i % 64)), Timestamp: at,
			Value: []byte(fmt.Sprintf(`{"id": %d, "region": "r%d", "amount": %d.%02d, "ts": "%s"}`, i, i%10, i%97, i%100, at.Format(time.RFC3339Nano)))})
		if len(recs) == 10_000 {
			if err := prod.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
				b.Fatal(err)
			}
			recs = recs[:0]
		}
	}
	prod.Close()
	for i := 0; i < b.N; i++ {
		// Baseline: consume every record, as fast as franz-go gives them.
		start := time.Now()
		cons, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.ConsumeTopics("ev"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.FetchIsolationLevel(kgo.ReadCommitted()))
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for n < events {
			fs := cons.PollFetches(context.Background())
			n += fs.NumRecords()
		}
		cons.Close()
		baseline := time.Since(start)

		srv := startServerWith(b, engine.Config{DataDir: b.TempDir()})
		w := srv.connect(b)
		ctx := context.Background()
		start = time.Now()
		for _, s := range []string{
			fmt.Sprintf(`CREATE SOURCE ev_k (id bigint, region text, amount numeric(10,2), ts timestamptz)
				WITH (connector = 'kafka', topic = 'ev', bootstrap_servers = '%s', startup = 'earliest', format = 'json', maxOffsetsPerTrigger = '100000')`, broker),
			`CREATE STREAMING TABLE win AS SELECT region, window_start, window_end, count(*) AS n, sum(amount) AS total
				FROM STREAM ev_k WATERMARK ts DELAY OF INTERVAL 10 SECONDS WINDOW TUMBLING (SIZE INTERVAL 1 MINUTE) GROUP BY region, window_start, window_end EMIT ON UPDATE`,
		} {
			if _, err := w.Exec(ctx, s); err != nil {
				b.Fatal(err)
			}
		}
		for {
			var got int64
			if err := w.QueryRow(ctx, "SELECT coalesce(sum(n), 0) FROM win").Scan(&got); err != nil {
				b.Fatal(err)
			}
			if got == events {
				break
			}
			if time.Since(start) > 3*time.Minute {
				b.Fatalf("the table counted %d of %d events in 3 minutes", got, events)
			}
			time.Sleep(5 * time.Millisecond) // polling interval, with a deadline
		}
		took := time.Since(start)
		srv.stop()
		b.ReportMetric(float64(events)/took.Seconds(), "weir_events/s")
		b.ReportMetric(float64(events)/baseline.Seconds(), "baseline_events/s")
		b.Logf("%d events: weir %.2f s (%.0f events/s), franz-go consume loop %.2f s (%.0f events/s), ratio %.2f",
			events, took.Seconds(), float64(events)/took.Seconds(), baseline.Seconds(), float64(events)/baseline.Seconds(), baseline.Seconds()/took.Seconds())
	}
}
