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
// first epoch in others. The feed applied makes PostgreSQL's GROUP BY.
func TestFilesSinkUpdateFeedAfterLaggingRestart(t *testing.T) {
	cfg := engine.Config{DataDir: t.TempDir(), FilesRoots: []string{os.TempDir()}, SnapshotRows: 3}
	srv := startServerWith(t, cfg)
	c := srv.connect(t)
	pg := pgConnFresh(t, pgtest.Shared(t))
	dir := filepath.Join(t.TempDir(), "gold")
	const table = `CREATE TABLE orders (region text, amount bigint)`
	execAll(t, c, table)
	execAll(t, pg, table)
	execAll(t, c, `CREATE STREAMING TABLE totals AS SELECT region, count(*) AS n, sum(amount) AS total FROM STREAM orders GROUP BY region`)
	execAll(t, c, fmt.Sprintf(`CREATE SINK totals_csv FROM totals WITH (connector = 'files', path = '%s', format = 'csv')`, dir))
	const q = `SELECT region, count(*), sum(amount) FROM orders GROUP BY region`
	next := 0
	for round := 1; round <= 6; round++ {
		for i := 0; i < 6; i++ {
			next++
			stmt := fmt.Sprintf("INSERT INTO orders VALUES ('r%d', %d)", next%4, next)
			execAll(t, c, stmt)
			execAll(t, pg, stmt)
			want := pgRows(t, pg, q)
			waitUntil(t, "the sink's feed to make PostgreSQL's GROUP BY", func() (bool, string) {
				got, bad := applyFeed(t, dir)
				if bad != "" {
					t.Fatalf("round %d: %s", round, bad)
				}
				return strings.Join(got, "\n") == strings.Join(want, "\n"), strings.Join(got, ",")
			})
		}
		srv.stop()
		ms, err := filepath.Glob(filepath.Join(dir, filesink.ManifestDir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(ms)
		drop := 1 + round%3
		for _, m := range ms[len(ms)-drop:] {
			if err := os.Remove(m); err != nil {
				t.Fatal(err)
			}
		}
		srv = startServerWith(t, cfg)
		c = srv.connect(t)
		want := pgRows(t, pg, q)
		waitUntil(t, "the re-run epochs' feed to make PostgreSQL's GROUP BY", func() (bool, string) {
			got, bad := applyFeed(t, dir)
			if bad != "" {
				t.Fatalf("round %d, after a restart with %d epochs missing from the sink: %s", round, drop, bad)
			}
			return strings.Join(got, "\n") == strings.Join(want, "\n"), strings.Join(got, ",")
		})
		sameLines(t, "the streaming table", pgRows(t, c, `SELECT region, n, total FROM totals`), want)
	}
}

// applyFeed applies a CSV files sink's change feed (region, n, total,
// _change_type, _commit_version) in order: the rows it makes, sorted, and
// the first change that does not continue what was applied before it.
func applyFeed(t *testing.T, dir string) ([]string, string) {
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
			row := r[0] + "|" + r[1] + "|" + r[2]
			switch r[3] {
			case "insert":
				if old, ok := cur[r[0]]; ok && bad == "" {
					bad = fmt.Sprintf("epoch %s inserts %s over %s", r[4], row, old)
				}
				cur[r[0]] = row
			case "delete":
				if cur[r[0]] != row && bad == "" {
					bad = fmt.Sprintf("epoch %s deletes %s, the sink holds %q", r[4], row, cur[r[0]])
				}
				delete(cur, r[0])
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
