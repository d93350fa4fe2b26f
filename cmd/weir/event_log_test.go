package main

// The event log and the server's log from the real binary (issue 12,
// points 2 and 6): after a kill -9 each streaming table's restart is in
// event_log() (started, then recovered: from a snapshot or by replay, the
// epochs re-run, how long) and in the log as a JSON line of the same
// event; the batch history survives the kill; and no password a client
// sends (CREATE ROLE, ALTER ROLE, a failed login) is ever written to the
// log or the event log.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// logEvents are the JSON lines of log whose "event" is kind.
func logEvents(t *testing.T, log, kind string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("a log line is not JSON (--log-format json): %q", sc.Text())
		}
		if m["event"] == kind {
			out = append(out, m)
		}
	}
	return out
}

func TestEventLogAcrossKill(t *testing.T) {
	// With a snapshot every 1000 rows the table restores one; with none
	// (its state lives in memory: update mode) it re-runs every epoch.
	t.Run("snapshot", func(t *testing.T) { eventLogAcrossKill(t, "1000", "snapshot") })
	t.Run("replay", func(t *testing.T) { eventLogAcrossKill(t, "1000000000", "replay") })
}

func eventLogAcrossKill(t *testing.T, snapshotRows, wantHow string) {
	dir := filepath.Join(t.TempDir(), "data")
	port := freePort(t)
	args := []string{"--log-format", "json", "--snapshot-rows", snapshotRows}
	s, _ := startCrashServer(t, dir, port, args)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.url())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE e (k bigint)",
		"CREATE STREAMING TABLE per_k AS SELECT k % 10 AS g, count(*) AS n FROM STREAM e GROUP BY k % 10",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for i := 0; i < 12; i++ {
		if _, err := c.Exec(ctx, "INSERT INTO e SELECT g FROM generate_series(1, 400) g"); err != nil {
			t.Fatal(err)
		}
	}
	waitTrue(t, c, "SELECT input_rows = 4800 FROM weir_catalog.streaming_progress WHERE name = 'per_k'")
	var epochs, batches int64
	if err := c.QueryRow(ctx, "SELECT (SELECT epoch FROM weir_catalog.streaming_progress WHERE name = 'per_k'), (SELECT count(*) FROM weir_catalog.streaming_batches WHERE name = 'per_k')").Scan(&epochs, &batches); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	s.kill()

	s, took := startCrashServer(t, dir, port, args)
	kill := sync.OnceFunc(s.kill)
	t.Cleanup(kill)
	c, err = pgx.Connect(ctx, s.url())
	if err != nil {
		t.Fatal(err)
	}
	waitTrue(t, c, "SELECT count(*) = 1 FROM event_log('per_k') WHERE event_type = 'recovered'")
	var how string
	var rerun, snapEpoch int64
	var ms float64
	if err := c.QueryRow(ctx, `SELECT details->>'recovery', (details->>'rerun_epochs')::bigint, coalesce((details->>'snapshot_epoch')::bigint, 0), (details->>'duration_ms')::float8
		FROM event_log('per_k') WHERE event_type = 'recovered'`).Scan(&how, &rerun, &snapEpoch, &ms); err != nil {
		t.Fatal(err)
	}
	t.Logf("recovered by %s (snapshot of epoch %d), re-ran %d of %d epochs in %.1f ms; the server took %v to accept connections", how, snapEpoch, rerun, epochs, ms, took)
	if how != wantHow || how == "snapshot" && snapEpoch < 1 || rerun != epochs-snapEpoch || ms <= 0 {
		t.Errorf("recovered event: recovery %s, snapshot epoch %d, rerun %d (of %d epochs), %.1f ms", how, snapEpoch, rerun, epochs, ms)
	}
	got := strings.Join(eventColumn(t, c, "SELECT event_type FROM event_log('per_k') ORDER BY id::bigint"), " ")
	if got != "created started started recovered" {
		t.Errorf("event_log('per_k') after the kill: %s", got)
	}
	var after int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM weir_catalog.streaming_batches WHERE name = 'per_k'").Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != batches || after != epochs {
		t.Errorf("streaming_batches of per_k: %d rows before the kill, %d after (epochs %d)", batches, after, epochs)
	}
	c.Close(ctx)
	// The same events, as log lines of the restarted server (read once
	// it is gone: the process writes the buffer).
	kill()
	lines := logEvents(t, s.log.String(), "recovered")
	if len(lines) != 1 || lines[0]["table"] != "public.per_k" || lines[0]["recovery"] != how || lines[0]["level"] != "INFO" {
		t.Errorf("recovered log lines: %v\n%s", lines, s.log)
	}
	if st := logEvents(t, s.log.String(), "started"); len(st) != 1 || st[0]["recovery"] != wantHow {
		t.Errorf("started log lines: %v", st)
	}
}

// TestNoSecretsInLogs: the passwords of CREATE ROLE and ALTER ROLE, and
// the wrong one of a failed login, are nowhere in the server's log (at
// debug level) nor in the event log.
func TestNoSecretsInLogs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	port := freePort(t)
	s, _ := startCrashServer(t, dir, port, []string{"--log-format", "json", "--log-level", "debug"})
	kill := sync.OnceFunc(s.kill)
	t.Cleanup(kill)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.url())
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"hunter2-create-7c1f", "hunter2-alter-93ab", "hunter2-wrong-5d0e", "hunter2-dup-11aa"}
	for _, q := range []string{
		"CREATE ROLE alice LOGIN PASSWORD '" + secrets[0] + "'",
		"ALTER ROLE alice PASSWORD '" + secrets[1] + "'",
		"CREATE TABLE e (k bigint)",
		"CREATE STREAMING TABLE t AS SELECT 10 / k AS q FROM e",
		"INSERT INTO e VALUES (0)",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// A statement that fails while holding a password.
	if _, err := c.Exec(ctx, "CREATE ROLE alice LOGIN PASSWORD '"+secrets[3]+"'"); err == nil {
		t.Fatal("a second CREATE ROLE alice succeeded")
	}
	login := func(password string) error {
		cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://alice@127.0.0.1:%d/weir?sslmode=disable", port))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Password = password
		lc, err := pgx.ConnectConfig(ctx, cfg)
		if err == nil {
			lc.Close(ctx)
		}
		return err
	}
	if err := login(secrets[2]); err == nil {
		t.Fatal("a login with a wrong password succeeded")
	}
	if err := login(secrets[1]); err != nil {
		t.Fatalf("a login with the password ALTER ROLE set: %v", err)
	}
	waitTrue(t, c, "SELECT count(*) > 0 FROM event_log('t') WHERE event_type = 'failed'")
	var events string
	if err := c.QueryRow(ctx, "SELECT string_agg(concat_ws(' ', id, sequence, origin, message, error, details, event_type), E'\\n') FROM weir_catalog.event_log").Scan(&events); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	kill()
	log := s.log.String()
	if len(logEvents(t, log, "failed")) == 0 || !strings.Contains(events, "division by zero") {
		t.Fatalf("the test's failure is missing from the log or the event log:\n%s\n%s", log, events)
	}
	for _, p := range secrets {
		if strings.Contains(log, p) {
			t.Errorf("the server's log holds the password %q:\n%s", p, log)
		}
		if strings.Contains(events, p) {
			t.Errorf("the event log holds the password %q:\n%s", p, events)
		}
	}
}

func waitTrue(t *testing.T, c *pgx.Conn, q string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var ok bool
		err := c.QueryRow(context.Background(), q).Scan(&ok)
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not true after 20s: %s (%v)", q, err)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, with a deadline
	}
}

func eventColumn(t *testing.T, c *pgx.Conn, q string) []string {
	t.Helper()
	rows, err := c.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// countLines counts the lines of log that hold every one of parts.
func countLines(log string, parts ...string) int {
	n := 0
	for _, l := range strings.Split(log, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			n++
		}
	}
	return n
}
