package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/weir-sql/weir/engine"
)

func plainAuth(user, pass string) sasl.Mechanism {
	return plain.Auth{User: user, Pass: pass}.AsMechanism()
}

// Kafka sources over the real wire: a kfake cluster in the test process
// (franz-go's in-process Kafka, reached over TCP), JSON orders produced
// to it, a streaming table aggregating them, compared with PostgreSQL's
// batch SQL over the same messages, across a restart of weir.

func kafkaCluster(t *testing.T, partitions int32, topics ...string) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, topics...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// produceOrders produces orders first..first+n-1 to topic (spread over
// its partitions by key) and the same messages into PostgreSQL's raw.
func produceOrders(t *testing.T, c *kfake.Cluster, pg *pgx.Conn, topic string, first, n int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	var lines []string
	for i := first; i < first+n; i++ {
		v := fmt.Sprintf(`{"order_id": %d, "customer": "c%d", "amount": %d.25, "event_time": "2026-01-01T00:%02d:%02dZ"}`, i, i%5, i%13, (i/60)%60, i%60)
		recs = append(recs, &kgo.Record{Topic: topic, Key: []byte(fmt.Sprint(i)), Value: []byte(v)})
		lines = append(lines, v)
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if _, err := pg.Exec(context.Background(), "INSERT INTO raw VALUES ($1)", l); err != nil {
			t.Fatal(err)
		}
	}
}

const pgOrders = `(SELECT (line::jsonb->>'order_id')::bigint AS order_id, line::jsonb->>'customer' AS customer,
	(line::jsonb->>'amount')::numeric(18,2) AS amount FROM raw) AS o`

func TestKafkaSourceStreaming(t *testing.T) {
	c := kafkaCluster(t, 3, "orders")
	broker := c.ListenAddrs()[0]
	dir := t.TempDir()
	srv := startServerWith(t, engine.Config{DataDir: dir})
	w := srv.connect(t)
	pg := pgFiles(t) // files_source_test.go: a fresh database with raw(line text)
	produceOrders(t, c, pg, "orders", 0, 500)

	mustExec(t, w, fmt.Sprintf(`CREATE SOURCE orders_k (order_id bigint, customer text, amount numeric(18,2), event_time timestamptz)
		WITH (connector = 'kafka', topic = 'orders', bootstrap_servers = '%s', startup = 'earliest', format = 'json')`, broker))
	mustExec(t, w, `CREATE STREAMING TABLE totals AS SELECT customer, count(*) AS n, sum(amount) AS total FROM STREAM orders_k GROUP BY customer`)
	const wq = "SELECT customer, n, total FROM totals ORDER BY customer"
	const pq = "SELECT customer, count(*), sum(amount) FROM " + pgOrders + " GROUP BY customer ORDER BY customer"
	waitSame(t, w, pg, wq, pq)
	// A batch SELECT reads what the topic holds now.
	sameFileRows(t, w, pg, "SELECT count(*), sum(amount) FROM orders_k", "SELECT count(*), sum(amount) FROM "+pgOrders)
	if got := textRows(t, w, "SHOW SOURCES"); len(got) != 1 || !strings.HasPrefix(got[0], "orders_k\tkafka\torders\tjson\t") || !strings.HasSuffix(got[0], "\ttotals") {
		t.Errorf("SHOW SOURCES: %q", got)
	}
	waitFor(t, w, "SELECT backlog_rows = 0 AND status = 'running' FROM weir_catalog.streaming_progress WHERE name = 'totals'")
	// DESCRIBE EXTENDED shows each partition's position and lag.
	var lagRows []string
	for _, r := range textRows(t, w, "DESCRIBE EXTENDED totals") {
		if strings.HasPrefix(r, "Kafka Input orders_k orders/") {
			lagRows = append(lagRows, r)
		}
	}
	if len(lagRows) != 3 || !strings.HasSuffix(lagRows[0], ", lag 0\t") && !strings.Contains(lagRows[0], ", lag 0") {
		t.Errorf("DESCRIBE EXTENDED's Kafka rows: %q", lagRows)
	}
	// The monitor (and so /metrics) has the same partitions, caught up.
	var parts []string
	for _, mt := range srv.eng.Monitor().Tables {
		if mt.Name == "public.totals" {
			for _, l := range mt.KafkaLag {
				parts = append(parts, fmt.Sprintf("%s/%d:%d", l.Topic, l.Partition, l.Lag))
			}
		}
	}
	if strings.Join(parts, " ") != "orders/0:0 orders/1:0 orders/2:0" {
		t.Errorf("the monitor's Kafka lag of totals: %q", parts)
	}

	// A restart of weir: the table goes on from its checkpoint; more
	// orders arrive, none is counted twice or lost.
	srv.stop()
	produceOrders(t, c, pg, "orders", 500, 300)
	srv = startServerWith(t, engine.Config{DataDir: dir})
	w = srv.connect(t)
	waitSame(t, w, pg, wq, pq)
	produceOrders(t, c, pg, "orders", 800, 50)
	waitSame(t, w, pg, wq, pq)
}

func TestKafkaSourceBadInput(t *testing.T) {
	c := kafkaCluster(t, 1, "there")
	broker := c.ListenAddrs()[0]
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir()})
	w := srv.connect(t)
	for _, tc := range []struct{ sql, code string }{
		{fmt.Sprintf(`CREATE SOURCE a WITH (connector = 'kafka', topic = 'missing', bootstrap_servers = '%s')`, broker), "42P01"},
		{`CREATE SOURCE a WITH (connector = 'kafka', topic = 'there', bootstrap_servers = '127.0.0.1:1')`, "08001"},
		{fmt.Sprintf(`CREATE SOURCE a (x int) WITH (connector = 'kafka', topic = 'there', bootstrap_servers = '%s')`, broker), "42611"},
		{fmt.Sprintf(`CREATE SOURCE a WITH (connector = 'kafka', topic = 'there', bootstrap_servers = '%s', format = 'json')`, broker), "22023"},
		{fmt.Sprintf(`CREATE SOURCE a WITH (connector = 'kafka', topic = 'there', bootstrap_servers = '%s', startup = 'soon')`, broker), "22023"},
		{`CREATE SOURCE a WITH (connector = 'kafka', topic = 'there')`, "22023"},
	} {
		_, err := w.Exec(context.Background(), tc.sql)
		if got := sqlstate(err); got != tc.code {
			t.Errorf("%s: %v (SQLSTATE %s), want %s", tc.sql, err, got, tc.code)
		}
	}
	// Raw messages, malformed JSON rescued, never stopping the table.
	mustExec(t, w, fmt.Sprintf(`CREATE SOURCE raw_k WITH (connector = 'kafka', topic = 'there', "kafka.bootstrap.servers" = '%s', startup = 'earliest', "kafka.isolation.level" = 'read_committed')`, broker))
	mustExec(t, w, fmt.Sprintf(`CREATE SOURCE typed_k (id int) WITH (connector = 'kafka', topic = 'there', bootstrap_servers = '%s', startup = 'earliest', format = 'json')`, broker))
	mustExec(t, w, `CREATE STREAMING TABLE raw_rows AS SELECT partition, "offset", convert_from(value, 'UTF8') AS v, key IS NULL AS nokey FROM STREAM raw_k`)
	mustExec(t, w, `CREATE STREAMING TABLE typed_rows AS SELECT id, _rescued_data->>'_corrupt_record' AS bad FROM STREAM typed_k`)
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: "there", Value: []byte(`{"id": 1}`)}, &kgo.Record{Topic: "there", Value: []byte(`{"id": oops`)}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, "SELECT count(*) = 2 FROM typed_rows")
	if got := textRows(t, w, "SELECT coalesce(id::text, 'NULL'), coalesce(bad, 'NULL') FROM typed_rows ORDER BY id"); strings.Join(got, ",") != "1\tNULL,NULL\t{\"id\": oops" {
		t.Errorf("typed rows: %q", got)
	}
	waitFor(t, w, "SELECT count(*) = 2 FROM raw_rows")
	if got := textRows(t, w, `SELECT partition, "offset", v, nokey FROM raw_rows ORDER BY "offset"`); strings.Join(got, ",") != "0\t0\t{\"id\": 1}\tt,0\t1\t{\"id\": oops\tt" {
		t.Errorf("raw rows: %q", got)
	}
}

// read_kafka inline, Databricks' form: a streaming table over STREAM
// read_kafka(...) parsing the value, and a batch SELECT over read_kafka;
// both equal PostgreSQL's over the same messages.
func TestReadKafkaInline(t *testing.T) {
	c := kafkaCluster(t, 2, "events")
	broker := c.ListenAddrs()[0]
	dir := t.TempDir()
	srv := startServerWith(t, engine.Config{DataDir: dir})
	w := srv.connect(t)
	pg := pgFiles(t)
	produceOrders(t, c, pg, "events", 0, 200)
	mustExec(t, w, fmt.Sprintf(`CREATE STREAMING TABLE by_customer AS
		SELECT convert_from(value, 'UTF8')::jsonb ->> 'customer' AS customer, count(*) AS n
		FROM STREAM read_kafka(bootstrapServers => '%s', subscribe => 'events', startingOffsets => 'earliest')
		GROUP BY 1`, broker))
	const pq = "SELECT line::jsonb ->> 'customer', count(*) FROM raw GROUP BY 1 ORDER BY 1"
	waitSame(t, w, pg, "SELECT customer, n FROM by_customer ORDER BY 1", pq)
	sameFileRows(t, w, pg, fmt.Sprintf(`SELECT convert_from(value, 'UTF8')::jsonb ->> 'customer', count(*)
		FROM read_kafka(bootstrapServers => '%s', subscribe => 'events') GROUP BY 1 ORDER BY 1`, broker), pq)
	srv.stop()
	produceOrders(t, c, pg, "events", 200, 100)
	srv = startServerWith(t, engine.Config{DataDir: dir})
	w = srv.connect(t)
	waitSame(t, w, pg, "SELECT customer, n FROM by_customer ORDER BY 1", pq)
	if _, err := w.Exec(context.Background(), `SELECT * FROM read_kafka(bootstrapServers => '127.0.0.1:1', subscribe => 'x')`); sqlstate(err) != "08001" {
		t.Errorf("unreachable broker: %v", err)
	}
}

// finalState reads a sink's topic as a read_committed consumer (from the
// start until it has seen every record up to the topic's last stable
// offset) and applies the records in order: per key the last value, a
// tombstone removing it. Lines "key value", sorted.
func finalState(t *testing.T, broker, topic string) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListCommittedOffsets(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]map[int32]kgo.Offset{topic: {}}
	want := map[int32]int64{}
	ends.Each(func(l kadm.ListedOffset) {
		if l.Offset > 0 {
			parts[topic][l.Partition] = kgo.NewOffset().AtStart()
			want[l.Partition] = l.Offset
		}
	})
	state := map[string]string{}
	if len(want) > 0 {
		cons, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.ConsumePartitions(parts), kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
		if err != nil {
			t.Fatal(err)
		}
		defer cons.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		for len(want) > 0 {
			fs := cons.PollFetches(ctx)
			if ctx.Err() != nil {
				t.Fatalf("reading %s: %v", topic, ctx.Err())
			}
			fs.EachRecord(func(r *kgo.Record) {
				if r.Offset >= want[r.Partition]-1 {
					delete(want, r.Partition)
				}
				if r.Attrs.IsControl() {
					return
				}
				if r.Value == nil {
					delete(state, string(r.Key))
				} else {
					state[string(r.Key)] = string(r.Value)
				}
			})
		}
	}
	var out []string
	for k, v := range state {
		out = append(out, k+" "+v)
	}
	slices.Sort(out)
	return out
}

// Kafka → weir → Kafka: orders from a topic, totals per customer (an
// update-mode table), a Kafka sink of its changes keyed by customer. The
// topic's final state, read by a read_committed consumer, is PostgreSQL's
// aggregate of the same orders, across a restart of weir.
func TestKafkaSinkPipeline(t *testing.T) {
	c := kafkaCluster(t, 2, "orders", "totals_out")
	broker := c.ListenAddrs()[0]
	dir := t.TempDir()
	srv := startServerWith(t, engine.Config{DataDir: dir})
	w := srv.connect(t)
	pg := pgFiles(t)
	produceOrders(t, c, pg, "orders", 0, 300)
	mustExec(t, w, fmt.Sprintf(`CREATE SOURCE orders_k (order_id bigint, customer text, amount numeric(18,2), event_time timestamptz)
		WITH (connector = 'kafka', topic = 'orders', bootstrap_servers = '%s', startup = 'earliest', format = 'json')`, broker))
	mustExec(t, w, `CREATE STREAMING TABLE totals AS SELECT customer, count(*) AS n, sum(amount) AS total FROM STREAM orders_k GROUP BY customer`)
	if _, err := w.Exec(context.Background(), fmt.Sprintf(`CREATE SINK totals_k FROM totals WITH (connector = 'kafka', topic = 'totals_out', bootstrap_servers = '%s')`, broker)); sqlstate(err) != "22023" {
		t.Errorf("a sink of an update-mode table without a key: %v", err)
	}
	if _, err := w.Exec(context.Background(), fmt.Sprintf(`CREATE SINK totals_k FROM totals WITH (connector = 'kafka', topic = 'nope', bootstrap_servers = '%s', key = 'customer')`, broker)); sqlstate(err) != "42P01" {
		t.Errorf("a sink to a missing topic: %v", err)
	}
	mustExec(t, w, fmt.Sprintf(`CREATE SINK totals_k FROM totals WITH (connector = 'kafka', topic = 'totals_out', bootstrap_servers = '%s', key = 'customer', format = 'json')`, broker))
	const pq = `SELECT json_build_object('customer', customer)::text || ' ' || json_build_object('customer', customer, 'n', count(*), 'total', sum(amount))::text
		FROM ` + pgOrders + ` GROUP BY customer ORDER BY 1`
	check := func() {
		t.Helper()
		want := textRows(t, pg, pq)
		for i := range want {
			want[i] = strings.ReplaceAll(want[i], " : ", ":")
			want[i] = strings.ReplaceAll(want[i], ", ", ",")
			want[i] = strings.Replace(want[i], "}{", "} {", 1)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			got := finalState(t, broker, "totals_out")
			if strings.Join(got, "\n") == strings.Join(want, "\n") {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the sink's topic:\n%s\nPostgreSQL:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			time.Sleep(50 * time.Millisecond) // polling interval, with a deadline
		}
	}
	check()
	srv.stop()
	produceOrders(t, c, pg, "orders", 300, 200)
	srv = startServerWith(t, engine.Config{DataDir: dir})
	w = srv.connect(t)
	check()
	if got := textRows(t, w, "SHOW SINKS"); len(got) != 1 || !strings.Contains(got[0], "\tkafka\ttopic=totals_out, format=json, bootstrap_servers="+broker+", key=customer\trunning\t") {
		t.Errorf("SHOW SINKS: %q", got)
	}
}

// SASL credentials through a secret: the right password connects, a
// wrong one is 28000 at CREATE; the catalog keeps secret('name').
func TestKafkaSourceSASLSecret(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "sec"), kfake.EnableSASL(), kfake.Superuser("PLAIN", "weir", "s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	broker := c.ListenAddrs()[0]
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir(), SecretKey: make([]byte, 32)})
	w := srv.connect(t)
	mustExec(t, w, `CREATE SECRET kafka_pw AS 's3cret'`)
	mustExec(t, w, `CREATE SECRET wrong_pw AS 'nope'`)
	opts := func(pw string) string {
		return fmt.Sprintf(`connector = 'kafka', topic = 'sec', bootstrap_servers = '%s', startup = 'earliest', "kafka.security.protocol" = 'SASL_PLAINTEXT',
			"kafka.sasl.mechanism" = 'PLAIN', "kafka.sasl.username" = 'weir', "kafka.sasl.password" = secret('%s')`, broker, pw)
	}
	// kfake closes the connection on a wrong password (a real broker
	// answers SASL_AUTHENTICATION_FAILED, 28000): refused at CREATE either way.
	if _, err := w.Exec(context.Background(), "CREATE SOURCE bad WITH ("+opts("wrong_pw")+")"); sqlstate(err) != "28000" && sqlstate(err) != "08001" {
		t.Errorf("a wrong password: %v (%s)", err, sqlstate(err))
	}
	mustExec(t, w, "CREATE SOURCE good WITH ("+opts("kafka_pw")+")")
	// And a streaming table reads through the authenticated client.
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.SASL(plainAuth("weir", "s3cret")))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: "sec", Value: []byte("hello")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, w, `CREATE STREAMING TABLE sec_rows AS SELECT convert_from(value, 'UTF8') AS v FROM STREAM good`)
	waitFor(t, w, "SELECT count(*) = 1 AND min(v) = 'hello' FROM sec_rows")
}

// A broker that goes away does not fail the table: its last_error and a
// kafka event in its event log say so while the source keeps trying.
func TestKafkaBrokerGoneWhileRunning(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "gone"))
	if err != nil {
		t.Fatal(err)
	}
	broker := c.ListenAddrs()[0]
	srv := startServerWith(t, engine.Config{DataDir: t.TempDir()})
	w := srv.connect(t)
	mustExec(t, w, fmt.Sprintf(`CREATE STREAMING TABLE n AS SELECT count(*) AS n FROM STREAM read_kafka(bootstrapServers => '%s', subscribe => 'gone', startingOffsets => 'earliest')`, broker))
	waitFor(t, w, "SELECT status = 'running' FROM weir_catalog.streaming_progress WHERE name = 'n'")
	c.Close()
	waitFor(t, w, "SELECT status = 'running' AND last_error LIKE '%Kafka at "+broker+"%retrying' FROM weir_catalog.streaming_progress WHERE name = 'n'")
	waitFor(t, w, "SELECT count(*) >= 1 FROM event_log('n') WHERE event_type = 'kafka' AND message LIKE '%Kafka at%'")
}
