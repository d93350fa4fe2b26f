package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weir-sql/weir/internal/pgtest"
)

// docs/kafka.md's windowed pipeline, as a user runs it (the same source,
// streaming table and sink statements), through SIGKILLs of the real
// binary while orders keep arriving: topic orders (3 partitions) → typed
// source → tumbling 5-minute windows per customer, append mode (EMIT ON
// WINDOW CLOSE) → Kafka sink orders_5m_out. At the end the sink's topic,
// read as read_committed by franz-go and by kcat (librdkafka, an
// independent client), holds each closed window once, equal to the
// GROUP BY PostgreSQL computes over the same orders COPYed into it, and
// so does weir's own SELECT of the table.

const pipelineKafkaDelay = time.Minute // the doc's WATERMARK ... DELAY OF INTERVAL 1 MINUTE

var pipelineKafkaDDL = []string{
	`CREATE SOURCE orders (order_id bigint, customer text, amount numeric(18,2), event_time timestamptz)
	  WITH (connector = 'kafka', topic = 'orders', bootstrap_servers = 'BROKER',
	        startup = 'earliest', format = 'json')`,
	`CREATE STREAMING TABLE orders_5m AS
	  SELECT customer, window_start, window_end, count(*) AS orders, sum(amount) AS total
	  FROM STREAM orders WATERMARK event_time DELAY OF INTERVAL 1 MINUTE
	  WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES)
	  GROUP BY customer, window_start, window_end
	  EMIT ON WINDOW CLOSE`,
	`CREATE SINK orders_5m_out FROM orders_5m
	  WITH (connector = 'kafka', topic = 'orders_5m_out', bootstrap_servers = 'BROKER',
	        key = 'customer, window_start', format = 'json')`,
}

// The windows the watermark closed (end <= newest event time - delay),
// as row_to_json prints them: the sink's value format.
const pipelineKafkaOracle = `SELECT row_to_json(w)::text FROM (
	SELECT customer, ws AS window_start, ws + interval '5 minutes' AS window_end, count(*) AS orders, sum(amount) AS total
	FROM (SELECT *, to_timestamp(floor(extract(epoch FROM event_time) / 300) * 300) AS ws FROM orders) o
	GROUP BY customer, ws
	HAVING ws + interval '5 minutes' <= (SELECT max(event_time) - interval '1 minute' FROM orders)) w`

// pipelineOrder is one produced order, kept for the oracle.
type pipelineOrder struct {
	id       int64
	customer string
	amount   string
	at       time.Time
}

func TestPipelineKafkaToKafka(t *testing.T) {
	kcat, broker := kafkaCluster(t, kfake.SeedTopics(3, "orders"), kfake.SeedTopics(1, "orders_5m_out")) // kafka_crash_test.go
	ctx := context.Background()
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 14))
	t.Logf("seed %d", seed)

	ddl := make([]string, len(pipelineKafkaDDL))
	for i, q := range pipelineKafkaDDL {
		ddl[i] = strings.ReplaceAll(q, "BROKER", broker)
	}
	srv, dir, port := startPipeline(t, ddl...)
	defer func() { srv.kill() }()

	// The producer: batches of 20 orders, one second of event time apart
	// with up to ±10 s of disorder (well inside the watermark's delay, so
	// no order is late whatever the micro-batches), the Kafka timestamp
	// the event time (docs/kafka.md: partitions are read aligned on it).
	const total, batch = 6000, 20
	produced := make([]pipelineOrder, 0, total)
	var sent atomic.Int64
	done := make(chan error, 1)
	prod, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.DefaultProduceTopic("orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range total {
		jitter := time.Duration(rng.IntN(20001)-10000) * time.Millisecond
		produced = append(produced, pipelineOrder{id: int64(i), customer: fmt.Sprintf("c%d", rng.IntN(7)),
			amount: fmt.Sprintf("%d.%02d", rng.IntN(100), rng.IntN(100)), at: base.Add(time.Duration(i)*time.Second + jitter)})
	}
	go func() {
		pace := time.NewTicker(15 * time.Millisecond) // the producer's rate, not synchronisation
		defer pace.Stop()
		for from := 0; from < total; from += batch {
			<-pace.C
			recs := make([]*kgo.Record, 0, batch)
			for _, o := range produced[from : from+batch] {
				v := fmt.Sprintf(`{"order_id": %d, "customer": %q, "amount": %s, "event_time": %q}`, o.id, o.customer, o.amount, o.at.Format(time.RFC3339Nano))
				recs = append(recs, &kgo.Record{Key: []byte(fmt.Sprint(o.id)), Value: []byte(v), Timestamp: o.at})
			}
			if err := prod.ProduceSync(ctx, recs...).FirstErr(); err != nil {
				done <- err
				return
			}
			sent.Add(batch)
		}
		done <- nil
	}()

	// Kill weir at random points while the orders arrive: each time once
	// the producer has sent a random further amount and weir has run an
	// epoch since it started.
	kills := 0
	for next := int64(0); kills < 5; kills++ {
		next += int64(300 + rng.IntN(700))
		waitCondition(t, fmt.Sprintf("the producer past %d orders", next), func() bool { return sent.Load() >= next || len(done) > 0 })
		c, err := pgx.Connect(ctx, srv.url())
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, c, "an epoch of orders_5m", "SELECT coalesce(max(epoch), 0) > 0 FROM weir_catalog.streaming_progress WHERE name = 'orders_5m'")
		c.Close(ctx)
		srv.kill()
		srv, _ = startCrashServer(t, dir, port, nil)
	}
	if err := <-done; err != nil {
		t.Fatalf("produce: %v", err)
	}
	t.Logf("%d orders produced through %d kills of weir", total, kills)

	// The oracle: PostgreSQL's GROUP BY over the same orders.
	pg, err := pgx.Connect(ctx, pgtest.Shared(t).FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	if _, err := pg.Exec(ctx, `SET TimeZone = 'UTC'; CREATE TABLE orders (order_id bigint, customer text, amount numeric(18,2), event_time timestamptz)`); err != nil {
		t.Fatal(err)
	}
	rows := make([][]any, len(produced))
	for i, o := range produced {
		rows[i] = []any{o.id, o.customer, o.amount, o.at}
	}
	if _, err := pg.CopyFrom(ctx, pgx.Identifier{"orders"}, []string{"order_id", "customer", "amount", "event_time"}, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
	want := canonicalJSON(t, textRows(t, ctx, pg, pipelineKafkaOracle))

	c, err := pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	waitFor(t, c, "orders_5m to hold every closed window", fmt.Sprintf("SELECT count(*) >= %d FROM orders_5m", len(want)))
	// json_build_object: weir has no row_to_json of a subquery's row.
	got := textRows(t, ctx, c, `SELECT json_build_object('customer', customer, 'window_start', window_start,
		'window_end', window_end, 'orders', orders, 'total', total)::text FROM orders_5m`)
	if missing, extra := diffRows(want, canonicalJSON(t, got)); len(missing)+len(extra) > 0 {
		t.Fatalf("weir's orders_5m differs from PostgreSQL's GROUP BY of the same %d orders: %d missing, %d extra\nmissing: %v\nextra: %v",
			total, len(missing), len(extra), head(missing), head(extra))
	}

	// The topic, as two independent read_committed clients see it.
	for _, client := range []struct {
		name string
		read func() []string
	}{
		{"franz-go", func() []string { return readCommittedKgo(t, broker, "orders_5m_out", len(want)) }},
		{"kcat", func() []string { return readCommittedKcat(t, kcat, broker, "orders_5m_out") }},
	} {
		var values []string
		deadline := time.Now().Add(45 * time.Second)
		for values = client.read(); len(values) < len(want); values = client.read() {
			if time.Now().After(deadline) {
				c2, _ := pgx.Connect(ctx, srv.url())
				sinks := textRows(t, ctx, c2, "SHOW SINKS")
				t.Fatalf("%s read %d records of orders_5m_out (read_committed), PostgreSQL has %d windows; read_uncommitted: %d\nSHOW SINKS: %v\n%s",
					client.name, len(values), len(want), len(readUncommittedKcat(t, kcat, broker, "orders_5m_out")), sinks, srv.log)
			}
		}
		if missing, extra := diffRows(want, canonicalJSON(t, values)); len(missing)+len(extra) > 0 {
			all, _ := exec.Command(kcat, "-b", broker, "-t", "orders_5m_out", "-C", "-o", "beginning", "-e", "-q", "-f", "%o %h %s\n").Output()
			committed, _ := exec.Command(kcat, "-b", broker, "-t", "orders_5m_out", "-C", "-o", "beginning", "-e", "-q", "-X", "isolation.level=read_committed", "-f", "%o %h %s\n").Output()
			t.Fatalf("%s read %d records of orders_5m_out (read_committed), PostgreSQL has %d windows: %d missing, %d extra (a window twice is extra)\nmissing: %v\nextra: %v\nread_uncommitted:\n%s\nread_committed:\n%s",
				client.name, len(values), len(want), len(missing), len(extra), head(missing), head(extra), all, committed)
		}
	}
	t.Logf("%d windows over %d orders, equal to PostgreSQL in weir and in the topic (franz-go and kcat, read_committed)", len(want), total)
}

// canonicalJSON re-encodes JSON objects with sorted keys and numbers as
// written, sorted, so that two printers' spacing does not matter.
func canonicalJSON(t *testing.T, rows []string) []string {
	t.Helper()
	out := make([]string, len(rows))
	for i, r := range rows {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(r), &m); err != nil {
			t.Fatalf("not a JSON object: %q: %v", r, err)
		}
		b, _ := json.Marshal(m) // map keys sorted; raw values compacted
		out[i] = string(b)
	}
	slices.Sort(out)
	return out
}

// readCommittedKgo reads topic from its start as a read_committed
// franz-go consumer until it has at least n values or 5 s pass.
func readCommittedKgo(t *testing.T, broker, topic string, n int) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var values []string
	for len(values) < n && ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		fs.EachRecord(func(r *kgo.Record) { values = append(values, string(r.Value)) })
	}
	return values
}

// readCommittedKcat reads topic from its start to its end with kcat as a
// read_committed consumer: one value a line.
func readCommittedKcat(t *testing.T, kcat, broker, topic string) []string {
	t.Helper()
	out, err := exec.Command(kcat, "-b", broker, "-t", topic, "-C", "-o", "beginning", "-e", "-q",
		"-X", "isolation.level=read_committed", "-f", "%s\n").Output()
	if err != nil {
		t.Fatalf("kcat -C: %v", err)
	}
	var values []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" {
			values = append(values, l)
		}
	}
	return values
}

// readUncommittedKcat is readCommittedKcat with read_uncommitted (a
// failure's diagnosis: what the topic holds, aborted records included).
func readUncommittedKcat(t *testing.T, kcat, broker, topic string) []string {
	out, _ := exec.Command(kcat, "-b", broker, "-t", topic, "-C", "-o", "beginning", "-e", "-q", "-f", "%s\n").Output()
	return strings.Fields(string(out))
}

// waitCondition polls cond until it holds, failing after 45 s.
func waitCondition(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, with a deadline
	}
}

// startPipeline starts the real binary on a fresh data directory and a
// free port and runs a pipeline's statements in it.
func startPipeline(t *testing.T, stmts ...string) (srv *crashServer, dir string, port int) {
	t.Helper()
	dir, port = filepath.Join(t.TempDir(), "data"), freePort(t)
	srv, _ = startCrashServer(t, dir, port, nil)
	ctx := context.Background()
	w, err := pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(ctx)
	for _, q := range stmts {
		if _, err := w.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return srv, dir, port
}
