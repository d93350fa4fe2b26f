package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/internal/pgtest"
)

// An AUTO CDC flow over a Kafka source: change events spread over three
// partitions (so they arrive out of sequence order), applied as SCD type
// 1 and 2, equal PostgreSQL's batch SQL over the same events, before and
// after a weir restart.
func TestAutoCDCOverKafka(t *testing.T) {
	c := kafkaCluster(t, 3, "changes")
	broker := c.ListenAddrs()[0]
	dir := t.TempDir()
	srv := startServerWith(t, engine.Config{DataDir: dir})
	w := srv.connect(t)
	pg := pgConnFresh(t, pgtest.Shared(t))
	execAll(t, pg, "CREATE TABLE feed (id int, name text, op text, seq bigint)")
	produce := func(first, n int) {
		t.Helper()
		cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		var recs []*kgo.Record
		for i := first; i < first+n; i++ {
			id, op, seq := i%17, "U", (i*7919)%100003
			if i%6 == 0 {
				op = "D"
			}
			name := fmt.Sprintf("n%d", i%4)
			recs = append(recs, &kgo.Record{Topic: "changes", Key: []byte(fmt.Sprint(i)),
				Value: []byte(fmt.Sprintf(`{"id": %d, "name": "%s", "op": "%s", "seq": %d}`, id, name, op, seq))})
			execAll(t, pg, fmt.Sprintf("INSERT INTO feed VALUES (%d, '%s', '%s', %d)", id, name, op, seq))
		}
		if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	produce(0, 300)
	execAll(t, w, fmt.Sprintf(`CREATE SOURCE changes_k (id int, name text, op text, seq bigint)
		WITH (connector = 'kafka', topic = 'changes', bootstrap_servers = '%s', startup = 'earliest', format = 'json')`, broker),
		"CREATE OR REFRESH STREAMING TABLE k1",
		"CREATE FLOW k1_flow AS AUTO CDC INTO k1 FROM STREAM(changes_k) KEYS (id) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq COLUMNS id, name",
		"CREATE OR REFRESH STREAMING TABLE k2",
		"CREATE FLOW k2_flow AS AUTO CDC INTO k2 FROM STREAM(changes_k) KEYS (id) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq COLUMNS id, name STORED AS SCD TYPE 2")
	const scd1 = `SELECT id, name FROM (SELECT DISTINCT ON (id) id, name, op FROM feed ORDER BY id, seq DESC) x WHERE op <> 'D' ORDER BY id`
	const scd2 = `WITH c AS (SELECT id, name, op, seq, lag(seq) OVER w AS ps, lag(op) OVER w AS pop, lag(name) OVER w AS pn
		  FROM feed WINDOW w AS (PARTITION BY id ORDER BY seq)),
		opening AS (SELECT * FROM c WHERE op = 'D' OR ps IS NULL OR pop = 'D' OR name IS DISTINCT FROM pn)
		SELECT id, name, s, e FROM (SELECT id, name, op, seq AS s, lead(seq) OVER (PARTITION BY id ORDER BY seq) AS e FROM opening) x
		WHERE op <> 'D' ORDER BY id, s`
	check := func() {
		t.Helper()
		waitSame(t, w, pg, "SELECT * FROM k1 ORDER BY id", scd1)
		waitSame(t, w, pg, "SELECT * FROM k2 ORDER BY id, __start_at", scd2)
	}
	check()
	srv.stop()
	produce(300, 200)
	srv = startServerWith(t, engine.Config{DataDir: dir})
	defer srv.stop()
	w = srv.connect(t)
	check()
}
