package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

// docs/cdc.md's pipeline, with the real binary: a PostgreSQL table →
// postgres-cdc source → AUTO CDC ... STORED AS SCD TYPE 2 target → a
// postgres sink into another table of the same PostgreSQL. A client keeps
// inserting, updating (the key too) and deleting rows while weir is
// killed with SIGKILL three times and PostgreSQL is restarted as a crash
// does (pg_ctl restart -m immediate). At the end the sink's table and
// weir's own SELECT of the target equal the history PostgreSQL's own
// record gives: an audit trigger logs every change with its transaction
// id, and a logical slot of PostgreSQL's (pgoutput, read by SQL) gives
// each transaction's commit LSN, the _lsn the source sequences by.

const pipelineCDCSetup = `
CREATE TABLE customers (customer_id bigint PRIMARY KEY, name text, credit numeric(12,2));
CREATE TABLE audit (n bigserial, xid bigint NOT NULL DEFAULT txid_current(), op text, customer_id bigint, name text, credit numeric(12,2));
CREATE FUNCTION audit_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND (TG_OP = 'DELETE' OR OLD.customer_id <> NEW.customer_id) THEN
    INSERT INTO audit (op, customer_id, name, credit) VALUES ('d', OLD.customer_id, OLD.name, OLD.credit);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO audit (op, customer_id, name, credit) VALUES (lower(left(TG_OP, 1)), NEW.customer_id, NEW.name, NEW.credit);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER customers_audit AFTER INSERT OR UPDATE OR DELETE ON customers FOR EACH ROW EXECUTE FUNCTION audit_change();
CREATE PUBLICATION oracle_pub FOR TABLE customers;
CREATE TABLE customers_history (customer_id bigint, name text, credit numeric(12,2),
  __start_at bigint, __end_at bigint, PRIMARY KEY (customer_id, __start_at));`

// The oracle: each audited change with its transaction's commit LSN (a
// pgoutput Begin message: 'B', the final LSN as 8 bytes, the commit time
// as 8, the xid as 4), then per key a version from each change that is
// not a delete to the key's next change. Every change writes a new name,
// so none repeats the version before it.
const pipelineCDCOracle = `
WITH commits AS (
  SELECT ('x' || encode(substr(data, 2, 8), 'hex'))::bit(64)::bigint AS lsn,
         ('x' || encode(substr(data, 18, 4), 'hex'))::bit(32)::bigint AS xid
  FROM pg_logical_slot_peek_binary_changes('oracle', NULL, NULL, 'proto_version', '1', 'publication_names', 'oracle_pub')
  WHERE get_byte(data, 0) = ascii('B')),
changes AS (
  SELECT a.customer_id, a.name, a.credit, a.op, c.lsn FROM audit a JOIN commits c ON a.xid % 4294967296 = c.xid)
SELECT customer_id, name, credit, s, e FROM (
  SELECT customer_id, name, credit, op, lsn AS s, lead(lsn) OVER (PARTITION BY customer_id ORDER BY lsn) AS e FROM changes) v
WHERE op <> 'd'`

const pipelineCDCWeir = `
CREATE SOURCE shop WITH (connector = 'postgres-cdc', hostname = '127.0.0.1', port = %d,
  username = 'postgres', database.name = 'postgres', table.name = 'public.customers', slot.name = 'weir_shop');
CREATE OR REFRESH STREAMING TABLE customers_history;
CREATE FLOW customers_scd2 AS AUTO CDC INTO customers_history FROM STREAM(shop)
  KEYS (customer_id) APPLY AS DELETE WHEN _op = 'd' SEQUENCE BY _lsn
  COLUMNS * EXCEPT (_op, _lsn) STORED AS SCD TYPE 2;
CREATE SINK customers_history_pg FROM customers_history
  WITH (connector = 'postgres', url = '%s', table = 'customers_history')`

func TestPipelinePostgresSCD2ToPostgres(t *testing.T) {
	// Durable: fsync and synchronous_commit on, as a PostgreSQL holding
	// data is run. With synchronous_commit off a crash loses transactions
	// it acknowledged, the sink's epoch among them, and the sink then
	// fails (its epochs have a gap) until weir restarts and re-runs it.
	pg, err := pgtest.StartWith(pgtest.Options{Logical: true, Durable: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Stop()
	ctx := context.Background()
	p := pg.Connect(t)
	for _, q := range []string{pipelineCDCSetup, `SELECT pg_create_logical_replication_slot('oracle', 'pgoutput')`} {
		if _, err := p.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)

	srv, dir, port := startPipeline(t, fmt.Sprintf(pipelineCDCWeir, pg.Port, pg.URL())) // pipeline_kafka_test.go
	defer func() { srv.kill() }()
	// The source streams once its snapshot (of the empty table) is in
	// weir's store: a change committed before would be a snapshot row,
	// sequenced at the slot's consistent point, not at its own commit.
	waitFor(t, p, "the source to stream", `SELECT coalesce(bool_or(active), false) FROM pg_replication_slots WHERE slot_name = 'weir_shop'`)

	// The client: transactions of 1 to 3 changes on distinct keys (the
	// changes of one transaction share their _lsn, so one key's two
	// changes in one would have no order), reconnecting when PostgreSQL
	// restarts. A transaction cut by the restart committed or not: the
	// audit log says which.
	var txns atomic.Int64
	stop, stopped := make(chan struct{}), make(chan error, 1)
	go func() {
		rng := rand.New(rand.NewPCG(seed, 2))
		pace := time.NewTicker(3 * time.Millisecond) // the client's rate, not synchronisation
		defer pace.Stop()
		var c *pgx.Conn
		defer func() {
			if c != nil {
				c.Close(ctx)
			}
		}()
		for v := 0; ; v++ {
			select {
			case <-stop:
				stopped <- nil
				return
			case <-pace.C:
			}
			if c == nil || c.IsClosed() {
				cctx, cancel := context.WithTimeout(ctx, time.Second)
				c, _ = pgx.Connect(cctx, pg.URL())
				cancel()
				if c == nil {
					continue // PostgreSQL is restarting
				}
			}
			keys := rng.Perm(60)[:2+rng.IntN(3)]
			var stmts []string
			for i, k := range keys[:len(keys)-1] {
				name := fmt.Sprintf("v%d.%d", v, i)
				switch r := rng.IntN(10); {
				case r < 6:
					stmts = append(stmts, fmt.Sprintf(`INSERT INTO customers VALUES (%d, '%s', %d.%02d)
						ON CONFLICT (customer_id) DO UPDATE SET name = EXCLUDED.name, credit = customers.credit + 1`, k, name, rng.IntN(1000), rng.IntN(100)))
				case r < 8:
					stmts = append(stmts, fmt.Sprintf(`DELETE FROM customers WHERE customer_id = %d`, k))
				default: // the key changes: a delete of the old key, an insert of the new (the last of keys, unused otherwise)
					stmts = append(stmts, fmt.Sprintf(`UPDATE customers SET customer_id = %d, name = '%s'
						WHERE customer_id = %d AND NOT EXISTS (SELECT FROM customers WHERE customer_id = %d)`, keys[len(keys)-1], name, k, keys[len(keys)-1]))
				}
			}
			if _, err := c.Exec(ctx, "BEGIN; "+strings.Join(stmts, "; ")+"; COMMIT"); err == nil {
				txns.Add(1)
			} else if !c.IsClosed() && !strings.Contains(err.Error(), "duplicate key") {
				stopped <- fmt.Errorf("%v", err)
				return
			}
		}
	}()

	// Three SIGKILLs of weir, then a crash of PostgreSQL (last, so that no
	// restart of weir revives a sink the crash failed), each once the
	// client has committed a random number of further transactions and
	// weir has delivered an epoch to PostgreSQL since it started.
	rng := rand.New(rand.NewPCG(seed, 3))
	for i, what := range []string{"weir", "weir", "weir", "postgres"} {
		target := txns.Load() + int64(100+rng.IntN(300))
		waitCondition(t, fmt.Sprintf("%d transactions", target), func() bool { return txns.Load() >= target || len(stopped) > 0 })
		c, err := pgx.Connect(ctx, srv.url())
		if err != nil {
			t.Fatal(err)
		}
		waitCondition(t, "the sink to deliver an epoch", func() bool { return sinkCommittedEpoch(t, c, "customers_history_pg") > 0 })
		c.Close(ctx)
		switch what {
		case "weir":
			srv.kill()
			srv, _ = startCrashServer(t, dir, port, nil)
		case "postgres":
			if err := pg.Restart(); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%d: %s down and back after %d transactions", i, what, txns.Load())
	}
	// Changes go on after the last restart: the crash was mid-stream.
	after := txns.Load() + 200
	waitCondition(t, "transactions after the last restart", func() bool { return txns.Load() >= after || len(stopped) > 0 })
	close(stop)
	if err := <-stopped; err != nil {
		t.Fatalf("the client: %v", err)
	}

	p = pg.Connect(t) // the first connection died with the restart
	want := textRows(t, ctx, p, pipelineCDCOracle)
	var changes int
	if err := p.QueryRow(ctx, "SELECT count(*) FROM audit").Scan(&changes); err != nil {
		t.Fatal(err)
	}
	w, err := pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(ctx)
	for _, where := range []struct {
		name string
		c    *pgx.Conn
	}{{"weir's customers_history", w}, {"the sink's table in PostgreSQL", p}} {
		var got []string
		deadline := time.Now().Add(30 * time.Second)
		for {
			got = textRows(t, ctx, where.c, `SELECT customer_id, name, credit, __start_at, __end_at FROM customers_history`)
			missing, extra := diffRows(want, got)
			if len(missing)+len(extra) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s differs from the history of %d changes PostgreSQL recorded: %d versions missing, %d extra\nmissing: %v\nextra: %v\nSHOW SINKS: %v\n%s",
					where.name, changes, len(missing), len(extra), head(missing), head(extra), textRows(t, ctx, w, "SHOW SINKS"), srv.log)
			}
			time.Sleep(20 * time.Millisecond) // polling a condition, with a deadline
		}
	}
	for _, r := range textRows(t, ctx, w, "SHOW SINKS") {
		if f := strings.Split(r, "|"); len(f) == 7 && f[4] != "running" {
			t.Fatalf("sink %s is %s after PostgreSQL's restart: %s", f[0], f[4], f[6])
		}
	}
	t.Logf("%d versions from %d changes in %d transactions, equal in weir and in the sink's table", len(want), changes, txns.Load())
}

// sinkCommittedEpoch is SHOW SINKS' last_committed_epoch of sink name.
func sinkCommittedEpoch(t *testing.T, c *pgx.Conn, name string) int64 {
	t.Helper()
	for _, r := range textRows(t, context.Background(), c, "SHOW SINKS") {
		// name|from|connector|options|state|last_committed_epoch|error
		if f := strings.Split(r, "|"); f[0] == name && len(f) == 7 {
			var n int64
			fmt.Sscan(f[5], &n)
			return n
		}
	}
	return 0
}
