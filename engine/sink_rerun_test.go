package engine_test

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/weir-sql/weir/connector/filesink"
	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/internal/pgtest"
)

// A restart that finds an update-mode table's sink behind the table (the
// table's last epochs committed, the sink's not: the newest manifests
// removed, as a crash between the two commits leaves them) re-runs the
// epochs the sink lacks, and their change feed continues exactly what
// the sink holds: every delete is of the row the sink has for its key,
// no insert lands on a key the sink has. State snapshots every few rows
// make the restart start from a snapshot in some rounds and from the
// first epoch in others. Two tables: a GROUP BY without a window (one
// window that never closes) and 5-minute tumbling windows, which close as
// the watermark passes them, also during the re-run. The feed applied
// makes PostgreSQL's GROUP BY.
func TestFilesSinkUpdateFeedAfterLaggingRestart(t *testing.T) {
	cfg := engine.Config{DataDir: t.TempDir(), FilesRoots: []string{os.TempDir()}, SnapshotRows: 3}
	srv := startServerWith(t, cfg)
	c := srv.connect(t)
	pg := pgConnFresh(t, pgtest.Shared(t))
	lake := t.TempDir()
	const table = `CREATE TABLE orders (region text, amount bigint, ts timestamptz)`
	execAll(t, c, table)
	execAll(t, pg, table)
	type gold struct {
		name, create, pg, weir string
		keys                   int // the key columns, first in the feed
	}
	golds := []gold{
		{"totals", `CREATE STREAMING TABLE totals AS SELECT region, count(*) AS n, sum(amount) AS total FROM STREAM orders GROUP BY region`,
			`SELECT region, count(*), sum(amount) FROM orders GROUP BY region`, `SELECT region, n, total FROM totals`, 1},
		{"windows", `CREATE STREAMING TABLE windows WITH (output_mode = 'update') AS SELECT window_start, region, count(*) AS n, sum(amount) AS total
			FROM STREAM orders WATERMARK ts DELAY OF INTERVAL 1 MINUTE WINDOW TUMBLING (SIZE INTERVAL 5 MINUTES) GROUP BY window_start, region`,
			`SELECT date_bin('5 minutes', ts, 'epoch'), region, count(*), sum(amount) FROM orders GROUP BY 1, 2`,
			`SELECT window_start, region, n, total FROM windows`, 2},
	}
	for _, g := range golds {
		execAll(t, c, g.create)
		execAll(t, c, fmt.Sprintf(`CREATE SINK %s_csv FROM %s WITH (connector = 'files', path = '%s', format = 'csv')`, g.name, g.name, filepath.Join(lake, g.name)))
	}
	check := func(round int, what string) {
		t.Helper()
		for _, g := range golds {
			want := pgRows(t, pg, g.pg)
			dir := filepath.Join(lake, g.name)
			waitUntil(t, g.name+"'s feed to make PostgreSQL's GROUP BY", func() (bool, string) {
				got, bad := applyFeed(t, dir, g.keys)
				if bad != "" {
					t.Fatalf("round %d, %s: %s: %s", round, what, g.name, bad)
				}
				return strings.Join(got, "\n") == strings.Join(want, "\n"), strings.Join(got, ",")
			})
			// The sinks publish an epoch just before the table does.
			waitUntil(t, "streaming table "+g.name+" to hold PostgreSQL's GROUP BY", func() (bool, string) {
				got := pgRows(t, c, g.weir)
				return strings.Join(got, "\n") == strings.Join(want, "\n"), strings.Join(got, ",")
			})
		}
	}
	next := 0
	for round := 1; round <= 6; round++ {
		for i := 0; i < 6; i++ {
			next++
			// One row a minute: a window closes every few rows.
			stmt := fmt.Sprintf("INSERT INTO orders VALUES ('r%d', %d, TIMESTAMPTZ '2024-01-01 10:00:00+00' + %d * INTERVAL '1 minute')", next%4, next, next)
			execAll(t, c, stmt)
			execAll(t, pg, stmt)
			check(round, "running")
		}
		srv.stop()
		drop := 1 + round%3
		for _, g := range golds {
			ms, err := filepath.Glob(filepath.Join(lake, g.name, filesink.ManifestDir, "*.json"))
			if err != nil {
				t.Fatal(err)
			}
			sort.Strings(ms)
			for _, m := range ms[len(ms)-drop:] {
				if err := os.Remove(m); err != nil {
					t.Fatal(err)
				}
			}
		}
		srv = startServerWith(t, cfg)
		c = srv.connect(t)
		check(round, fmt.Sprintf("after a restart with %d epochs missing from the sinks", drop))
	}
}

// applyFeed applies a CSV files sink's change feed (the key columns, the
// others, _change_type, _commit_version) in order: the rows it makes,
// sorted, and the first change that does not continue what was applied
// before it (a delete of a row not held as it is, an insert over a key
// held).
func applyFeed(t *testing.T, dir string, keys int) ([]string, string) {
	t.Helper()
	ms, err := filesink.ReadManifests(dir)
	if err != nil {
		t.Fatal(err)
	}
	cur := map[string]string{}
	bad := ""
	for _, f := range filesink.LiveFiles(ms) {
		fh, err := os.Open(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(fh).ReadAll()
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		for _, r := range recs[1:] {
			n := len(r) - 2
			key, row, kind, version := strings.Join(r[:keys], "|"), strings.Join(r[:n], "|"), r[n], r[n+1]
			switch kind {
			case "insert":
				if old, ok := cur[key]; ok && bad == "" {
					bad = fmt.Sprintf("epoch %s inserts %s over %s", version, row, old)
				}
				cur[key] = row
			case "delete":
				if cur[key] != row && bad == "" {
					bad = fmt.Sprintf("epoch %s deletes %s, the sink holds %q", version, row, cur[key])
				}
				delete(cur, key)
			}
		}
	}
	var out []string
	for _, v := range cur {
		out = append(out, v)
	}
	sort.Strings(out)
	return out, bad
}
