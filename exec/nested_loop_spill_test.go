package exec

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// smallBatches is n rows of (k int8 with NULLs, v text) in batches of
// size rows, so that a left side is several blocks of a small work_mem.
func smallBatches(n, mod, size int) []arrow.RecordBatch {
	cs := cols("k", types.Int8, "v", types.Text)
	var out []arrow.RecordBatch
	for s := 0; s < n; s += size {
		var rows [][]expr.Datum
		for i := s; i < min(s+size, n); i++ {
			var k expr.Datum = int64((i * 37) % mod)
			if i%11 == 0 {
				k = nil
			}
			rows = append(rows, row(k, "v"+string(rune('a'+i%26))))
		}
		out = append(out, mkBatch(cs, rows...))
	}
	return out
}

// TestBlockNestedLoopKinds: a join without equality keys whose right side
// passes work_mem (written to disk, scanned once per block of left rows)
// gives the in-memory nested loop's rows for every join kind, with and
// without a condition, and leaves no memory held or file behind.
func TestBlockNestedLoopKinds(t *testing.T) {
	cs := cols("k", types.Int8, "v", types.Text)
	conds := []expr.Expr{
		cmpFunc("=", col(0, types.Int8), col(2, types.Int8)), // an equality the planner left as a condition
		cmpFunc("<", col(0, types.Int8), col(2, types.Int8)),
		nil,
	}
	for ci, cond := range conds {
		for _, kind := range []planner.JoinKind{planner.InnerJoin, planner.LeftJoin, planner.RightJoin, planner.FullJoin, planner.SemiJoin, planner.AntiJoin, planner.CrossJoin} {
			if cond != nil && kind == planner.CrossJoin {
				continue
			}
			nl, nr := 500, 1200
			if ci == 1 || cond == nil {
				nl, nr = 250, 700 // large outputs
			}
			tables := fakeTables{}
			left := scanOf(tables, "l", cs, smallBatches(nl, 500, 100)...)
			right := scanOf(tables, "r", cs, smallBatches(nr, 300, 250)...)
			plan := &planner.Join{Kind: kind, Left: left, Right: right, Cond: cond}
			want := run(t, &Env{Tables: tables}, plan)
			dir := t.TempDir()
			q := NewQueryMemory(NewMemoryBudget(0), 4<<10, dir)
			before := SpillFilesCreated()
			got := run(t, &Env{Tables: tables, Memory: q}, plan)
			files := SpillFilesCreated() - before
			if n := countFiles(t, dir); n != 0 {
				t.Errorf("cond %d kind %v: %d spill files left after the join closed", ci, kind, n)
			}
			q.Close()
			if q.Held() != 0 {
				t.Errorf("cond %d kind %v: %d bytes held after Close", ci, kind, q.Held())
			}
			if files != 1 {
				t.Errorf("cond %d kind %v: %d spill files, want the inner side's one", ci, kind, files)
			}
			slices.Sort(want)
			slices.Sort(got)
			if (len(want) == 0 && !(cond == nil && kind == planner.AntiJoin)) || !slices.Equal(want, got) {
				t.Errorf("cond %d kind %v: %d rows in memory, %d blocked, equal=%v", ci, kind, len(want), len(got), slices.Equal(want, got))
			}
		}
	}
}

// TestBlockNestedLoopCancelAndCleanup: a blocked nested loop stops on
// cancel between chunks, and Close removes the inner side's file and
// gives back its memory.
func TestBlockNestedLoopCancelAndCleanup(t *testing.T) {
	cs := cols("k", types.Int8, "v", types.Text)
	tables := fakeTables{}
	left := scanOf(tables, "l", cs, smallBatches(20000, 500, 1000)...)
	right := scanOf(tables, "r", cs, smallBatches(20000, 300, 1000)...)
	dir := t.TempDir()
	q := NewQueryMemory(NewMemoryBudget(0), 16<<10, dir)
	op, err := Build(&Env{Tables: tables, Memory: q}, &planner.Join{Kind: planner.InnerJoin, Left: left, Right: right,
		Cond: cmpFunc("<", col(0, types.Int8), col(2, types.Int8))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	for i := 0; i < 20; i++ {
		if b, err := op.Next(ctx); err != nil || b == nil {
			t.Fatalf("batch %d: %v", i, err)
		}
	}
	if n := countFiles(t, dir); n != 1 {
		t.Fatalf("%d spill files while joining, want 1", n)
	}
	cancel()
	if _, err := op.Next(ctx); err == nil {
		t.Fatal("no error after cancel")
	}
	op.Close()
	if n := countFiles(t, dir); n != 0 {
		t.Errorf("%d spill files after Close", n)
	}
	if q.Held() != 0 {
		t.Errorf("%d bytes held after Close", q.Held())
	}
	q.Close()
}

// countFiles counts the files under dir (spill files sit in a query's
// directory below it).
func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
