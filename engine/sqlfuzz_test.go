package engine_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/wire"
)

var (
	fuzzBudget  = flag.Duration("sqlfuzz.budget", 20*time.Second, "TestSQLFuzz: how long to generate statements (-short: 5s)")
	fuzzSeed    = flag.Int64("sqlfuzz.seed", 0, "TestSQLFuzz: seed (0: derive one from the clock)")
	fuzzVerbose = flag.Bool("sqlfuzz.v", false, "TestSQLFuzz: log every statement")
	fuzzTimeout = flag.Duration("sqlfuzz.deadline", 10*time.Second, "TestSQLFuzz: a statement not done by then is a hang")
)

// lockedBuffer is a server log the test can read while the server writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// takePanics returns and forgets the log lines that report a panic.
func (l *lockedBuffer) takePanics() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range strings.Split(l.b.String(), "\n") {
		if strings.Contains(line, "panic") {
			if len(line) > 2000 {
				line = line[:2000] + "..."
			}
			out = append(out, line)
		}
	}
	l.b.Reset()
	return out
}

// TestSQLFuzz sends random grammar-aware SQL (sqlgen_test.go) to a real
// server over pgx for a fixed budget and fails on any statement that
// panics (the connection's recover answers XX000 and logs "panic"), drops
// the connection, or does not finish within the deadline (the fuzzer's
// statements run on tables of a few rows, so none should take long; at the
// deadline pgx cancels it). Any other error with a SQLSTATE is fine. The
// seed is printed; rerun one with -sqlfuzz.seed=N, run longer with
// -sqlfuzz.budget=10m.
func TestSQLFuzz(t *testing.T) {
	budget := *fuzzBudget
	if testing.Short() && budget > 5*time.Second {
		budget = 5 * time.Second
	}
	seed := *fuzzSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("sqlfuzz seed %d (rerun: go test ./engine -run TestSQLFuzz -sqlfuzz.seed=%d)", seed, seed)

	connect, logs := startFuzzServer(t)
	c := connect()
	defer func() { c.Close(context.Background()) }()
	for _, s := range fuzzSetup {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}

	g := newSQLGen(seed)
	deadline := time.Now().Add(budget)
	failures, n := 0, 0
	codes := map[string]int{}
	fail := func(format string, args ...any) {
		failures++
		if failures <= 20 {
			t.Errorf("seed %d, statement %d: "+format, append([]any{seed, n}, args...)...)
		}
	}
	for time.Now().Before(deadline) && failures < 50 {
		n++
		sql := g.statement()
		if *fuzzVerbose {
			t.Logf("%d: %s", n, sql)
		}
		ctx, cancel := context.WithTimeout(context.Background(), *fuzzTimeout)
		start := time.Now()
		rows, err := c.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
		if err == nil {
			for rows.Next() {
			}
			rows.Close()
			err = rows.Err()
		}
		timedOut := ctx.Err() != nil
		cancel()
		var pe *pgconn.PgError
		switch {
		case timedOut:
			honoured := "cancel honoured"
			if !errors.As(err, &pe) || pe.Code != "57014" || time.Since(start) > *fuzzTimeout+cancelGrace {
				honoured = fmt.Sprintf("cancel NOT honoured within %v (%v)", cancelGrace, err)
			}
			fail("no answer within %v (a hang; %s):\n%s", time.Since(start).Round(time.Millisecond), honoured, sql)
		case errors.As(err, &pe):
			codes[pe.Code]++
			if pe.Code == "XX000" {
				fail("internal error %s %q:\n%s", pe.Severity, pe.Message, sql)
			}
		case err != nil:
			fail("connection lost (%v):\n%s", err, sql)
		}
		for _, p := range logs.takePanics() {
			fail("server log: %s\nlast statement:\n%s", p, sql)
		}
		if c.IsClosed() || timedOut {
			c.Close(context.Background())
			c = connect()
		}
	}
	t.Logf("sqlfuzz: %d statements in %v, %d failures; SQLSTATEs: %v", n, budget, failures, codes)
	var one int
	if err := connect().QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("server does not answer after the run: %v", err)
	}
}

// TestSQLFuzzCancelHonoured is the fuzzer's hang of seed
// 1796122879529237439, statement 4667: pg_sleep_for(interval '3' day) waits
// three days, as PostgreSQL's does (so the generator no longer calls the
// sleep functions), but the statement must end with 57014 within
// cancelGrace of the fuzzer's cancel request.
func TestSQLFuzzCancelHonoured(t *testing.T) {
	connect, _ := startFuzzServer(t)
	c := connect()
	defer c.Close(context.Background())
	for _, s := range fuzzSetup {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	for _, q := range []string{
		"WITH cte525(v) AS (SELECT r1_0.js FROM fz1 r1_0 WHERE CASE WHEN r1_0.b THEN r1_0.b WHEN r1_0.b THEN NULL::bool ELSE r1_0.b END ORDER BY 1 LIMIT 3) SELECT pg_sleep_for(interval '3' day) FROM cte525 WHERE (ARRAY[NULL, 'x'] IS NOT NULL) LIMIT 1 OFFSET 0",
		"SELECT pg_sleep_until(now() + interval '3' day) FROM fz1",
	} {
		const after = 300 * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), after)
		start := time.Now()
		_, err := c.Exec(ctx, q, pgx.QueryExecModeSimpleProtocol)
		took := time.Since(start)
		cancel()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57014" {
			t.Errorf("%s: want 57014 after the cancel request, got %v", q, err)
		}
		if took > after+cancelGrace {
			t.Errorf("%s: answered %v after the cancel request, want within %v", q, took-after, cancelGrace)
		}
		if c.IsClosed() {
			c = connect()
		}
		var one int
		if err := c.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("session after the cancel: %v", err)
		}
	}
}

// startFuzzServer starts a server for the fuzzer and returns how to
// connect to it and its log. The connections' context watcher sends
// PostgreSQL a cancel request when a statement's context ends (pgx's
// default only sets a deadline on the socket, which the server never sees),
// so the fuzzer's deadline exercises the server's cancellation too.
func startFuzzServer(t *testing.T) (connect func() *pgx.Conn, logs *lockedBuffer) {
	t.Helper()
	logs = &lockedBuffer{}
	eng, err := engine.Open(engine.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := wire.NewServer(eng, wire.Config{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	go srv.Serve(l)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		eng.Close()
	})
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://weir@%s/weir?sslmode=disable", l.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: cancelGrace}
	}
	connect = func() *pgx.Conn {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatalf("connect (is the server down?): %v", err)
		}
		if _, err := c.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
			t.Fatal(err)
		}
		return c
	}
	return connect, logs
}

// cancelGrace is how long after a cancel request a statement must have
// answered (57014).
const cancelGrace = time.Second

// fuzzSetup creates the tables the generator's FROM items name: two with a
// few rows of every type, NULLs and edge values among them, and one empty.
var fuzzSetup = func() []string {
	cols := "i int, j bigint, n numeric, x float8, s text, b bool, ts timestamp, tz timestamptz, d date, iv interval, js jsonb, ai int[], at text[]"
	out := []string{
		"CREATE TABLE fz1 (" + cols + ")",
		"CREATE TABLE fz2 (" + cols + ")",
		"CREATE TABLE fz_empty (" + cols + ")",
	}
	rows := []string{
		"(1, 10, 1.5, 0.5, 'a', true, '2024-01-01 10:00', '2024-01-01 10:00+00', '2024-01-01', '1 day', '{\"a\": 1, \"b\": [1, 2]}', '{1,2,3}', '{a,b}')",
		"(2, -5, -2.25, 'NaN', 'abc', false, '2024-02-29 23:59:59.999999', '2024-03-01 00:00+05', '2024-02-29', '-1 month 3 hours', '[1, \"x\", null]', '{}', '{}')",
		"(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
		"(2147483647, 9223372036854775807, 1e20, 'Infinity', '', true, 'infinity', '-infinity', 'infinity', '178000000 years', 'null', '{NULL,7}', '{NULL,\"q,1\"}')",
		"(0, 0, 0, -0.0, 'héllo', NULL, '1970-01-01', '1970-01-01 00:00+00', '1970-01-01', '0', '\"s\"', '{0}', '{z}')",
	}
	out = append(out, "INSERT INTO fz1 VALUES "+strings.Join(rows, ", "))
	out = append(out, "INSERT INTO fz2 VALUES "+strings.Join(rows[1:], ", ")+", "+rows[0])
	return out
}()
