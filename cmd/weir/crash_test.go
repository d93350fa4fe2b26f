package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

var (
	crashKills = flag.Int("crash.kills", 20, "TestCrashRecovery: how many times to SIGKILL the server")
	crashSeed  = flag.Uint64("crash.seed", 0, "TestCrashRecovery: seed (0: from the clock)")
)

// crashServer is a weir process that the test kills with SIGKILL.
type crashServer struct {
	port   int
	cmd    *exec.Cmd
	log    *bytes.Buffer
	exited chan error
}

func startCrashServer(t *testing.T, dir string, port int, args []string, env ...string) (*crashServer, time.Duration) {
	t.Helper()
	began := time.Now()
	s := &crashServer{port: port, log: &bytes.Buffer{}, exited: make(chan error, 1)}
	s.cmd = exec.Command(weirBinary, append([]string{"serve", "--data", dir, "--listen", fmt.Sprintf("127.0.0.1:%d", port)}, args...)...)
	s.cmd.Env = append(os.Environ(), env...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start weir: %v", err)
	}
	go func() { s.exited <- s.cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, s.url())
		cancel()
		if err == nil {
			c.Close(context.Background())
			return s, time.Since(began)
		}
		select {
		case err := <-s.exited:
			t.Fatalf("weir exited during start (%v):\n%s", err, s.log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("weir did not accept connections within 30s:\n%s", s.log)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not synchronisation
	}
}

func (s *crashServer) url() string {
	return fmt.Sprintf("postgres://weir@127.0.0.1:%d/weir?sslmode=disable", s.port)
}

func (s *crashServer) kill() {
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
}

// The streaming tables the crash test checks: append and update mode,
// tumbling and session windows. Event times are out of order by less
// than the watermark delay, so no row is ever late whatever the
// micro-batch boundaries, and the expected contents are batch SQL.
var crashTables = []struct{ name, ddl, oracle string }{
	{"tumble_append", `CREATE STREAMING TABLE tumble_append AS SELECT region, window_start, window_end, count(*) AS n, sum(amount) AS total
		FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 2 MINUTES WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES) GROUP BY region, window_start, window_end`,
		`SELECT region, ws, ws + interval '5 minutes', count(*), sum(amount) FROM (SELECT *, to_timestamp(floor(extract(epoch FROM ts) / 300) * 300) AS ws FROM ev) e
		 GROUP BY region, ws HAVING ws + interval '5 minutes' <= (SELECT max(ts) - interval '2 minutes' FROM ev)`},
	{"tumble_update", `CREATE STREAMING TABLE tumble_update AS SELECT region, window_start, window_end, count(*) AS n, sum(amount) AS total
		FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 2 MINUTES WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES) GROUP BY region, window_start, window_end EMIT ON UPDATE`,
		`SELECT region, ws, ws + interval '5 minutes', count(*), sum(amount) FROM (SELECT *, to_timestamp(floor(extract(epoch FROM ts) / 300) * 300) AS ws FROM ev) e GROUP BY region, ws`},
	{"session_append", `CREATE STREAMING TABLE session_append AS SELECT region, window_start, window_end, count(*) AS n, sum(amount) AS total
		FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 2 MINUTES GROUP BY session_window(ts, '3 minutes'), region`,
		sessionOracle + ` WHERE window_end <= (SELECT max(ts) - interval '2 minutes' FROM ev)`},
	{"session_update", `CREATE STREAMING TABLE session_update AS SELECT region, window_start, window_end, count(*) AS n, sum(amount) AS total
		FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 2 MINUTES WINDOW SESSION (GAP INTERVAL 3 MINUTES) GROUP BY region, window_start, window_end EMIT ON UPDATE`,
		sessionOracle},
	// Stream trees: a join of two streams (ev with itself, two sources), a
	// window Top-N, an aggregation over an aggregation.
	{"join_pairs", `CREATE STREAMING TABLE join_pairs AS SELECT a.id AS aid, b.id AS bid, a.amount
		FROM STREAM ev a WATERMARK ts DELAY OF INTERVAL 2 MINUTES JOIN STREAM ev b WATERMARK ts DELAY OF INTERVAL 2 MINUTES
		ON a.region = b.region AND a.amount = b.amount AND b.ts BETWEEN a.ts - INTERVAL '10 minutes' AND a.ts + INTERVAL '10 minutes'`,
		`SELECT a.id, b.id, a.amount FROM ev a JOIN ev b ON a.region = b.region AND a.amount = b.amount AND b.ts BETWEEN a.ts - INTERVAL '10 minutes' AND a.ts + INTERVAL '10 minutes'`},
	{"window_top", `CREATE STREAMING TABLE window_top AS SELECT window_start, window_end, id, amount, rn FROM (SELECT window_start, window_end, id, amount,
		row_number() OVER (PARTITION BY window_start, window_end ORDER BY amount DESC, id) AS rn
		FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 2 MINUTES WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES)) x WHERE rn <= 2`,
		`SELECT ws, ws + interval '5 minutes', id, amount, rn FROM (SELECT ws, id, amount, row_number() OVER (PARTITION BY ws ORDER BY amount DESC, id) AS rn
		 FROM (SELECT *, to_timestamp(floor(extract(epoch FROM ts) / 300) * 300) AS ws FROM ev) e) x
		 WHERE rn <= 2 AND ws + interval '5 minutes' <= (SELECT max(ts) - interval '2 minutes' FROM ev)`},
	{"nested_max", `CREATE STREAMING TABLE nested_max AS SELECT window_start, window_end, max(n) AS top, sum(n) AS total FROM (
		SELECT region, window_start, window_end, count(*) AS n FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 2 MINUTES WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES)
		GROUP BY region, window_start, window_end) c
		GROUP BY window_start, window_end`,
		`SELECT ws, ws + interval '5 minutes', max(n), sum(n) FROM (SELECT region, ws, count(*) AS n FROM (SELECT *, to_timestamp(floor(extract(epoch FROM ts) / 300) * 300) AS ws FROM ev) e
		 GROUP BY region, ws) c GROUP BY ws HAVING ws + interval '5 minutes' <= (SELECT max(ts) - interval '2 minutes' FROM ev)`},
	// Nexmark q4's shape: an aggregation over the changelog of a
	// non-windowed aggregation over a join (each row's highest partner,
	// averaged per region); both keep every group.
	{"join_avg", `CREATE STREAMING TABLE join_avg AS SELECT region, count(*) AS ids, avg(top) AS avg_top, max(top) AS max_top, sum(pairs) AS pairs FROM (
		SELECT a.id, a.region, max(b.id) AS top, count(*) AS pairs
		FROM STREAM ev a WATERMARK ts DELAY OF INTERVAL 2 MINUTES JOIN STREAM ev b WATERMARK ts DELAY OF INTERVAL 2 MINUTES
		ON a.region = b.region AND a.amount = b.amount AND b.ts BETWEEN a.ts - INTERVAL '10 minutes' AND a.ts + INTERVAL '10 minutes'
		GROUP BY a.id, a.region) q GROUP BY region`,
		`SELECT region, count(*), avg(top), max(top), sum(pairs) FROM (SELECT a.id, a.region, max(b.id) AS top, count(*) AS pairs FROM ev a JOIN ev b
		 ON a.region = b.region AND a.amount = b.amount AND b.ts BETWEEN a.ts - INTERVAL '10 minutes' AND a.ts + INTERVAL '10 minutes' GROUP BY a.id, a.region) q GROUP BY region`},
	// Nexmark q6's shape: a rolling average over the changelog of a
	// non-windowed aggregation (ordered by a unique key, so that ties do
	// not make PostgreSQL's frames arbitrary).
	{"rolling_top", `CREATE STREAMING TABLE rolling_top AS SELECT region, id, top, avg(top) OVER (PARTITION BY region ORDER BY top, id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS avg3
		FROM (SELECT id, region, max(amount) AS top FROM STREAM ev GROUP BY id, region) q`,
		`SELECT region, id, top, avg(top) OVER (PARTITION BY region ORDER BY top, id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM (SELECT id, region, max(amount) AS top FROM ev GROUP BY id, region) q`},
	// Two append flows into one streaming table, each a job with its own
	// checkpoint: a filter, and (columns in another order) a windowed
	// aggregation with state. Their rows overlap nowhere but in the target,
	// which must be the batch UNION ALL of the two.
	{"flows_append", `CREATE OR REFRESH STREAMING TABLE flows_append;
		CREATE FLOW cheap AS INSERT INTO flows_append BY NAME SELECT 'cheap' AS kind, id, amount FROM STREAM ev WHERE amount < 300;
		CREATE FLOW windows AS INSERT INTO flows_append BY NAME SELECT count(*) AS id, 'w' || region AS kind, sum(amount)::numeric(12,2) AS amount
		FROM STREAM ev WATERMARK ts DELAY OF INTERVAL 2 MINUTES WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES) GROUP BY region, window_start, window_end`,
		`SELECT 'cheap', id, amount FROM ev WHERE amount < 300
		 UNION ALL
		 SELECT 'w' || region, count(*), sum(amount) FROM (SELECT *, to_timestamp(floor(extract(epoch FROM ts) / 300) * 300) AS ws FROM ev) e
		 GROUP BY region, ws HAVING ws + interval '5 minutes' <= (SELECT max(ts) - interval '2 minutes' FROM ev)`},
	// Expectations (engine/expectations.go): the rows kept, the rows
	// quarantined and the counts commit with the epochs, so across kills
	// they are PostgreSQL's over the input weir kept. The last two entries
	// read what quality_silver writes (no DDL of their own).
	{"quality_silver", `CREATE STREAMING TABLE quality_silver (
		CONSTRAINT cheap EXPECT (amount >= 50) ON VIOLATION DROP ROW,
		CONSTRAINT not_r3 EXPECT (region <> 'r3'),
		CONSTRAINT ratio EXPECT (100 / (id % 5) > 30)
		) WITH (quarantine = quality_quarantine) AS SELECT id, region, amount FROM STREAM ev`,
		`SELECT id, region, amount FROM ev WHERE amount >= 50`},
	{"quality_quarantine", "",
		`SELECT id, region, amount, array_remove(ARRAY['cheap', CASE WHEN region = 'r3' THEN 'not_r3' END, CASE WHEN CASE WHEN id % 5 = 0 THEN true ELSE 100 / (id % 5) <= 30 END THEN 'ratio' END], NULL)
		 FROM ev WHERE amount < 50`},
	{"weir_catalog.expectations", "",
		`SELECT 'quality_silver', NULL, 'cheap', 'drop', 'amount >= 50', count(*) FILTER (WHERE amount >= 50), count(*) FILTER (WHERE amount < 50) FROM ev
		 UNION ALL SELECT 'quality_silver', NULL, 'not_r3', 'warn', 'region <> ''r3''', count(*) FILTER (WHERE region <> 'r3'), count(*) FILTER (WHERE region = 'r3') FROM ev
		 UNION ALL SELECT 'quality_silver', NULL, 'ratio', 'warn', '100 / (id % 5) > 30', count(*) FILTER (WHERE id % 5 IN (1, 2, 3)), count(*) FILTER (WHERE id % 5 IN (0, 4)) FROM ev`},
}

// sessionOracle sessionizes with window functions: a new session starts
// where an event is at least the gap after the previous one of its region.
const sessionOracle = `SELECT * FROM (SELECT region, min(ts) AS window_start, max(ts) + interval '3 minutes' AS window_end, count(*), sum(amount) FROM (
	SELECT region, ts, amount, sum(brk) OVER (PARTITION BY region ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid FROM (
		SELECT region, ts, amount, CASE WHEN ts - lag(ts) OVER (PARTITION BY region ORDER BY ts) < interval '3 minutes' THEN 0 ELSE 1 END AS brk FROM ev) b) s
	GROUP BY region, sid) r`

// TestCrashRecovery COPYs chunks of out-of-order and duplicated events
// into the real binary while killing it with SIGKILL at random moments,
// restarts it, and checks every streaming table against the same
// aggregate computed by PostgreSQL over the input weir acknowledged (plus
// an in-flight chunk that committed just before the kill): 0 rows
// missing, 0 extra.
func TestCrashRecovery(t *testing.T) {
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (reproduce: go test ./cmd/weir -run TestCrashRecovery -crash.seed=%d -crash.kills=%d)", seed, seed, *crashKills)
	c := newCrashRun(t, seed)
	var slowest time.Duration
	var restored, rerun int
	for kill := 0; kill < *crashKills; kill++ {
		// Kill from another goroutine after a random delay: at any point of
		// a COPY or of the streaming tables' epochs.
		killed := make(chan struct{})
		go func(d time.Duration) {
			time.Sleep(d) // the random moment of the kill: timing, not synchronisation
			c.srv.kill()
			close(killed)
		}(time.Duration(20+c.r.IntN(300)) * time.Millisecond)
		c.writeUntilDown()
		<-killed
		// The process is gone, so its log is complete: how did its start
		// recover each table?
		restored += strings.Count(c.srv.log.String(), "restored the state snapshot")
		rerun += countLines(c.srv.log.String(), "event=started", "recovery=replay") // engine/event_log_recovery.go's started event
		if took := c.restart(); took > slowest {
			slowest = took
		}
		c.check(kill + 1)
		if (kill+1)%25 == 0 && kill+1 < *crashKills {
			t.Logf("%d kills survived so far; %d chunks acknowledged", kill+1, len(c.acked)) // progress of long runs
		}
	}
	t.Logf("%d kills survived; slowest restart to accepting connections: %s; %d chunks acknowledged", *crashKills, slowest, len(c.acked))
	t.Logf("table recoveries: %d from a state snapshot, %d by re-running epochs", restored, rerun)
	if *crashKills >= 10 && (restored == 0 || rerun == 0) {
		t.Errorf("the kills did not exercise both recovery paths (%d from snapshots, %d re-runs)", restored, rerun)
	}
	c.stop()
}

// TestCrashAtFailpoints crashes the server between the writes of a commit,
// at every failpoint, and checks recovery the same way.
func TestCrashAtFailpoints(t *testing.T) {
	c := newCrashRun(t, 42)
	round := 0
	for _, point := range []string{"write-before-commit", "write-after-commit", "epoch-before-commit", "epoch-after-commit"} {
		for _, n := range []int{1, 3, 7} {
			c.srv.kill()
			c.restart(fmt.Sprintf("WEIR_FAILPOINT=%s:%d", point, n))
			c.writeUntilDown() // the server kills itself at the point
			<-c.srv.exited
			c.srv.exited <- nil
			c.restart()
			round++
			c.check(round)
		}
	}
	c.stop()
}

// crashRun is the state of a crash test: the server, its data directory,
// the PostgreSQL oracle and what weir acknowledged.
type crashRun struct {
	t         *testing.T
	ctx       context.Context
	r         *rand.Rand
	dir       string
	port      int
	srv       *crashServer
	pg        *pgx.Conn
	clock     time.Time
	nextChunk int
	nextID    int64
	acked     map[int]bool
	mirrored  int32 // the highest chunk copied to PostgreSQL (-1: none)
	starts    int   // server starts so far
}

func newCrashRun(t *testing.T, seed uint64) *crashRun {
	c := &crashRun{t: t, ctx: context.Background(), r: rand.New(rand.NewPCG(seed, 7)),
		dir: filepath.Join(t.TempDir(), "data"), port: freePort(t),
		clock: time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC), acked: map[int]bool{}, mirrored: -1}
	c.srv, _ = startCrashServer(t, c.dir, c.port, c.snapshotArgs())
	conn, err := pgx.Connect(c.ctx, c.srv.url())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(c.ctx)
	if _, err := conn.Exec(c.ctx, "CREATE TABLE ev (chunk int, id bigint, region text, amount numeric(12,2), ts timestamptz)"); err != nil {
		t.Fatal(err)
	}
	for _, ct := range crashTables {
		if ct.ddl == "" {
			continue // a table another entry's DDL makes
		}
		if _, err := conn.Exec(c.ctx, ct.ddl); err != nil {
			t.Fatalf("%s: %v", ct.name, err)
		}
	}
	pg := pgtest.Shared(t)
	c.pg, err = pgx.Connect(c.ctx, pg.FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.pg.Close(context.Background()) })
	if _, err := c.pg.Exec(c.ctx, "SET TimeZone = 'UTC'; CREATE TABLE ev (chunk int, id bigint, region text, amount numeric(12,2), ts timestamptz)"); err != nil {
		t.Fatal(err)
	}
	return c
}

// writeUntilDown COPYs chunks of out-of-order and duplicated events until
// the server goes away, recording the chunks it acknowledged.
func (c *crashRun) writeUntilDown() {
	conn, err := pgx.Connect(c.ctx, c.srv.url())
	if err != nil {
		return // already down
	}
	defer conn.Close(c.ctx)
	r := c.r
	for {
		rows := make([][]any, 50+r.IntN(400))
		for i := range rows {
			if i > 0 && r.IntN(10) == 0 {
				rows[i] = rows[r.IntN(i)] // a duplicated event
				continue
			}
			c.clock = c.clock.Add(time.Duration(r.IntN(3000)) * time.Millisecond)
			// Out of order by up to 90 s, less than the 2-minute delay.
			ts := c.clock.Add(-time.Duration(r.IntN(90_000)) * time.Millisecond)
			c.nextID++
			rows[i] = []any{int32(c.nextChunk), c.nextID, fmt.Sprintf("r%d", r.IntN(4)), fmt.Sprintf("%d.%02d", r.IntN(500), r.IntN(100)), ts}
		}
		for i := range rows {
			rows[i][0] = int32(c.nextChunk)
		}
		_, err := conn.CopyFrom(c.ctx, pgx.Identifier{"ev"}, []string{"chunk", "id", "region", "amount", "ts"}, pgx.CopyFromRows(rows))
		chunk := c.nextChunk
		c.nextChunk++ // an in-flight chunk, committed or not, is never reused
		if err != nil {
			return
		}
		c.acked[chunk] = true
	}
}

// restart starts the server again on the same data directory.
func (c *crashRun) restart(env ...string) time.Duration {
	var took time.Duration
	c.srv, took = startCrashServer(c.t, c.dir, c.port, c.snapshotArgs(), env...)
	return took
}

// snapshotArgs picks, for each start, how often the streaming tables
// snapshot their state: at every epoch, every few chunks, rarely, or by
// default (not within a short run). A restart then recovers from a
// snapshot taken by this or an earlier process, of some age, or from the
// epoch log alone, and a kill may fall inside a snapshot's commit.
//
// The first start takes the default, which snapshots nothing in a short
// round, so the first restart re-runs epochs; the second snapshots every
// epoch, so the next restart restores one. Later starts choose at random.
func (c *crashRun) snapshotArgs() []string {
	n := []int{0, 1, 300, 2000}[c.r.IntN(4)]
	switch c.starts {
	case 0:
		n = 0
	case 1:
		n = 1
	}
	c.starts++
	return []string{fmt.Sprintf("--snapshot-rows=%d", n)}
}

func (c *crashRun) stop() {
	c.srv.cmd.Process.Signal(syscall.SIGTERM)
	<-c.srv.exited
}

// check compares every streaming table with PostgreSQL's batch result
// over the input weir holds, after checking that this input has every
// acknowledged chunk. PostgreSQL's copy of the input grows by the chunks
// that are new since the last check (a chunk weir once held it holds
// forever, which the row counts confirm), so a long run does not re-copy
// its whole input at every kill.
func (c *crashRun) check(round int) {
	t, ctx := c.t, c.ctx
	t.Helper()
	conn, err := pgx.Connect(ctx, c.srv.url())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	present := map[int]bool{}
	var total int64
	rows, err := conn.Query(ctx, "SELECT chunk, count(*) FROM ev GROUP BY chunk")
	if err != nil {
		t.Fatalf("round %d: read input: %v", round, err)
	}
	for rows.Next() {
		var chunk int32
		var n int64
		if err := rows.Scan(&chunk, &n); err != nil {
			t.Fatal(err)
		}
		present[int(chunk)] = true
		total += n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for ch := range c.acked {
		if !present[ch] {
			t.Fatalf("round %d: acknowledged chunk %d is missing after kill -9", round, ch)
		}
	}
	// Wait for the streaming tables to catch up with the input (join_pairs
	// and join_avg read it twice, as both sides of their join).
	deadline := time.Now().Add(60 * time.Second)
	for {
		var behind int
		err := conn.QueryRow(ctx, "SELECT count(*) FROM weir_catalog.streaming_progress WHERE input_rows <> $1 * CASE WHEN name IN ('join_pairs', 'join_avg') THEN 2 ELSE 1 END OR backlog_rows <> 0 OR status <> 'running'", total).Scan(&behind)
		if err != nil {
			t.Fatal(err)
		}
		if behind == 0 {
			break
		}
		if time.Now().After(deadline) {
			var report string
			conn.QueryRow(ctx, "SELECT string_agg(name || ':' || status || ':' || input_rows || ':' || coalesce(last_error, ''), ', ') FROM weir_catalog.streaming_progress").Scan(&report)
			t.Fatalf("round %d: streaming tables did not catch up with %d rows: %s", round, total, report)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, with a deadline
	}
	rows, err = conn.Query(ctx, "SELECT chunk, id, region, amount::text, ts FROM ev WHERE chunk > $1", c.mirrored)
	if err != nil {
		t.Fatalf("round %d: read input: %v", round, err)
	}
	var input [][]any
	for rows.Next() {
		var chunk int32
		var id int64
		var region, amount string
		var ts time.Time
		if err := rows.Scan(&chunk, &id, &region, &amount, &ts); err != nil {
			t.Fatal(err)
		}
		input = append(input, []any{chunk, id, region, amount, ts})
		c.mirrored = max(c.mirrored, chunk)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.pg.CopyFrom(ctx, pgx.Identifier{"ev"}, []string{"chunk", "id", "region", "amount", "ts"}, pgx.CopyFromRows(input)); err != nil {
		t.Fatal(err)
	}
	var pgTotal int64
	if err := c.pg.QueryRow(ctx, "SELECT count(*) FROM ev").Scan(&pgTotal); err != nil {
		t.Fatal(err)
	}
	if pgTotal != total {
		t.Fatalf("round %d: weir's input holds %d rows, the chunks copied to PostgreSQL so far %d: weir lost or gained rows", round, total, pgTotal)
	}
	for _, ct := range crashTables {
		got := textRows(t, ctx, conn, "SELECT * FROM "+ct.name)
		want := textRows(t, ctx, c.pg, ct.oracle)
		missing, extra := diffRows(want, got)
		if len(missing)+len(extra) > 0 {
			t.Fatalf("round %d: %s differs from PostgreSQL over the same %d input rows: %d rows missing, %d extra\nmissing: %v\nextra: %v",
				round, ct.name, total, len(missing), len(extra), head(missing), head(extra))
		}
	}
}

func textRows(t *testing.T, ctx context.Context, c *pgx.Conn, sql string) []string {
	t.Helper()
	rows, err := c.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var cells []string
		for _, v := range rows.RawValues() {
			cells = append(cells, string(v))
		}
		out = append(out, strings.Join(cells, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	sort.Strings(out)
	return out
}

// diffRows compares two sorted multisets.
func diffRows(want, got []string) (missing, extra []string) {
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j == len(got) || (i < len(want) && want[i] < got[j]):
			missing = append(missing, want[i])
			i++
		case i == len(want) || got[j] < want[i]:
			extra = append(extra, got[j])
			j++
		default:
			i++
			j++
		}
	}
	return missing, extra
}

func head(s []string) []string {
	if len(s) > 5 {
		return s[:5]
	}
	return s
}
