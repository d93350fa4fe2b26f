package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
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
	CREATE STREAMING TABLE cdc2_versions AS SELECT k, count(*) AS versions, count(__end_at) AS closed, max(v) AS hi FROM STREAM cdc2 GROUP BY k;
	CREATE STREAMING TABLE cdc_join AS SELECT a.k, a.v AS v1, b.v AS v2 FROM STREAM cdc1 a JOIN STREAM cdc2 b ON a.k = b.k AND b.__end_at IS NULL`

// The SCD2 oracle needs no rule for no-op updates: every change's v is
// unique, so none repeats the one before it.
var cdcCrashOracles = map[string]string{
	"SELECT k, v FROM cdc1": `SELECT k, v FROM (SELECT DISTINCT ON (k) k, v, op FROM feed ORDER BY k, seq DESC) x WHERE op <> 'D'`,
	"SELECT k, v, __start_at, __end_at FROM cdc2": `SELECT k, v, s, e FROM (SELECT k, v, op, seq AS s,
		lead(seq) OVER (PARTITION BY k ORDER BY seq) AS e FROM feed) x WHERE op <> 'D'`,
	// Streaming tables reading the targets' changes (their change logs).
	"SELECT g, n, s, lo, hi FROM cdc1_groups":           `SELECT k % 3, count(*), sum(v), min(v), max(v) FROM (SELECT DISTINCT ON (k) k, v, op FROM feed ORDER BY k, seq DESC) x WHERE op <> 'D' GROUP BY k % 3`,
	"SELECT k, versions, closed, hi FROM cdc2_versions": `SELECT k, count(*), count(e), max(v) FROM (SELECT k, v, op, lead(seq) OVER (PARTITION BY k ORDER BY seq) AS e FROM feed) x WHERE op <> 'D' GROUP BY k`,
	"SELECT k, v1, v2 FROM cdc_join": `SELECT a.k, a.v, b.v FROM (SELECT DISTINCT ON (k) k, v, op FROM feed ORDER BY k, seq DESC) a
		JOIN (SELECT k, v FROM (SELECT k, v, op, lead(seq) OVER (PARTITION BY k ORDER BY seq) AS e FROM feed) x WHERE op <> 'D' AND e IS NULL) b ON a.k = b.k WHERE a.op <> 'D'`,
}

func TestAutoCDCAfterKill(t *testing.T) {
	cdcKills(t, "k int, v int, op text, seq bigint", cdcCrashDDL, "", cdcCrashOracles, func(i int) string {
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
		return fmt.Sprintf("INSERT INTO feed VALUES (%d, %d, '%s', %d), (%d, %d, '%s', %d)",
			i%11, i, op, (i*7919)%100003, (i*3)%11, -i, op2, (i*104729)%1000003+200000)
	})
}

// The clauses too: TRUNCATE WHEN and IGNORE NULL UPDATES (SCD1), TRACK
// HISTORY ON and IGNORE NULL UPDATES ON (SCD2), their state the flows'
// checkpointed query state; PostgreSQL applies the feed weir kept in
// sequence order (cdcApplySQL).
const cdcClausesCrashDDL = `CREATE TABLE feed (k int, v text, n bigint, op text, seq bigint);
	CREATE OR REFRESH STREAMING TABLE cdc3;
	CREATE FLOW cdc3_flow AS AUTO CDC INTO cdc3 FROM STREAM(feed) KEYS (k) IGNORE NULL UPDATES
	  APPLY AS DELETE WHEN op = 'D' APPLY AS TRUNCATE WHEN op = 'T' SEQUENCE BY seq COLUMNS k, v, n STORED AS SCD TYPE 1;
	CREATE OR REFRESH STREAMING TABLE cdc4;
	CREATE FLOW cdc4_flow AS AUTO CDC INTO cdc4 FROM STREAM(feed) KEYS (k) IGNORE NULL UPDATES ON (n)
	  APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq COLUMNS k, v, n STORED AS SCD TYPE 2 TRACK HISTORY ON (v)`

// cdcApplySQL is the oracle's PostgreSQL functions, shared with the
// engine's oracle test (testdata/autocdc).
func cdcApplySQL(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/autocdc/apply_oracle.sql")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAutoCDCClausesAfterKill(t *testing.T) {
	oracles := map[string]string{
		"SELECT k, v, n FROM cdc3":                       "SELECT * FROM scd1(true, true, true)",
		"SELECT k, v, n, __start_at, __end_at FROM cdc4": "SELECT * FROM scd2(false, true, true, false)",
	}
	cdcKills(t, "k int, v text, n bigint, op text, seq bigint", cdcClausesCrashDDL, cdcApplySQL(t), oracles, func(i int) string {
		// Keys 0..10 (a truncate's NULL), sequences a permutation, every
		// fifth change a delete, every 23rd a truncate, NULLs in v and n.
		row := func(i, k, seq int) string {
			op, key, v, n := "U", fmt.Sprint(k), fmt.Sprintf("'v%d'", i%4), fmt.Sprint(i%3)
			switch {
			case i%23 == 0:
				op, key = "T", "NULL"
			case i%5 == 0:
				op = "D"
			}
			if i%3 == 1 {
				v = "NULL"
			}
			if i%4 == 2 {
				n = "NULL"
			}
			return fmt.Sprintf("(%s, %s, %s, '%s', %d)", key, v, n, op, seq)
		}
		return "INSERT INTO feed VALUES " + row(i, i%11, (i*7919)%100003) + ", " + row(i+1, (i*3)%11, (i*104729)%1000003+200000)
	})
}

// cdcKills runs ddl in a real weir, streams changes (change(i), the i-th
// insert) into table feed (its columns cols) and kills the binary five
// times mid-stream; after the last restart each query of oracles must
// give what its oracle gives in PostgreSQL (after pgSetup) over the feed
// weir kept.
func cdcKills(t *testing.T, cols, ddl, pgSetup string, oracles map[string]string, change func(i int) string) {
	dir := t.TempDir()
	ctx := context.Background()
	for kill := 0; kill < 5; kill++ {
		s, err := startOn(t, dir)
		if err != nil {
			t.Fatal(err)
		}
		c := s.connect(t)
		if kill == 0 {
			if _, err := c.Exec(ctx, ddl); err != nil {
				t.Fatal(err)
			}
		}
		var before int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM feed").Scan(&before); err != nil {
			t.Fatal(err)
		}
		go func(first int) {
			for i := first; ; i++ {
				if _, err := c.Exec(ctx, change(i)); err != nil {
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
	var names []string
	// The targets first, then the streaming tables that read their
	// changes (named after them): a reader's REFRESH waits for the input
	// its upstream holds when it starts.
	var tables []string
	for q := range oracles {
		tables = append(tables, q[strings.LastIndex(q, " ")+1:])
	}
	slices.SortFunc(tables, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	for _, tbl := range tables {
		if _, err := c.Exec(ctx, "REFRESH STREAMING TABLE "+tbl); err != nil {
			t.Fatalf("REFRESH %s: %v\n%s", tbl, err, s.log)
		}
	}
	rows, err := c.Query(ctx, "SELECT * FROM feed")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rows.FieldDescriptions() {
		names = append(names, f.Name)
	}
	var input [][]any
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		input = append(input, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	pg, err := pgx.Connect(ctx, pgtest.Shared(t).FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	if _, err := pg.Exec(ctx, "CREATE TABLE feed ("+cols+");"+pgSetup); err != nil {
		t.Fatal(err)
	}
	if _, err := pg.CopyFrom(ctx, pgx.Identifier{"feed"}, names, pgx.CopyFromRows(input)); err != nil {
		t.Fatal(err)
	}
	for q, oracle := range oracles {
		got, want := textRows(t, ctx, c, q), textRows(t, ctx, pg, oracle)
		if missing, extra := diffRows(want, got); len(missing)+len(extra) > 0 {
			t.Fatalf("%s differs from PostgreSQL over the same %d changes: %d rows missing, %d extra\nmissing: %v\nextra: %v",
				q, len(input), len(missing), len(extra), head(missing), head(extra))
		}
		t.Logf("%s: %d rows over %d changes through 5 kills, equal to PostgreSQL", q, len(got), len(input))
	}
}
