package engine_test

// The event log (issue 12, point 2): event_log('t') and
// weir_catalog.event_log after a streaming table is created, refreshed,
// refreshed in full, fails, is refreshed again and dropped; who reads
// which events; the log's retention and row cap.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/internal/failpoint"
)

func evExec(t *testing.T, c *pgx.Conn, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// eventTypes are the event types of q's rows (its first column), in order.
func eventTypes(t *testing.T, c *pgx.Conn, q string) []string {
	t.Helper()
	rows, err := c.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

func TestEventLogLifecycle(t *testing.T) {
	s := startServer(t, t.TempDir())
	c := s.connect(t)
	ctx := context.Background()
	evExec(t, c,
		"CREATE TABLE e (k bigint)",
		"CREATE STREAMING TABLE t WITH (trigger = 'available_now') AS SELECT 10 / k AS q FROM e",
		"INSERT INTO e VALUES (1), (2), (5)",
		"REFRESH STREAMING TABLE t",
		"REFRESH STREAMING TABLE t FULL",
		"INSERT INTO e VALUES (0)")
	if _, err := c.Exec(ctx, "REFRESH STREAMING TABLE t"); err == nil {
		t.Fatal("REFRESH over a division by zero succeeded")
	}
	got := strings.Join(eventTypes(t, c, "SELECT event_type FROM event_log('t') ORDER BY id::bigint"), " ")
	want := "created started refreshed started refreshed failed"
	if got != want {
		t.Fatalf("event_log('t'): %s, want %s", got, want)
	}
	// The failure carries its error and SQLSTATE, and the columns
	// Databricks documents are there.
	var msg, level, code, origin, maturity string
	if err := c.QueryRow(ctx, `SELECT message, level, error->>'sqlstate', origin->>'table_name', maturity_level
		FROM event_log('public.t') WHERE event_type = 'failed'`).Scan(&msg, &level, &code, &origin, &maturity); err != nil {
		t.Fatal(err)
	}
	if level != "ERROR" || code != "22012" || origin != "public.t" || !strings.Contains(msg, "division by zero") || maturity != "STABLE" {
		t.Errorf("failed event: message %q level %s sqlstate %s origin %s maturity %s", msg, level, code, origin, maturity)
	}
	// Databricks' other spelling, event_log(TABLE(name)).
	if n := len(eventTypes(t, c, "SELECT event_type FROM event_log(TABLE(public.t)) AS l")); n != 6 {
		t.Errorf("event_log(TABLE(public.t)) has %d rows, want 6", n)
	}
	var full bool
	if err := c.QueryRow(ctx, `SELECT (details->>'full')::boolean FROM event_log('t') WHERE event_type = 'refreshed' ORDER BY id::bigint DESC LIMIT 1`).Scan(&full); err != nil || !full {
		t.Errorf("the second refreshed event's details.full = %v (%v), want true", full, err)
	}
	evExec(t, c, "DROP STREAMING TABLE t")
	if _, err := c.Exec(ctx, "SELECT * FROM event_log('t')"); err == nil || !strings.Contains(err.Error(), "42P01") {
		t.Errorf("event_log of a dropped table: %v, want 42P01", err)
	}
	got = strings.Join(eventTypes(t, c, "SELECT event_type FROM weir_catalog.event_log WHERE table_name = 'public.t' ORDER BY id::bigint"), " ")
	if want += " dropped"; got != want {
		t.Errorf("weir_catalog.event_log: %s, want %s", got, want)
	}
	// event_log of what is not a streaming table.
	if _, err := c.Exec(ctx, "SELECT * FROM event_log('e')"); err == nil || !strings.Contains(err.Error(), "42809") {
		t.Errorf("event_log of a table: %v, want 42809", err)
	}
}

// TestEventLogPrivileges: a role reads the events of the relations it may
// SELECT (event_log('t') of another is 42501); the events of dropped
// objects and the server's own only pg_monitor's members and superusers
// read.
func TestEventLogPrivileges(t *testing.T) {
	s := startServer(t, t.TempDir())
	c := s.connect(t)
	ctx := context.Background()
	evExec(t, c,
		"CREATE TABLE e (k bigint)",
		"CREATE STREAMING TABLE kept AS SELECT k FROM e",
		"CREATE STREAMING TABLE gone AS SELECT k FROM e",
		"DROP STREAMING TABLE gone",
		"CREATE ROLE plain LOGIN",
		"CREATE ROLE watcher LOGIN",
		"GRANT pg_monitor TO watcher")
	count := func(user string) (kept, gone int) {
		cfg, err := pgx.ParseConfig(strings.Replace(s.url(), "weir@", user+"@", 1))
		if err != nil {
			t.Fatal(err)
		}
		uc, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer uc.Close(ctx)
		if err := uc.QueryRow(ctx, `SELECT count(*) FILTER (WHERE table_name = 'public.kept'), count(*) FILTER (WHERE table_name = 'public.gone')
			FROM weir_catalog.event_log`).Scan(&kept, &gone); err != nil {
			t.Fatal(err)
		}
		var n int
		err = uc.QueryRow(ctx, "SELECT count(*) FROM event_log('kept')").Scan(&n)
		if kept == 0 {
			if !strings.Contains(fmt.Sprint(err), "permission denied for streaming table kept (SQLSTATE 42501)") {
				t.Errorf("%s: event_log('kept') without SELECT: %v", user, err)
			}
		} else if err != nil || n != kept {
			t.Errorf("%s: event_log('kept') has %d rows (%v), weir_catalog.event_log %d", user, n, err, kept)
		}
		return kept, gone
	}
	if k, g := count("plain"); k != 0 || g != 0 {
		t.Errorf("plain reads %d events of kept and %d of the dropped table without SELECT: want 0 and 0", k, g)
	}
	evExec(t, c, "GRANT SELECT ON kept TO plain")
	if k, g := count("plain"); k < 2 || g != 0 {
		t.Errorf("plain reads %d events of kept and %d of the dropped table: want >= 2 and 0", k, g)
	}
	if k, g := count("watcher"); k < 2 || g < 3 {
		t.Errorf("a pg_monitor member reads %d events of kept and %d of the dropped table: want >= 2 and >= 3", k, g)
	}
}

// TestEventLogRetention: past the row cap the oldest events go, and the
// trim leaves a retention_trim event saying how many.
func TestEventLogRetention(t *testing.T) {
	dir := t.TempDir()
	s := startServerWith(t, engine.Config{DataDir: dir, EventLogMaxRows: 5})
	c := s.connect(t)
	evExec(t, c, "CREATE TABLE e (k bigint)")
	for _, n := range []string{"a", "b", "c", "d"} {
		evExec(t, c, "CREATE STREAMING TABLE "+n+" AS SELECT k FROM e") // created, started
	}
	deleted := s.eng.TrimEventLog()
	evs, err := eventlog.Read(s.eng.Store(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if deleted != 3 || len(evs) > 6 || evs[len(evs)-1].Kind != eventlog.KindRetention {
		var kinds []string
		for _, ev := range evs {
			kinds = append(kinds, ev.Kind+":"+ev.Name)
		}
		t.Fatalf("trim deleted %d; left %v", deleted, kinds)
	}
	var n int
	if err := c.QueryRow(context.Background(), "SELECT (details->>'deleted_events')::int FROM weir_catalog.event_log WHERE event_type = 'retention_trim'").Scan(&n); err != nil || n != 3 {
		t.Errorf("retention_trim's deleted_events = %d (%v), want 3", n, err)
	}
	// By age: everything written before the cutoff goes.
	s.stop()
	s = startServerWith(t, engine.Config{DataDir: dir, EventLogRetention: time.Millisecond})
	time.Sleep(5 * time.Millisecond) // the age being tested, not a synchronisation
	if deleted := s.eng.TrimEventLog(); deleted < 5 {
		t.Errorf("age trim deleted %d events, want every old one (>= 5)", deleted)
	}
}

// TestEventLogFlows: a flow's events are its target's, with the flow's
// name; its batch history is its own rows of streaming_batches, gone with
// DROP FLOW.
func TestEventLogFlows(t *testing.T) {
	s := startServer(t, t.TempDir())
	c := s.connect(t)
	ctx := context.Background()
	evExec(t, c,
		"CREATE TABLE e (k bigint)",
		"CREATE OR REFRESH STREAMING TABLE tgt",
		"CREATE FLOW f1 AS INSERT INTO tgt BY NAME SELECT k FROM STREAM e",
		"INSERT INTO e VALUES (1), (2)")
	waitFor(t, c, "SELECT count(*) = 2 FROM tgt")
	waitFor(t, c, "SELECT count(*) > 0 FROM weir_catalog.streaming_batches WHERE name = 'tgt' AND flow = 'f1'")
	evExec(t, c, "DROP FLOW f1")
	got := strings.Join(eventTypes(t, c, "SELECT event_type || ':' || coalesce(flow_name, '-') FROM event_log('tgt') ORDER BY id::bigint"), " ")
	if want := "created:- created:f1 started:f1 dropped:f1"; got != want {
		t.Errorf("event_log('tgt'): %s, want %s", got, want)
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM weir_catalog.streaming_batches WHERE name = 'tgt'").Scan(&n); err != nil || n != 0 {
		t.Errorf("after DROP FLOW, streaming_batches has %d rows of tgt (%v)", n, err)
	}
}

// TestInputRetentionEvent: when input retention removes chunks of a
// table's log, the table's event log says how many.
func TestInputRetentionEvent(t *testing.T) {
	s := startServer(t, t.TempDir())
	c := s.connect(t)
	evExec(t, c,
		"CREATE TABLE e (k bigint) WITH (retention = '1 second')",
		"CREATE STREAMING TABLE cnt AS SELECT k FROM STREAM e", // stateless: a restart re-reads nothing
		"INSERT INTO e VALUES (1)",
		"INSERT INTO e VALUES (2)")
	waitConsumed(t, c, []string{"cnt"}, 2, 10*time.Second)
	// The retention loop runs every second; the chunks expire after one.
	waitFor(t, c, "SELECT count(*) > 0 FROM weir_catalog.event_log WHERE event_type = 'retention_trim' AND table_name = 'public.e'")
	var chunks int
	if err := c.QueryRow(context.Background(), "SELECT sum((details->>'deleted_chunks')::int) FROM weir_catalog.event_log WHERE event_type = 'retention_trim' AND table_name = 'public.e'").Scan(&chunks); err != nil || chunks < 1 || chunks > 2 {
		t.Errorf("retention_trim events of e delete %d chunks (%v), want 1 or 2", chunks, err)
	}
}

// TestEventLogPause: an epoch whose commit the store refuses pauses the
// table (paused, WARN, with the error), and the table resumes (resumed).
func TestEventLogPause(t *testing.T) {
	failpoint.Arm("epoch-commit-error:2")
	defer failpoint.Arm("")
	s := startServer(t, t.TempDir())
	c := s.connect(t)
	evExec(t, c,
		"CREATE TABLE t (k text, v int)",
		"CREATE STREAMING TABLE s AS SELECT k, count(*) AS n FROM t GROUP BY k",
		"INSERT INTO t VALUES ('a', 1)")
	waitFor(t, c, "SELECT count(*) = 1 FROM s")
	evExec(t, c, "INSERT INTO t VALUES ('a', 10)")
	waitFor(t, c, "SELECT n = 2 FROM s WHERE k = 'a'")
	got := strings.Join(eventTypes(t, c, "SELECT event_type || ':' || level || ':' || coalesce(error->>'sqlstate', '-') FROM event_log('s') ORDER BY id::bigint"), " ")
	if want := "created:INFO:- started:INFO:- paused:WARN:53100 resumed:INFO:-"; got != want {
		t.Errorf("event_log('s'): %s, want %s", got, want)
	}
}

// TestEventLogExpectations: the expectations events each micro-batch
// stages in its own commit are read through event_log('t') with the
// lifecycle events.
func TestEventLogExpectations(t *testing.T) {
	s := startServer(t, t.TempDir())
	c := s.connect(t)
	evExec(t, c,
		"CREATE TABLE e (k bigint)",
		"CREATE STREAMING TABLE pos (CONSTRAINT positive EXPECT (k > 0) ON VIOLATION DROP ROW) AS SELECT k FROM STREAM e",
		"INSERT INTO e VALUES (1), (-1), (2)")
	waitFor(t, c, "SELECT count(*) = 1 FROM event_log('pos') WHERE event_type = 'expectations'")
	var dropped int
	if err := c.QueryRow(context.Background(), "SELECT (details->'data_quality'->>'dropped_records')::int FROM event_log('pos') WHERE event_type = 'expectations'").Scan(&dropped); err != nil || dropped != 1 {
		t.Errorf("expectations event: dropped_records %d (%v), want 1", dropped, err)
	}
	got := strings.Join(eventTypes(t, c, "SELECT event_type FROM event_log('pos') ORDER BY id::bigint"), " ")
	if got != "created started expectations" {
		t.Errorf("event_log('pos'): %s", got)
	}
}
