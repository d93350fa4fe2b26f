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

	"github.com/weir-sql/weir/internal/pgtest"
)

func TestChangelogReadAsStream(t *testing.T) {
	seed := time.Now().UnixNano() % 1_000_000_000
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	pg := pgtest.Shared(t)
	pgConn, err := pgx.Connect(context.Background(), pg.FreshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pgConn.Close(context.Background()) })
	srv := startServer(t, t.TempDir())
	w := srv.connect(t)
	for _, c := range []*pgx.Conn{w, pgConn} {
		sdExec(t, c, "setup", "CREATE TABLE feed (id bigint, k text, v bigint, op text, seq bigint)")
		sdExec(t, c, "setup", "CREATE TABLE names (k text, label text)")
		sdExec(t, c, "setup", "INSERT INTO names VALUES ('a', 'alpha'), ('b', 'beta'), ('c', 'gamma')")
	}
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
	}
	for _, tb := range tables {
		from := "STREAM cur"
		switch tb.name {
		case "cl_labels":
			from = "STREAM cur c"
		case "cl_of_agg":
			from = "STREAM cl_per_k"
		}
		sdExec(t, w, "weir", "CREATE STREAMING TABLE "+tb.name+" AS "+fmt.Sprintf(tb.query, from))
	}
	// The streaming tables over cur read its changes, so their plans say so.
	if plan := strings.Join(sdRows(t, w, "weir", "EXPLAIN CREATE STREAMING TABLE x AS SELECT k, count(*) FROM STREAM cur GROUP BY k"), "\n"); !strings.Contains(plan, "changelog") {
		t.Errorf("EXPLAIN does not show the changelog input:\n%s", plan)
	}

	seq := int64(0)
	check := func(round int) {
		for _, tb := range tables {
			from := "cur"
			switch tb.name {
			case "cl_labels":
				from = "cur c"
			case "cl_of_agg":
				from = "(SELECT k, count(*) AS n, sum(v) AS s FROM cur GROUP BY k) g"
			}
			want := sdRows(t, pgConn, "PostgreSQL", fmt.Sprintf(tb.query, from))
			deadline := time.Now().Add(20 * time.Second)
			for {
				got := sdRows(t, w, "weir", "SELECT * FROM "+tb.name)
				d, m := diffSorted(want, got, 15)
				if m == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("seed %d, round %d: %s: %d rows differ (oracle %d, weir %d; - only in oracle, + only in weir):%s", seed, round, tb.name, m, len(want), len(got), d)
				}
				time.Sleep(20 * time.Millisecond) // polling for a condition, with the deadline above
			}
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
		for _, c := range []*pgx.Conn{w, pgConn} {
			sdExec(t, c, "feed", "INSERT INTO feed VALUES "+strings.Join(vals, ", "))
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
