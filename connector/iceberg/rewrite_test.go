package iceberg

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/weir-sql/weir/connector"
)

// An update-mode epoch rewrites only the groups of data files that hold
// its deleted rows (and small groups, compacted along): a random change
// feed over many keys, with groups of 16 rows, reopening the sink now and
// then (the index is rebuilt from the files), leaves after every epoch
// exactly the rows of a map the same changes were applied to, read back
// through iceberg-go and, from the current snapshot's data files alone,
// by DuckDB; and an epoch that changes one key replaces few files.
func TestUpdateModeRewritesTouchedGroups(t *testing.T) {
	st := openStore(t)
	cfg := Config{Options: Options{Warehouse: t.TempDir(), Namespace: []string{"gold"}, Table: "totals"},
		Identity: "totals#7", Columns: keyedColumns, Updates: true, GroupRows: 16}
	s := mustOpen(t, cfg)
	rng := rand.New(rand.NewPCG(11, 12))
	model := map[string]int64{}
	var maxReplaced int
	for epoch := int64(1); epoch <= 40; epoch++ {
		var cs []change
		switch {
		case epoch == 1:
			for k := 0; k < 200; k++ { // 200 keys: 13 groups
				key := fmt.Sprintf("k%03d", k)
				model[key] = int64(k)
				cs = append(cs, ins(key, int64(k)))
			}
		default:
			for n := rng.IntN(3); n >= 0; n-- {
				key := fmt.Sprintf("k%03d", rng.IntN(220))
				old, had := model[key]
				if had {
					cs = append(cs, del(key, old))
				}
				switch v := rng.Int64N(1000); {
				case had && v < 100: // the group goes
					delete(model, key)
				default:
					model[key] = v
					cs = append(cs, ins(key, v))
				}
			}
		}
		if err := connector.WriteEpoch(st, s, epoch, changeFeed(epoch, cs...)); err != nil {
			t.Fatal(err)
		}
		var want []string
		for k, v := range model {
			want = append(want, k+"="+strconv.FormatInt(v, 10))
		}
		slices.Sort(want)
		if got := readKeyed(t, s); !slices.Equal(got, want) {
			t.Fatalf("after epoch %d (%v):\n got %v\nwant %v", epoch, cs, got, want)
		}
		snap := s.Table().CurrentSnapshot()
		if snap.Summary.Properties[SummaryEpoch] != strconv.FormatInt(epoch, 10) {
			t.Fatalf("epoch %d's snapshot says %v", epoch, snap.Summary.Properties)
		}
		if epoch > 1 {
			n, _ := strconv.Atoi(snap.Summary.Properties["deleted-data-files"])
			maxReplaced = max(maxReplaced, n)
		}
		if epoch%10 == 0 {
			if got := duckdbKeyed(t, s); !slices.Equal(got, want) {
				t.Fatalf("after epoch %d DuckDB reads the data files as\n%v\nwant %v", epoch, got, want)
			}
			s = mustOpen(t, cfg) // a restart: the index is rebuilt
		}
	}
	// At most 3 changed keys an epoch, each in one group, plus the small
	// groups (at most a few, compacted as they appear): never the
	// whole table's 13 or more files.
	if maxReplaced == 0 || maxReplaced > 8 {
		t.Errorf("an epoch replaced up to %d data files", maxReplaced)
	}
	// Single-row groups (an epoch's new keys) are compacted: the files
	// stay about as many as the groups of 16 the rows make.
	tasks, err := s.Table().Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) > len(model)/16+8 {
		t.Errorf("%d rows are in %d data files", len(model), len(tasks))
	}
	t.Logf("%d rows in %d data files; an epoch after the first replaced at most %d", len(model), len(tasks), maxReplaced)
}

// duckdbKeyed reads the current snapshot's data files with DuckDB's
// read_parquet, as "k=total", sorted.
func duckdbKeyed(t *testing.T, s *Sink) []string {
	t.Helper()
	ctx := context.Background()
	tasks, err := s.Table().Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, task := range tasks {
		if len(task.DeleteFiles)+len(task.EqualityDeleteFiles) > 0 {
			t.Fatalf("delete files in an update-mode table: %v", task)
		}
		files = append(files, "'"+strings.ReplaceAll(task.File.FilePath(), "'", "''")+"'")
	}
	if len(files) == 0 {
		return nil
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT k || '=' || total FROM read_parquet([`+strings.Join(files, ", ")+`]) ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
