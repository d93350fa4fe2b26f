package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/connector/filesink"
)

// TestSinkExactlyOnceAfterKill kills the real binary at each crash point
// of a files sink's epoch (its files written, renamed, its manifest
// written) and of the table's commit (before it, and after it before the
// sinks publish), restarts it, and checks that the files the manifests
// list hold every input row exactly once: an append-mode table's rows in
// Parquet (partitioned, small target size, so compaction runs too), and
// an update-mode table's changes in CSV, a change feed that applied in
// order (each delete removing the row the sink holds, each insert adding
// a row whose key it does not hold) makes the streaming table's rows and
// PostgreSQL's GROUP BY of the input weir holds.
func TestSinkExactlyOnceAfterKill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	lake := t.TempDir()
	silverDir, totalsDir := filepath.Join(lake, "silver"), filepath.Join(lake, "totals")
	port := freePort(t)
	srv, _ := startCrashServer(t, dir, port, []string{"--files-root", os.TempDir()})
	pg := newSinkPG(t, `CREATE TABLE ev (id bigint, region text, amount numeric(12,2))`)
	ctx := context.Background()
	conn := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, srv.url())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := conn()
	nextID := int64(0)
	insert := func(c *pgx.Conn) error {
		var vals []string
		for i := 0; i < 20; i++ {
			nextID++
			vals = append(vals, fmt.Sprintf("(%d, 'r%d', %d.%02d)", nextID, nextID%3, nextID%97, nextID%100))
		}
		_, err := c.Exec(ctx, "INSERT INTO ev VALUES "+strings.Join(vals, ", "))
		return err
	}
	for _, s := range []string{
		`CREATE TABLE ev (id bigint, region text, amount numeric(12,2))`,
		`CREATE STREAMING TABLE silver AS SELECT id, region, amount FROM STREAM ev`,
		`CREATE STREAMING TABLE totals AS SELECT region, count(*) AS n, sum(amount) AS total FROM STREAM ev GROUP BY region`,
	} {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if err := insert(c); err != nil {
		t.Fatal(err)
	}
	waitFor(t, c, "silver's first rows", "SELECT count(*) = 20 FROM silver")
	// The sinks start from the tables' contents, then every epoch.
	for _, s := range []string{
		fmt.Sprintf(`CREATE SINK silver_pq FROM silver WITH (connector = 'files', path = '%s', format = 'parquet', partition_by = 'region', target_file_size = '16kB')`, silverDir),
		fmt.Sprintf(`CREATE SINK totals_csv FROM totals WITH (connector = 'files', path = '%s', format = 'csv')`, totalsDir),
	} {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	c.Close(ctx)

	round := 0
	for _, point := range []string{"filesink-after-write", "filesink-after-rename", "filesink-after-manifest", "epoch-before-commit", "epoch-after-commit"} {
		for _, n := range []int{1, 5} {
			srv.kill()
			srv, _ = startCrashServer(t, dir, port, []string{"--files-root", os.TempDir()}, fmt.Sprintf("WEIR_FAILPOINT=%s:%d", point, n))
			w := conn()
			for i := 0; i < 200 && insert(w) == nil; i++ {
				time.Sleep(5 * time.Millisecond) // spread the rows over epochs
			}
			w.Close(ctx)
			select {
			case <-srv.exited:
				srv.exited <- nil
			case <-time.After(30 * time.Second):
				t.Fatalf("%s:%d: the server did not reach the crash point:\n%s", point, n, srv.log)
			}
			srv, _ = startCrashServer(t, dir, port, []string{"--files-root", os.TempDir()})
			round++
			checkSinks(t, srv, pg, round, point, silverDir, totalsDir)
		}
	}
	srv.kill()
}

// checkSinks waits until the sinks hold every row of the input weir kept,
// then checks each is there exactly once.
func checkSinks(t *testing.T, srv *crashServer, pg *sinkPG, round int, point, silverDir, totalsDir string) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	ids := textRows(t, ctx, c, "SELECT id FROM ev")
	waitFor(t, c, "silver to hold the input", fmt.Sprintf("SELECT count(*) = %d FROM silver", len(ids)))
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	totals := pg.totals(t, c, "SELECT region, count(*), sum(amount) FROM ev GROUP BY region")
	waitFor(t, c, "totals to hold the input", fmt.Sprintf("SELECT sum(n) = %d FROM totals", len(ids)))
	if table := textRows(t, ctx, c, "SELECT region, n, total FROM totals"); strings.Join(table, "\n") != strings.Join(totals, "\n") {
		t.Fatalf("round %d (%s): the streaming table holds %v, PostgreSQL's GROUP BY %v", round, point, table, totals)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, state := sinkIDs(t, silverDir)
		feed, bad := applyCSVFeed(t, totalsDir)
		if bad != "" {
			t.Fatalf("round %d (%s): the update-mode sink's change feed does not continue what it holds: %s", round, point, bad)
		}
		if len(got) == len(ids) && strings.Join(feed, "\n") == strings.Join(totals, "\n") {
			seen := map[string]int{}
			for _, id := range got {
				seen[id]++
			}
			for id, k := range seen {
				if k != 1 || !want[id] {
					t.Fatalf("round %d (%s): id %s is %d times in the sink's files (in the input: %v)", round, point, id, k, want[id])
				}
			}
			t.Logf("round %d (%s): %d rows, each once in the Parquet files (%s); the CSV changes make the %d groups", round, point, len(ids), state, len(totals))
			return
		}
		if time.Now().After(deadline) {
			var sinks []string
			rows, _ := c.Query(ctx, "SHOW SINKS")
			for rows.Next() {
				v, _ := rows.Values()
				sinks = append(sinks, fmt.Sprint(v))
			}
			rows.Close()
			t.Fatalf("round %d (%s): the Parquet files hold %d rows of %d; the CSV feed makes %v, the input %v; SHOW SINKS: %v\n%s",
				round, point, len(got), len(ids), feed, totals, sinks, srv.log)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, with a deadline
	}
}

// sinkIDs reads the ids of the Parquet files the manifests list.
func sinkIDs(t *testing.T, dir string) ([]string, string) {
	t.Helper()
	ms, err := filesink.ReadManifests(dir)
	if err != nil {
		t.Fatal(err)
	}
	live := filesink.LiveFiles(ms)
	var compacted int
	var out []string
	for _, f := range live {
		if f.Compacted {
			compacted++
		}
		fh, err := os.Open(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		tbl, err := pqarrow.ReadTable(context.Background(), fh, nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		tr := array.NewTableReader(tbl, 1024)
		for tr.Next() {
			b := tr.RecordBatch()
			col := b.Column(b.Schema().FieldIndices("id")[0]).(*array.Int64)
			for i := 0; i < col.Len(); i++ {
				out = append(out, fmt.Sprint(col.Value(i)))
			}
		}
		tr.Release()
		tbl.Release()
	}
	return out, fmt.Sprintf("%d epochs, %d files, %d of them compacted", len(ms), len(live), compacted)
}

// applyCSVFeed applies an update-mode sink's changes in order and returns
// the rows that remain, as "region|n|total", sorted; and, if the feed is
// not a consistent one, the first change that does not apply: a delete
// of a row the sink does not hold as it is, an insert of a row whose key
// (region) it holds already.
func applyCSVFeed(t *testing.T, dir string) ([]string, string) {
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
		for _, r := range recs[1:] { // region, n, total, _change_type, _commit_version
			row := r[0] + "|" + r[1] + "|" + r[2]
			switch r[3] {
			case "insert":
				if old, ok := cur[r[0]]; ok && bad == "" {
					bad = fmt.Sprintf("epoch %s inserts %s over %s (%s)", r[4], row, old, f.Path)
				}
				cur[r[0]] = row
			case "delete":
				if cur[r[0]] != row && bad == "" {
					bad = fmt.Sprintf("epoch %s deletes %s, the sink holds %q (%s)", r[4], row, cur[r[0]], f.Path)
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
