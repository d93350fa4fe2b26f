package engine_test

// AUTO CDC's TRUNCATE WHEN, IGNORE NULL UPDATES and TRACK HISTORY ON
// against PostgreSQL 15: a random change feed (NULLs in its values, a
// truncate now and then, its changes out of sequence order and spread
// over many epochs) goes into weir's flows and into PostgreSQL, which
// applies the feed so far in sequence order, one change at a time, as a
// MERGE would (cdcApplySQL: INSERT ... ON CONFLICT with coalesce for the
// NULL-ignoring columns, DELETE, DELETE of all rows for a truncate; for
// SCD type 2, closing the current version when a tracked column changes
// and updating it in place otherwise). After every epoch the targets must
// be equal.

import (
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/weir-sql/weir/internal/pgtest"
)

// cdcApplySQL is the oracle's PostgreSQL functions (testdata/autocdc).
func cdcApplySQL(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../testdata/autocdc/apply_oracle.sql")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAutoCDCClausesOracle(t *testing.T) {
	pg := pgConnFresh(t, pgtest.Shared(t))
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	feedDDL := "CREATE TABLE feed (k int, v text, n bigint, op text, seq bigint)"
	execAll(t, pg, feedDDL, cdcApplySQL(t))
	execAll(t, c, feedDDL)
	flow := func(name, clauses string) string {
		return "CREATE FLOW " + name + "_flow AS AUTO CDC INTO " + name + " FROM STREAM(feed) KEYS (k) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq COLUMNS k, v, n " + clauses
	}
	targets := []struct{ name, clauses, oracle, order string }{
		{"trunc_nulls", "IGNORE NULL UPDATES APPLY AS TRUNCATE WHEN op = 'T'", "scd1(true, true, true)", "k"},
		{"nulls_v", "IGNORE NULL UPDATES ON (v)", "scd1(true, false, false)", "k"},
		{"trunc", "APPLY AS TRUNCATE WHEN op = 'T' STORED AS SCD TYPE 1", "scd1(false, false, true)", "k"},
		{"track_v", "STORED AS SCD TYPE 2 TRACK HISTORY ON (v)", "scd2(false, false, true, false)", "k, __start_at"},
		{"track_n_nulls_v", "IGNORE NULL UPDATES ON * EXCEPT (n) STORED AS SCD TYPE 2 TRACK HISTORY ON * EXCEPT (v)", "scd2(true, false, false, true)", "k, __start_at"},
		{"nulls_scd2", "IGNORE NULL UPDATES STORED AS SCD TYPE 2", "scd2(true, true, true, true)", "k, __start_at"},
	}
	for _, tg := range targets {
		execAll(t, c, "CREATE OR REFRESH STREAMING TABLE "+tg.name, flow(tg.name, tg.clauses))
	}
	rng := rand.New(rand.NewSource(15))
	const changes, batch = 480, 40
	seqs := rng.Perm(changes) // unique sequence numbers, out of order
	for b := 0; b*batch < changes; b++ {
		var vals []string
		for i := b * batch; i < (b+1)*batch; i++ {
			op := []string{"I", "U", "U", "U", "D"}[rng.Intn(5)]
			k, v, n := fmt.Sprint(rng.Intn(15)), fmt.Sprintf("'v%d'", rng.Intn(3)), fmt.Sprint(rng.Intn(3))
			if rng.Intn(3) == 0 {
				v = "NULL"
			}
			if rng.Intn(3) == 0 {
				n = "NULL"
			}
			if rng.Intn(40) == 0 {
				op, k, v, n = "T", "NULL", "NULL", "NULL" // as Databricks' example writes a truncate
			}
			vals = append(vals, fmt.Sprintf("(%s, %s, %s, '%s', %d)", k, v, n, op, seqs[i]))
		}
		ins := "INSERT INTO feed VALUES " + strings.Join(vals, ", ")
		execAll(t, c, ins)
		execAll(t, pg, ins)
		for _, tg := range targets {
			execAll(t, c, "REFRESH STREAMING TABLE "+tg.name)
			if got, want := queryLines(t, c, "SELECT * FROM "+tg.name+" ORDER BY "+tg.order), queryLines(t, pg, "SELECT * FROM "+tg.oracle); got != want {
				t.Fatalf("epoch %d: %s (%s):\n%s\nPostgreSQL, applying the feed in sequence order:\n%s", b, tg.name, tg.clauses, got, want)
			}
		}
	}
	// The clauses changed the outcome: the feed exercises them.
	for with, without := range map[string]string{
		"scd1(true, true, true)": "scd1(false, false, false)", "scd1(true, false, false)": "scd1(false, false, false)",
		"scd1(false, false, true)": "scd1(false, false, false)", "scd2(false, false, true, false)": "scd2(false, false, true, true)",
		"scd2(true, false, false, true)": "scd2(false, false, true, true)", "scd2(true, true, true, true)": "scd2(false, false, true, true)",
	} {
		if queryLines(t, pg, "SELECT * FROM "+with) == queryLines(t, pg, "SELECT * FROM "+without) {
			t.Errorf("%s gives what %s does: the feed does not exercise the clause", with, without)
		}
	}
}

// TRUNCATE WHEN and IGNORE NULL UPDATES with SEQUENCE BY struct(ts, n):
// the truncate's sequence compares field by field, as PostgreSQL compares
// ROW(ts, n).
func TestAutoCDCClausesStructSequence(t *testing.T) {
	pg := pgConnFresh(t, pgtest.Shared(t))
	srv := startServer(t, t.TempDir())
	c := srv.connect(t)
	feed := []string{"CREATE TABLE f (k int, v text, ts bigint, n int, op text)",
		"INSERT INTO f VALUES (1,'a',1,1,'U'), (1,'b',1,2,'U'), (1,'c',0,9,'U'), (2,'x',5,0,'U'), (2,'y',5,1,'D'), (3,'p',2,2,'U'), (3,'q',2,1,'U'), (NULL,NULL,1,5,'T'), (4,'z',0,1,'U'), (5,'w',1,6,'U')"}
	execAll(t, c, feed...)
	execAll(t, pg, feed...)
	execAll(t, c, "CREATE OR REFRESH STREAMING TABLE t",
		"CREATE FLOW tf AS AUTO CDC INTO t FROM STREAM(f) KEYS (k) APPLY AS DELETE WHEN op = 'D' APPLY AS TRUNCATE WHEN op = 'T' SEQUENCE BY struct(ts, n) COLUMNS k, v",
		"REFRESH STREAMING TABLE t")
	want := queryLines(t, pg, `SELECT k, v FROM (SELECT DISTINCT ON (k) k, v, op, ts, n FROM f WHERE k IS NOT NULL ORDER BY k, ts DESC, n DESC) x
		WHERE op <> 'D' AND ROW(ts, n) > (SELECT ts, n FROM f WHERE op = 'T' ORDER BY ts DESC, n DESC LIMIT 1) ORDER BY k`)
	if got := queryLines(t, c, "SELECT * FROM t ORDER BY k"); got != want || want != "3|p\n5|w" {
		t.Errorf("SCD1 with a truncate at (1,5):\n%s\nPostgreSQL:\n%s", got, want)
	}
}
