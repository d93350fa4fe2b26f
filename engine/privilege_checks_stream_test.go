package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/engine"
)

// TestStreamingTableRunsAsOwner: a streaming table reads its input with
// its owner's privileges. CREATE without SELECT on the input is 42501;
// revoking the owner's SELECT (directly, or by taking away the group
// that held it) fails the running table with 42501 in
// streaming_progress, SHOW STREAMING TABLES and the event log; it stays
// failed, across a restart and a REFRESH, until the privilege is back
// and it is refreshed, and then it has every row.
func TestStreamingTableRunsAsOwner(t *testing.T) {
	dir := t.TempDir()
	w := startServer(t, dir)
	su := w.connect(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE ROLE stowner LOGIN",
		"CREATE ROLE readers",
		"CREATE SCHEMA os AUTHORIZATION stowner",
		"CREATE TABLE ev (k bigint, secret text)",
		"INSERT INTO ev VALUES (1, 'a')",
	} {
		mustExec(t, su, q)
	}
	owner, err := connectAs(t, w.url(), "stowner", "")
	if err != nil {
		t.Fatal(err)
	}
	create := "CREATE STREAMING TABLE os.st AS SELECT k FROM ev"
	if _, err := owner.Exec(ctx, create); !strings.Contains(errOutcome(err), "42501 permission denied for table ev") {
		t.Fatalf("CREATE without SELECT on the input: %s", errOutcome(err))
	}
	// Column privileges are enough for the columns the query reads.
	mustExec(t, su, "GRANT SELECT (k) ON ev TO stowner")
	mustExec(t, owner, create)
	waitFor(t, su, "SELECT count(*) = 1 FROM os.st")

	status := func() string {
		var st, last, shown string
		if err := su.QueryRow(ctx, "SELECT status, coalesce(last_error, '') FROM weir_catalog.streaming_progress WHERE name = 'st'").Scan(&st, &last); err != nil {
			t.Fatal(err)
		}
		rows := textRowsOf(t, su, "SHOW STREAMING TABLES")
		for _, r := range rows {
			if strings.Contains(r, "st") {
				shown = r
			}
		}
		return st + ": " + last + " / " + shown
	}
	waitFailed := func(why string) {
		t.Helper()
		waitUntil(t, why, func() (bool, string) {
			s := status()
			// The reason in streaming_progress, the status in SHOW STREAMING TABLES too.
			return strings.HasPrefix(s, "failed: permission denied for table ev /") && strings.Contains(s, "|failed|"), s
		})
	}

	// Revoked: the next epoch fails the table.
	mustExec(t, su, "REVOKE SELECT (k) ON ev FROM stowner")
	mustExec(t, su, "INSERT INTO ev VALUES (2, 'b')")
	waitFailed("the table failing after REVOKE")
	waitFor(t, su, "SELECT count(*) > 0 FROM event_log('os.st') WHERE event_type = 'failed' AND message LIKE '%permission denied for table ev%'")
	if _, err := su.Exec(ctx, "REFRESH STREAMING TABLE os.st"); !strings.Contains(errOutcome(err), "permission denied for table ev") {
		t.Errorf("REFRESH without the privilege: %s", errOutcome(err))
	}

	// Held through a group: back with the group, refreshed, every row.
	mustExec(t, su, "GRANT SELECT ON ev TO readers")
	mustExec(t, su, "GRANT readers TO stowner")
	if s := status(); !strings.HasPrefix(s, "failed") {
		t.Errorf("the privilege came back, but before REFRESH the table is %s", s)
	}
	mustExec(t, su, "REFRESH STREAMING TABLE os.st")
	waitFor(t, su, "SELECT count(*) = 2 FROM os.st")
	if s := status(); !strings.HasPrefix(s, "running") {
		t.Errorf("after REFRESH: %s", s)
	}

	// Losing the group fails it again; a restart keeps it failed.
	mustExec(t, su, "REVOKE readers FROM stowner")
	mustExec(t, su, "INSERT INTO ev VALUES (3, 'c')")
	waitFailed("the table failing after the membership went")
	w.stop()
	w = startServer(t, dir)
	su = w.connect(t)
	waitFailed("the table failed after a restart")
	mustExec(t, su, "GRANT readers TO stowner")
	mustExec(t, su, "REFRESH STREAMING TABLE os.st")
	waitFor(t, su, "SELECT count(*) = 3 FROM os.st")

	// SUBSCRIBE needs SELECT on the table, as a SELECT would.
	mustExec(t, su, "CREATE ROLE peeker LOGIN")
	mustExec(t, su, "CREATE STREAMING TABLE pubst AS SELECT k FROM ev")
	peek, err := connectAs(t, w.url(), "peeker", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := peek.Exec(ctx, "SUBSCRIBE TO os.st", pgx.QueryExecModeSimpleProtocol); !strings.Contains(errOutcome(err), "42501 permission denied for schema os") {
		t.Errorf("SUBSCRIBE without USAGE on the schema: %s", errOutcome(err))
	}
	if _, err := peek.Exec(ctx, "SELECT * FROM os.st"); !strings.Contains(errOutcome(err), "42501 permission denied for schema os") {
		t.Errorf("SELECT without USAGE on the schema: %s", errOutcome(err))
	}
	if _, err := peek.Exec(ctx, "SUBSCRIBE TO pubst", pgx.QueryExecModeSimpleProtocol); errOutcome(err) != "42501 permission denied for streaming table pubst" {
		t.Errorf("SUBSCRIBE without SELECT: %s", errOutcome(err))
	}
	if _, err := peek.Exec(ctx, "SELECT count(*) FROM pubst"); errOutcome(err) != "42501 permission denied for streaming table pubst" {
		t.Errorf("SELECT without SELECT: %s", errOutcome(err))
	}
	// Progress: only of tables it may SELECT, or of all as pg_monitor.
	progress := func() string {
		return strings.Join(textRows(t, peek, "SELECT name FROM weir_catalog.streaming_progress ORDER BY name"), ",")
	}
	if got := progress(); got != "" {
		t.Errorf("streaming_progress without SELECT: %q", got)
	}
	mustExec(t, su, "GRANT SELECT ON pubst TO peeker")
	if got := progress(); got != "pubst" {
		t.Errorf("streaming_progress with SELECT on pubst: %q", got)
	}
	mustExec(t, su, "GRANT pg_monitor TO peeker")
	if got := progress(); got != "pubst,st" {
		t.Errorf("streaming_progress as pg_monitor: %q", got)
	}
}

// TestFlowsAndSinksRunAsOwner: CREATE FLOW (append and ONCE) and CREATE
// SINK need SELECT on what they read, as their creator; an append flow
// runs as its target's owner and fails with 42501 when that owner loses
// SELECT on its input; a sink, owned by its creator, fails (its table
// runs on) when its owner loses SELECT on its table, and a REFRESH with
// the privilege back reopens it.
func TestFlowsAndSinksRunAsOwner(t *testing.T) {
	root := t.TempDir()
	w := startServerWith(t, engine.Config{DataDir: t.TempDir(), FilesRoots: []string{root}})
	su := w.connect(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE ROLE flowuser LOGIN",
		"GRANT pg_write_server_files TO flowuser",
		"CREATE SCHEMA fs AUTHORIZATION flowuser",
		"CREATE TABLE src (k bigint)",
		"INSERT INTO src VALUES (1)",
		"CREATE STREAMING TABLE pub AS SELECT k FROM src",
	} {
		mustExec(t, su, q)
	}
	u, err := connectAs(t, w.url(), "flowuser", "")
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, u, "CREATE OR REFRESH STREAMING TABLE fs.tgt")
	for _, q := range []string{
		"CREATE FLOW f1 AS INSERT INTO fs.tgt BY NAME SELECT k FROM STREAM src",
		"CREATE FLOW f2 AS INSERT INTO ONCE fs.tgt BY NAME SELECT k FROM src",
	} {
		if _, err := u.Exec(ctx, q); errOutcome(err) != "42501 permission denied for table src" {
			t.Errorf("%s without SELECT: %s", q, errOutcome(err))
		}
	}
	sink := "CREATE SINK fs.out FROM pub WITH (connector = 'files', path = '" + root + "/out', format = 'json')"
	if _, err := u.Exec(ctx, sink); errOutcome(err) != "42501 permission denied for streaming table pub" {
		t.Errorf("CREATE SINK without SELECT: %s", errOutcome(err))
	}
	sinkState := func() string {
		return strings.Join(textRowsOf(t, su, "SHOW SINKS"), ",")
	}
	mustExec(t, su, "GRANT SELECT ON pub TO flowuser")
	mustExec(t, u, sink)
	mustExec(t, su, "INSERT INTO src VALUES (10)")
	waitUntil(t, "the sink running", func() (bool, string) {
		s := sinkState()
		return strings.Contains(s, "|running|1") || strings.Contains(s, "|running|2"), s
	})
	mustExec(t, su, "REVOKE SELECT ON pub FROM flowuser")
	mustExec(t, su, "INSERT INTO src VALUES (11)")
	waitUntil(t, "the sink failing after REVOKE", func() (bool, string) {
		s := sinkState()
		return strings.Contains(s, "|failed|") && strings.Contains(s, "permission denied for streaming table pub"), s
	})
	waitFor(t, su, "SELECT count(*) = 3 FROM pub") // the table runs on
	mustExec(t, su, "GRANT SELECT ON pub TO flowuser")
	mustExec(t, su, "REFRESH STREAMING TABLE pub")
	waitUntil(t, "the sink running again", func() (bool, string) {
		s := sinkState()
		return strings.Contains(s, "|running|"), s
	})

	mustExec(t, su, "GRANT SELECT ON src TO flowuser")
	mustExec(t, u, "CREATE FLOW f1 AS INSERT INTO fs.tgt BY NAME SELECT k FROM STREAM src")
	waitFor(t, su, "SELECT count(*) = 3 FROM fs.tgt")
	mustExec(t, su, "REVOKE SELECT ON src FROM flowuser")
	mustExec(t, su, "INSERT INTO src VALUES (2)")
	waitUntil(t, "the flow failing after REVOKE", func() (bool, string) {
		rows := strings.Join(textRows(t, su, "SELECT status || ': ' || coalesce(last_error, '') FROM weir_catalog.streaming_progress WHERE name = 'tgt'"), ",")
		return rows == "failed: permission denied for table src", rows
	})
}
