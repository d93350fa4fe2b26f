package exec

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// windowInput is n rows of (id int8 unique and ascending, k int8 with
// NULLs and duplicates, p int8: a few large partitions, v text).
func windowInput(n int) ([]planner.Column, []arrow.RecordBatch) {
	cs := cols("id", types.Int8, "k", types.Int8, "p", types.Int8, "v", types.Text)
	var out []arrow.RecordBatch
	for s := 0; s < n; s += BatchSize {
		var rows [][]expr.Datum
		for i := s; i < min(s+BatchSize, n); i++ {
			var k expr.Datum = int64((i * 7919) % 997)
			if i%13 == 0 {
				k = nil
			}
			rows = append(rows, row(int64(i), k, int64(i%3), "v"+string(rune('a'+i%26))))
		}
		out = append(out, mkBatch(cs, rows...))
	}
	return cs, out
}

// TestWindowSpilledPartitions: calls over one partition far larger than
// work_mem, with several orderings in one window, give in 64kB of
// work_mem (sorted stages, partitions in spill files) what they give in
// memory. The calls are those whose result does not depend on the order
// of peers.
func TestWindowSpilledPartitions(t *testing.T) {
	cs, batches := windowInput(40000)
	tables := fakeTables{}
	scan := scanOf(tables, "w", cs, batches...)
	id, k, p, v := col(0, types.Int8), col(1, types.Int8), col(2, types.Int8), col(3, types.Text)
	byID := []planner.SortKey{{Expr: id}}
	byK := []planner.SortKey{{Expr: k}}
	byKDesc := []planner.SortKey{{Expr: k, Desc: true, NullsFirst: true}}
	rows := func(s, e planner.FrameBoundKind, so, eo int64) planner.Frame {
		return planner.Frame{Rows: true, Start: planner.FrameBound{Kind: s, Offset: cnst(so, types.Int8)}, End: planner.FrameBound{Kind: e, Offset: cnst(eo, types.Int8)}}
	}
	peersOnly := planner.Frame{Start: planner.FrameBound{Kind: planner.CurrentRow}, End: planner.FrameBound{Kind: planner.CurrentRow}}
	exclude := func(f planner.Frame, x planner.FrameExclusion) planner.Frame { f.Exclude = x; return f }
	part := []expr.Expr{p}
	calls := []planner.WindowCall{
		{Name: "row_number", OrderBy: byID, T: types.Int8},
		{Name: "rank", OrderBy: byK, T: types.Int8},
		{Name: "dense_rank", OrderBy: byK, T: types.Int8},
		{Name: "percent_rank", OrderBy: byK, T: types.Float8},
		{Name: "cume_dist", OrderBy: byKDesc, T: types.Float8},
		{Name: "ntile", Args: []expr.Expr{cnst(int64(7), types.Int4)}, OrderBy: byID, T: types.Int4},
		{Name: "lag", Args: []expr.Expr{id, cnst(int64(3), types.Int4), cnst(int64(-1), types.Int8)}, OrderBy: byID, T: types.Int8},
		{Name: "lead", Args: []expr.Expr{v}, OrderBy: byID, T: types.Text},
		{Name: "lead", Args: []expr.Expr{id, cnst(int64(9000), types.Int4)}, PartitionBy: part, OrderBy: byID, T: types.Int8},
		{Name: "sum", Agg: sumAgg, Args: []expr.Expr{id}, OrderBy: byK, T: types.Int8},
		{Name: "sum", Agg: sumAgg, Args: []expr.Expr{id}, OrderBy: byID, T: types.Int8, Frame: rows(planner.OffsetPreceding, planner.OffsetFollowing, 5, 3)},
		{Name: "sum", Agg: sumAgg, Args: []expr.Expr{id}, PartitionBy: part, OrderBy: byID, T: types.Int8, Frame: rows(planner.UnboundedPreceding, planner.CurrentRow, 0, 0)},
		{Name: "count", Agg: countAgg, T: types.Int8},
		{Name: "sum", Agg: sumAgg, Args: []expr.Expr{id}, PartitionBy: part, T: types.Int8},
		{Name: "sum", Agg: sumAgg, Args: []expr.Expr{id}, OrderBy: byK, T: types.Int8, Frame: exclude(peersOnly, planner.ExcludeCurrentRow)},
		{Name: "count", Agg: countAgg, OrderBy: byK, T: types.Int8, Frame: exclude(peersOnly, planner.ExcludeTies)},
		{Name: "sum", Agg: sumAgg, Args: []expr.Expr{id}, OrderBy: byID, T: types.Int8, Frame: exclude(rows(planner.OffsetPreceding, planner.OffsetFollowing, 2, 2), planner.ExcludeGroup)},
		{Name: "first_value", Args: []expr.Expr{v}, OrderBy: byID, T: types.Text, Frame: rows(planner.OffsetFollowing, planner.OffsetFollowing, 2, 4)},
		{Name: "last_value", Args: []expr.Expr{k}, OrderBy: byK, T: types.Int8},
		{Name: "nth_value", Args: []expr.Expr{id, cnst(int64(3), types.Int4)}, OrderBy: byID, T: types.Int8, Frame: rows(planner.CurrentRow, planner.UnboundedFollowing, 0, 0)},
		{Name: "last_value", Args: []expr.Expr{id}, PartitionBy: part, OrderBy: byID, T: types.Int8, Frame: rows(planner.CurrentRow, planner.UnboundedFollowing, 0, 0)},
	}
	out := append(append([]planner.Column{}, cs...), make([]planner.Column, len(calls))...)
	for i, c := range calls {
		out[len(cs)+i] = planner.Column{Name: c.Name, T: c.T}
	}
	plan := &planner.Window{Input: scan, Calls: calls, Cols: out}
	stores := partitionStoresMade.Load()
	a, b, files := runBoth(t, tables, plan)
	if files == 0 {
		t.Error("no spill files")
	}
	// Four orderings without PARTITION BY (one partition each), two over
	// p's three partitions of 13,333 rows: all past 64kB.
	if n := partitionStoresMade.Load() - stores; n != 4+2*3 {
		t.Errorf("%d partitions spilled, want 10", n)
	}
	if len(a) != 40000 || !slices.Equal(a, b) {
		for i := range a {
			if i < len(b) && a[i] != b[i] {
				t.Fatalf("%d rows in memory, %d spilled; first difference:\n%s\n%s", len(a), len(b), a[i], b[i])
			}
		}
		t.Fatalf("%d rows in memory, %d spilled", len(a), len(b))
	}
}

// TestWindowHugePartitionBounded: one partition of 300,000 rows (about
// 60 MB with what a window holds per row in memory) computes within an 8 MB query
// budget and 64kB of work_mem, and gives every byte back.
func TestWindowHugePartitionBounded(t *testing.T) {
	cs, batches := windowInput(300000)
	tables := fakeTables{}
	scan := scanOf(tables, "w", cs, batches...)
	id := col(0, types.Int8)
	byID := []planner.SortKey{{Expr: id, Desc: true}}
	calls := []planner.WindowCall{
		{Name: "row_number", OrderBy: byID, T: types.Int8},
		{Name: "sum", Agg: sumAgg, Args: []expr.Expr{id}, OrderBy: byID, T: types.Int8},
		{Name: "lag", Args: []expr.Expr{id}, OrderBy: byID, T: types.Int8},
		{Name: "count", Agg: countAgg, T: types.Int8},
	}
	out := append(append([]planner.Column{}, cs...), make([]planner.Column, len(calls))...)
	for i, c := range calls {
		out[len(cs)+i] = planner.Column{Name: c.Name, T: c.T}
	}
	plan := &planner.Window{Input: scan, Calls: calls, Cols: out}
	q := NewQueryMemory(NewMemoryBudget(8<<20), 64<<10, t.TempDir())
	env := &Env{Tables: tables, Memory: q}
	op, err := Build(env, plan)
	if err != nil {
		t.Fatal(err)
	}
	var rows, peak int64
	for {
		b, err := op.Next(context.Background())
		if err != nil {
			t.Fatalf("%v: %#v", err, err)
		}
		if b == nil {
			break
		}
		rows += b.NumRows()
		peak = max(peak, q.Held())
	}
	op.Close()
	q.Close()
	if rows != 300000 {
		t.Errorf("%d rows", rows)
	}
	if q.Held() != 0 {
		t.Errorf("%d bytes held after Close", q.Held())
	}
	t.Logf("peak held %d bytes", peak)
}

// TestWindowSpilledPartitionCancel: a cancel while a spilled partition is
// being computed (a sliding frame, recomputed per row across chunks) stops
// the next call within a second with 57014, and closing removes the
// partition's spill file.
func TestWindowSpilledPartitionCancel(t *testing.T) {
	cs, batches := windowInput(100000)
	tables := fakeTables{}
	scan := scanOf(tables, "w", cs, batches...)
	id := col(0, types.Int8)
	frame := planner.Frame{Rows: true, Start: planner.FrameBound{Kind: planner.OffsetPreceding, Offset: cnst(int64(3000), types.Int8)},
		End: planner.FrameBound{Kind: planner.CurrentRow}}
	calls := []planner.WindowCall{{Name: "sum", Agg: sumAgg, Args: []expr.Expr{id}, Frame: frame, T: types.Int8}}
	plan := &planner.Window{Input: scan, Calls: calls, Cols: append(append([]planner.Column{}, cs...), planner.Column{Name: "sum", T: types.Int8})}
	dir := t.TempDir()
	q := NewQueryMemory(NewMemoryBudget(0), 64<<10, dir)
	defer q.Close()
	op, err := Build(&Env{Tables: tables, Memory: q}, plan)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if b, err := op.Next(ctx); err != nil || b == nil {
		t.Fatalf("first batch: %v", err)
	}
	cancel()
	start := time.Now()
	_, err = op.Next(ctx)
	if took := time.Since(start); took > time.Second {
		t.Errorf("cancel took %v", took)
	}
	var se *sqlerr.Error
	if !errors.As(err, &se) || se.Code != sqlerr.QueryCanceled {
		t.Errorf("after cancel: %v", err)
	}
	op.Close()
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 0 {
		t.Errorf("spill files left after Close: %v", files)
	}
}

// TestSameExpr: calls over equal expressions (function calls included,
// whose kernels are closures) share a window ordering; different ones do
// not.
func TestSameExpr(t *testing.T) {
	a := cmpFunc("<", col(0, types.Int8), cnst(int64(3), types.Int8))
	for _, c := range []struct {
		x, y expr.Expr
		same bool
	}{
		{a, cmpFunc("<", col(0, types.Int8), cnst(int64(3), types.Int8)), true},
		{a, cmpFunc("<", col(0, types.Int8), cnst(int64(4), types.Int8)), false},
		{a, cmpFunc(">", col(0, types.Int8), cnst(int64(3), types.Int8)), false},
		{col(0, types.Int8), col(1, types.Int8), false},
		{col(0, types.Int8), col(0, types.Int4), false},
		{col(2, types.Text), col(2, types.Text), true},
	} {
		if got := sameExpr(c.x, c.y); got != c.same {
			t.Errorf("sameExpr(%s, %s) = %v", c.x, c.y, got)
		}
	}
}
