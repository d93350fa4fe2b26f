package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weir-sql/weir/internal/pgtest"
)

// TestKafkaExactlyOnceAfterKill: Kafka → weir → Kafka with the real
// binary killed (SIGKILL) at the two points an epoch can be cut: after
// its sink staged the epoch's Kafka transaction and before weir's
// checkpoint committed (epoch-before-commit), and after the checkpoint
// committed and before the Kafka transaction did (epoch-after-commit).
// The cluster is franz-go's kfake, in this test process, which weir
// reaches over TCP; kcat (librdkafka), an independent client, produces
// the orders and reads the sink's topic with read_committed. After every
// restart the streaming table and the topic's final state (the last
// record per key) equal PostgreSQL's GROUP BY of every order produced:
// none lost, none counted twice.
// kafkaCluster starts a one-broker kfake cluster with the given topics,
// closed with the test, and finds kcat; it returns kcat's path and the
// broker's address.
func kafkaCluster(t *testing.T, topics ...kfake.Opt) (kcat, broker string) {
	t.Helper()
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Fatal("kcat is not installed (scripts/test.sh installs it: apt-get install kcat)")
	}
	cluster, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, topics...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	return kcat, cluster.ListenAddrs()[0]
}

func TestKafkaExactlyOnceAfterKill(t *testing.T) {
	kcat, broker := kafkaCluster(t, kfake.SeedTopics(3, "orders"), kfake.SeedTopics(2, "totals_out"))
	ctx := context.Background()
	pg, err := pgx.Connect(ctx, pgtest.Shared(t).FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	if _, err := pg.Exec(ctx, `CREATE TABLE orders (order_id bigint, customer text, amount numeric(18,2))`); err != nil {
		t.Fatal(err)
	}
	next := 0
	// produce sends n orders with kcat (key:value lines) and the same
	// rows to PostgreSQL.
	produce := func(n int) {
		t.Helper()
		var in bytes.Buffer
		var vals []string
		for i := next; i < next+n; i++ {
			c, amt := fmt.Sprintf("c%d", i%7), fmt.Sprintf("%d.%02d", i%50, i%100)
			fmt.Fprintf(&in, "%d:{\"order_id\": %d, \"customer\": \"%s\", \"amount\": %s}\n", i, i, c, amt)
			vals = append(vals, fmt.Sprintf("(%d, '%s', %s)", i, c, amt))
		}
		next += n
		cmd := exec.Command(kcat, "-b", broker, "-t", "orders", "-P", "-K:")
		cmd.Stdin = &in
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("kcat -P: %v\n%s", err, out)
		}
		if _, err := pg.Exec(ctx, "INSERT INTO orders VALUES "+strings.Join(vals, ", ")); err != nil {
			t.Fatal(err)
		}
	}
	// finalState reads the sink's topic with kcat as a read_committed
	// consumer, to its end, and keeps the last value of each key.
	finalState := func() []string {
		t.Helper()
		cmd := exec.Command(kcat, "-b", broker, "-t", "totals_out", "-C", "-o", "beginning", "-e", "-q",
			"-X", "isolation.level=read_committed", "-f", "%k\t%s\n")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("kcat -C: %v", err)
		}
		state := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if k, v, ok := strings.Cut(l, "\t"); ok {
				state[k] = v
			}
		}
		var rows []string
		for k, v := range state {
			rows = append(rows, k+" "+v)
		}
		slices.Sort(rows)
		return rows
	}
	oracle := func() []string {
		t.Helper()
		rows := textRows(t, ctx, pg, `SELECT json_build_object('customer', customer)::text || ' ' ||
			json_build_object('customer', customer, 'n', count(*), 'total', sum(amount))::text FROM orders GROUP BY customer`)
		for i := range rows {
			rows[i] = strings.NewReplacer(" : ", ":", ", ", ",", "} {", "} {").Replace(rows[i])
		}
		slices.Sort(rows)
		return rows
	}

	dir := t.TempDir()
	port := freePort(t)
	srv, _ := startCrashServer(t, dir, port, nil)
	w, err := pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	produce(200)
	for _, s := range []string{
		fmt.Sprintf(`CREATE SOURCE orders_k (order_id bigint, customer text, amount numeric(18,2))
			WITH (connector = 'kafka', topic = 'orders', bootstrap_servers = '%s', startup = 'earliest', format = 'json')`, broker),
		`CREATE STREAMING TABLE totals AS SELECT customer, count(*) AS n, sum(amount) AS total FROM STREAM orders_k GROUP BY customer`,
		fmt.Sprintf(`CREATE SINK totals_k FROM totals WITH (connector = 'kafka', topic = 'totals_out', bootstrap_servers = '%s', key = 'customer', format = 'json')`, broker),
	} {
		if _, err := w.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	w.Close(ctx)

	check := func(round int, what string) {
		t.Helper()
		c, err := pgx.Connect(ctx, srv.url())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		if textRows(t, ctx, c, "SELECT count(*) FROM pg_class WHERE relname = 'totals'")[0] != "1" {
			t.Fatalf("round %d (%s): no table totals after the restart:\n%s", round, what, srv.log)
		}
		waitFor(t, c, "totals to count every order", fmt.Sprintf("SELECT coalesce(sum(n), 0) = %d FROM totals", next))
		want := oracle()
		got := textRows(t, ctx, c, `SELECT json_build_object('customer', customer)::text || ' ' || json_build_object('customer', customer, 'n', n, 'total', total)::text FROM totals`)
		for i := range got {
			got[i] = strings.NewReplacer(" : ", ":", ", ", ",").Replace(got[i])
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d (%s): totals differ from PostgreSQL:\n weir: %q\n   pg: %q", round, what, got, want)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			state := finalState()
			if slices.Equal(state, want) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d (%s): the sink's topic differs from PostgreSQL:\n kafka: %q\n    pg: %q\n%s", round, what, state, want, srv.log)
			}
			time.Sleep(50 * time.Millisecond) // polling interval, with a deadline
		}
	}
	check(0, "before any kill")

	round := 0
	for _, point := range []string{"epoch-before-commit", "epoch-after-commit"} {
		for _, n := range []int{1, 3} {
			srv.kill()
			srv, _ = startCrashServer(t, dir, port, nil, fmt.Sprintf("WEIR_FAILPOINT=%s:%d", point, n))
			// Orders arrive in several batches, so the table runs several
			// epochs and reaches the crash point.
			for i := 0; i < 20; i++ {
				produce(25)
				select {
				case <-srv.exited:
					srv.exited <- nil
					i = 20
				default:
				}
			}
			select {
			case <-srv.exited:
				srv.exited <- nil
			case <-time.After(30 * time.Second):
				t.Fatalf("%s:%d: the server did not reach the crash point:\n%s", point, n, srv.log)
			}
			srv, _ = startCrashServer(t, dir, port, nil)
			round++
			check(round, fmt.Sprintf("%s:%d", point, n))
		}
	}
	srv.kill()
	_ = kgo.Record{}
}
