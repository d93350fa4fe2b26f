package main

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

// AUTO CDC flows (SCD types 1 and 2) through kill -9s of the real binary
// while changes stream in out of sequence order: after the last restart
// each target equals what PostgreSQL's batch SQL computes from the feed
// weir kept (0 rows missing, 0 extra), so the per-key state checkpointed
// with each epoch neither lost nor applied a change twice.

const cdcCrashDDL = `CREATE TABLE feed (k int, v int, op text, seq bigint);
	CREATE OR REFRESH STREAMING TABLE cdc1;
	CREATE FLOW cdc1_flow AS AUTO CDC INTO cdc1 FROM STREAM(feed) KEYS (k)
	  APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq COLUMNS * EXCEPT (op, seq) STORED AS SCD TYPE 1;
	CREATE OR REFRESH STREAMING TABLE cdc2;
	CREATE FLOW cdc2_flow AS AUTO CDC INTO cdc2 FROM STREAM(feed) KEYS (k)
	  APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq COLUMNS * EXCEPT (op, seq) STORED AS SCD TYPE 2;
	CREATE STREAMING TABLE cdc1_groups AS SELECT k % 3 AS g, count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi FROM STREAM cdc1 GROUP BY k % 3;
	CREATE STREAMING TABLE cdc2_versions AS SELECT k, count(*) AS versions, count(__end_at) AS closed, max(v) AS hi FROM STREAM cdc2 GROUP BY k`

// The SCD2 oracle needs no rule for no-op updates: every change's v is
// unique, so none repeats the one before it.
var cdcCrashOracles = map[string]string{
	"SELECT k, v FROM cdc1": `SELECT k, v FROM (SELECT DISTINCT ON (k) k, v, op FROM feed ORDER BY k, seq DESC) x WHERE op <> 'D'`,
	"SELECT k, v, __start_at, __end_at FROM cdc2": `SELECT k, v, s, e FROM (SELECT k, v, op, seq AS s,
		lead(seq) OVER (PARTITION BY k ORDER BY seq) AS e FROM feed) x WHERE op <> 'D'`,
	// Streaming tables reading the targets' changes (their change logs).
	"SELECT g, n, s, lo, hi FROM cdc1_groups":           `SELECT k % 3, count(*), sum(v), min(v), max(v) FROM (SELECT DISTINCT ON (k) k, v, op FROM feed ORDER BY k, seq DESC) x WHERE op <> 'D' GROUP BY k % 3`,
	"SELECT k, versions, closed, hi FROM cdc2_versions": `SELECT k, count(*), count(e), max(v) FROM (SELECT k, v, op, lead(seq) OVER (PARTITION BY k ORDER BY seq) AS e FROM feed) x WHERE op <> 'D' GROUP BY k`,
}

func TestAutoCDCAfterKill(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	for kill := 0; kill < 5; kill++ {
		s, err := startOn(t, dir)
		if err != nil {
			t.Fatal(err)
		}
		c := s.connect(t)
		if kill == 0 {
			if _, err := c.Exec(ctx, cdcCrashDDL); err != nil {
				t.Fatal(err)
			}
		}
		var before int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM feed").Scan(&before); err != nil {
			t.Fatal(err)
		}
		go func(first int) {
			for i := first; ; i++ {
				// Keys 0..10, sequences a permutation (out of order), every
				// fifth change a delete.
				op := "U"
				if i%5 == 0 {
					op = "D"
				}
				op2 := "U"
				if i%7 == 0 {
					op2 = "D"
				}
				q := fmt.Sprintf("INSERT INTO feed VALUES (%d, %d, '%s', %d), (%d, %d, '%s', %d)",
					i%11, i, op, (i*7919)%100003, (i*3)%11, -i, op2, (i*104729)%1000003+200000)
				if _, err := c.Exec(ctx, q); err != nil {
					return // the kill
				}
			}
		}(kill * 10000)
		// Kill once some changes are in, at a different count each time.
		deadline := time.Now().Add(30 * time.Second)
		for {
			probe := s.connect(t)
			var n int64
			err := probe.QueryRow(ctx, "SELECT count(*) FROM feed").Scan(&n)
			probe.Close(ctx)
			if err == nil && n >= before+int64(40+kill*37) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("kill %d: no changes within 30s (%v)", kill, err)
			}
			time.Sleep(5 * time.Millisecond) // polling interval, with a deadline
		}
		s.cmd.Process.Signal(syscall.SIGKILL)
		<-s.exited
	}
	s, err := startOn(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.stop(t)
	c := s.connect(t)
	defer c.Close(ctx)
	for _, tbl := range []string{"cdc1", "cdc2", "cdc1_groups", "cdc2_versions"} {
		if _, err := c.Exec(ctx, "REFRESH STREAMING TABLE "+tbl); err != nil {
			t.Fatalf("REFRESH %s: %v\n%s", tbl, err, s.log)
		}
	}
	rows, err := c.Query(ctx, "SELECT k, v, op, seq FROM feed")
	if err != nil {
		t.Fatal(err)
	}
	var input [][]any
	for rows.Next() {
		var k, v int32
		var op string
		var seq int64
		if err := rows.Scan(&k, &v, &op, &seq); err != nil {
			t.Fatal(err)
		}
		input = append(input, []any{k, v, op, seq})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	pg, err := pgx.Connect(ctx, pgtest.Shared(t).FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	if _, err := pg.Exec(ctx, "CREATE TABLE feed (k int, v int, op text, seq bigint)"); err != nil {
		t.Fatal(err)
	}
	if _, err := pg.CopyFrom(ctx, pgx.Identifier{"feed"}, []string{"k", "v", "op", "seq"}, pgx.CopyFromRows(input)); err != nil {
		t.Fatal(err)
	}
	for q, oracle := range cdcCrashOracles {
		got, want := textRows(t, ctx, c, q), textRows(t, ctx, pg, oracle)
		if missing, extra := diffRows(want, got); len(missing)+len(extra) > 0 {
			t.Fatalf("%s differs from PostgreSQL over the same %d changes: %d rows missing, %d extra\nmissing: %v\nextra: %v",
				q, len(input), len(missing), len(extra), head(missing), head(extra))
		}
		t.Logf("%s: %d rows over %d changes through 5 kills, equal to PostgreSQL", q, len(got), len(input))
	}
}
