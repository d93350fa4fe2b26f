package main

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

// Two append flows into one streaming table through TestNoDamageAfterKill's
// kills: each flow's checkpoint recovers on its own, and the target holds
// the batch UNION ALL of the two flows' queries over the input weir kept,
// as PostgreSQL computes it (0 rows missing, 0 extra).

// flowsDDL is the target and its flows, created with the kill test's
// tables (ev (k, v)); the flows' filters overlap at k = 2, so that a row
// there is in the target twice, once per flow.
const flowsDDL = `CREATE OR REFRESH STREAMING TABLE ev_all;
	CREATE FLOW ev_low AS INSERT INTO ev_all BY NAME SELECT k, v FROM STREAM ev WHERE k < 3;
	CREATE FLOW ev_high AS INSERT INTO ev_all BY NAME SELECT v, k FROM STREAM ev WHERE k >= 2`

const flowsOracle = `SELECT k, v FROM ev WHERE k < 3 UNION ALL SELECT k, v FROM ev WHERE k >= 2`

// checkFlowsAfterKills starts the server on dir once more, waits until
// both flows have read all of ev, and compares ev_all with PostgreSQL.
func checkFlowsAfterKills(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	s, err := startOn(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		s.cmd.Process.Signal(syscall.SIGTERM)
		<-s.exited
	}()
	c := s.connect(t)
	defer c.Close(ctx)
	var total int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM ev").Scan(&total); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		var flows, behind int
		err := c.QueryRow(ctx, "SELECT count(*), count(*) FILTER (WHERE input_rows <> $1 OR backlog_rows <> 0 OR status <> 'running') FROM weir_catalog.streaming_progress WHERE name = 'ev_all'", total).Scan(&flows, &behind)
		if err != nil {
			t.Fatal(err)
		}
		if flows != 2 {
			t.Fatalf("ev_all has %d flows in streaming_progress, want 2", flows)
		}
		if behind == 0 {
			break
		}
		if time.Now().After(deadline) {
			var report string
			c.QueryRow(ctx, "SELECT string_agg(flow || ':' || status || ':' || input_rows || ':' || coalesce(last_error, ''), ', ') FROM weir_catalog.streaming_progress WHERE name = 'ev_all'").Scan(&report)
			t.Fatalf("the flows of ev_all did not catch up with %d rows: %s", total, report)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, with a deadline
	}
	rows, err := c.Query(ctx, "SELECT k, v FROM ev")
	if err != nil {
		t.Fatal(err)
	}
	var input [][]any
	for rows.Next() {
		var k, v int32
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		input = append(input, []any{k, v})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	pg, err := pgx.Connect(ctx, pgtest.Shared(t).FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	if _, err := pg.Exec(ctx, "CREATE TABLE ev (k int, v int)"); err != nil {
		t.Fatal(err)
	}
	if _, err := pg.CopyFrom(ctx, pgx.Identifier{"ev"}, []string{"k", "v"}, pgx.CopyFromRows(input)); err != nil {
		t.Fatal(err)
	}
	got := textRows(t, ctx, c, "SELECT k, v FROM ev_all")
	want := textRows(t, ctx, pg, flowsOracle)
	if missing, extra := diffRows(want, got); len(missing)+len(extra) > 0 {
		t.Fatalf("ev_all differs from PostgreSQL's UNION ALL over the same %d input rows: %d rows missing, %d extra\nmissing: %v\nextra: %v",
			total, len(missing), len(extra), head(missing), head(extra))
	}
	if len(want) == 0 {
		t.Fatalf("no rows reached the flows (%s)", filepath.Base(dir))
	}
	t.Logf("ev_all: %d rows from two flows over %d input rows, equal to PostgreSQL's UNION ALL", len(got), total)
}
