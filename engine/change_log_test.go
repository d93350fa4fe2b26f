package engine_test

// TestChangelogReadAsStream reads an AUTO CDC target (an update-mode
// streaming table) as a stream from other streaming tables: filters and
// projections pass its inserts and deletes, aggregates subtract (count,
// sum, avg) and fall back to the next extreme (min, max), a join with a
// static table passes them. PostgreSQL is the oracle: the same feed's
// current rows per key (the change with the highest sequence, unless a
// delete), and the same queries over them as batch SQL, compared after
// every micro-batch of changes.

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

func TestChangelogReadAsStream(t *testing.T) {
	seed := time.Now().UnixNano() % 1_000_000_000
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	w, pgConn := weirAndOracle(t) // oracle_wait_test.go
	for _, c := range []*pgx.Conn{w, pgConn} {
		sdExec(t, c, "setup", "CREATE TABLE feed (id bigint, k text, v bigint, op text, seq bigint)")
		sdExec(t, c, "setup", "CREATE TABLE names (k text, label text)")
		sdExec(t, c, "setup", "INSERT INTO names VALUES ('a', 'alpha'), ('b', 'beta'), ('c', 'gamma')")
		sdExec(t, c, "setup", "CREATE TABLE dfeed (k text, label text, w bigint, op text, seq bigint)")
	}
	sdExec(t, w, "weir", "CREATE STREAMING TABLE dims")
	sdExec(t, w, "weir", "CREATE FLOW dims_flow AS AUTO CDC INTO dims FROM STREAM(dfeed) KEYS (k) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq COLUMNS * EXCEPT (op, seq) STORED AS SCD TYPE 1")
	sdExec(t, pgConn, "PostgreSQL", "CREATE VIEW dims AS SELECT k, label, w FROM (SELECT DISTINCT ON (k) k, label, w, op FROM dfeed ORDER BY k, seq DESC) x WHERE op <> 'D'")
	sdExec(t, w, "weir", "CREATE STREAMING TABLE cur")
	sdExec(t, w, "weir", "CREATE FLOW cur_flow AS AUTO CDC INTO cur FROM STREAM(feed) KEYS (id) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq COLUMNS * EXCEPT (op, seq) STORED AS SCD TYPE 1")
	// PostgreSQL's current rows of the feed.
	sdExec(t, pgConn, "PostgreSQL", "CREATE VIEW cur AS SELECT id, k, v FROM (SELECT DISTINCT ON (id) id, k, v, op FROM feed ORDER BY id, seq DESC) x WHERE op <> 'D'")
	tables := []struct{ name, query string }{
		{"cl_per_k", "SELECT k, count(*) AS n, sum(v) AS s, avg(v) AS a, min(v) AS lo, max(v) AS hi FROM %s GROUP BY k"},
		{"cl_total", "SELECT count(*) AS n, sum(v) AS s, max(v) AS hi, min(id) AS first_id FROM %s"},
		{"cl_big", "SELECT id, v * 2 AS v2, upper(k) AS k FROM %s WHERE v >= 500"},
		{"cl_labels", "SELECT c.id, n.label, c.v FROM %s JOIN names n ON n.k = c.k"},
		{"cl_having", "SELECT v %% 7 AS r, count(*) AS n FROM %s GROUP BY v %% 7 HAVING count(*) > 1"},
		// An aggregation over an update-mode aggregation's changes.
		{"cl_of_agg", "SELECT n, count(*) AS keys, sum(s) AS s FROM %s GROUP BY n"},
		// Joins of two changelogs: every joined row a deleted row made is
		// taken back; an outer join's padded rows come and go.
		{"cl_join", "SELECT c.id, d.label, c.v, d.w FROM %s JOIN %s ON c.k = d.k"},
		{"cl_left", "SELECT c.id, d.label FROM %s LEFT JOIN %s ON c.k = d.k AND d.w < c.v"},
		{"cl_full", "SELECT c.id, d.k AS dk, d.label FROM %s FULL JOIN %s ON c.k = d.k AND d.w > c.v"},
		{"cl_join_agg", "SELECT d.label, count(*) AS n, sum(c.v) AS s, max(c.v) AS hi FROM %s JOIN %s ON c.k = d.k GROUP BY d.label"},
	}
	// query is a table's query as weir runs it (stream) or PostgreSQL
	// over its views (batch).
	query := func(name, q string, stream bool) string {
		st := func(rel string) string {
			if stream {
				return "STREAM " + rel
			}
			return rel
		}
		switch {
		case name == "cl_labels":
			return fmt.Sprintf(q, st("cur")+" c")
		case name == "cl_of_agg" && stream:
			return fmt.Sprintf(q, "STREAM cl_per_k")
		case name == "cl_of_agg":
			return fmt.Sprintf(q, "(SELECT k, count(*) AS n, sum(v) AS s FROM cur GROUP BY k) g")
		case strings.Count(q, "%s") == 2:
			return fmt.Sprintf(q, st("cur")+" c", st("dims")+" d")
		}
		return fmt.Sprintf(q, st("cur"))
	}
	for _, tb := range tables {
		sdExec(t, w, "weir", "CREATE STREAMING TABLE "+tb.name+" AS "+query(tb.name, tb.query, true))
	}
	// The streaming tables over cur read its changes, so their plans say so.
	if plan := strings.Join(sdRows(t, w, "weir", "EXPLAIN CREATE STREAMING TABLE x AS SELECT k, count(*) FROM STREAM cur GROUP BY k"), "\n"); !strings.Contains(plan, "changelog") {
		t.Errorf("EXPLAIN does not show the changelog input:\n%s", plan)
	}

	// What cannot read a changelog says so.
	for stmt, want := range map[string]string{
		"CREATE STREAMING TABLE bad AS SELECT DISTINCT ON (k) k, v FROM STREAM cur":                                                                          "DISTINCT ON over a changelog is not supported: its input deletes rows it emitted (cur is an update-mode streaming table",
		"CREATE STREAMING TABLE bad AS SELECT * FROM (SELECT k, v, row_number() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM STREAM cur) x WHERE rn = 1": "Top-N over a changelog is not supported",
		"CREATE STREAMING TABLE bad AS SELECT k, count(*) FROM STREAM cur GROUP BY k EMIT ON WINDOW CLOSE":                                                   "append mode is not possible",
	} {
		_, err := w.Exec(context.Background(), stmt)
		if pe, ok := err.(*pgconn.PgError); !ok || pe.Code != "0A000" || !strings.Contains(pe.Message, want) {
			t.Errorf("%s: got %v, want 0A000 %q", stmt, err, want)
		}
	}
	seq := int64(0)
	check := func(round int) {
		for _, tb := range tables {
			waitEqualOracle(t, fmt.Sprintf("seed %d, round %d: %s", seed, round, tb.name), w, pgConn, "SELECT * FROM "+tb.name, query(tb.name, tb.query, false))
		}
	}
	for round := 0; round < 25; round++ {
		var vals []string
		for i := 0; i < 1+r.Intn(30); i++ {
			seq++
			op := "U"
			if r.Intn(5) == 0 {
				op = "D"
			}
			id := 1 + r.Int63n(40)
			vals = append(vals, fmt.Sprintf("(%d, '%c', %d, '%s', %d)", id, 'a'+r.Intn(4), r.Int63n(1000), op, seq))
		}
		var dvals []string
		for i := 0; i < r.Intn(4); i++ {
			seq++
			op := "U"
			if r.Intn(4) == 0 {
				op = "D"
			}
			dvals = append(dvals, fmt.Sprintf("('%c', 'l%d', %d, '%s', %d)", 'a'+r.Intn(5), r.Intn(3), r.Int63n(1000), op, seq))
		}
		for _, c := range []*pgx.Conn{w, pgConn} {
			sdExec(t, c, "feed", "INSERT INTO feed VALUES "+strings.Join(vals, ", "))
			if len(dvals) > 0 {
				sdExec(t, c, "dfeed", "INSERT INTO dfeed VALUES "+strings.Join(dvals, ", "))
			}
		}
		if round%5 == 4 || round == 24 {
			check(round)
		}
		if round == 12 {
			// Recomputed from the feed: the readers of cur get its old rows
			// deleted, then the recomputed ones (change_log.go).
			sdExec(t, w, "weir", "REFRESH STREAMING TABLE cur FULL")
			check(round)
		}
	}
}
