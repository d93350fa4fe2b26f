package exec

import (
	"cmp"
	"context"
	"math"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// spillInput is n rows of (k int8 with NULLs and duplicates, v text) in
// batches of BatchSize.
func spillInput(n, mod int) []arrow.RecordBatch {
	cs := cols("k", types.Int8, "v", types.Text)
	var out []arrow.RecordBatch
	for s := 0; s < n; s += BatchSize {
		var rows [][]expr.Datum
		for i := s; i < min(s+BatchSize, n); i++ {
			var k expr.Datum = int64(i % mod)
			if i%11 == 0 {
				k = nil
			}
			rows = append(rows, row(k, "v"+string(rune('a'+i%26))))
		}
		out = append(out, mkBatch(cs, rows...))
	}
	return out
}

// runBoth runs plan in memory and with a 64kB work_mem and returns the
// sorted rows of each and how many spill files the second run wrote.
func runBoth(t *testing.T, tables fakeTables, plan planner.Node) (inMem, spilled []string, files int64) {
	t.Helper()
	inMem = run(t, &Env{Tables: tables}, plan)
	q := NewQueryMemory(NewMemoryBudget(0), 64<<10, t.TempDir())
	before := SpillFilesCreated()
	spilled = run(t, &Env{Tables: tables, Memory: q}, plan)
	files = SpillFilesCreated() - before
	q.Close()
	if q.Held() != 0 {
		t.Errorf("%d bytes held after Close", q.Held())
	}
	slices.Sort(inMem)
	slices.Sort(spilled)
	return inMem, spilled, files
}

// TestGraceHashJoinKinds: every join kind gives the same rows when both
// sides are partitioned to disk as in memory (semi and anti joins are not
// reachable from SQL yet, so they are checked here).
func TestGraceHashJoinKinds(t *testing.T) {
	cs := cols("k", types.Int8, "v", types.Text)
	for _, kind := range []planner.JoinKind{planner.InnerJoin, planner.LeftJoin, planner.RightJoin, planner.FullJoin, planner.SemiJoin, planner.AntiJoin} {
		tables := fakeTables{}
		left := scanOf(tables, "l", cs, spillInput(30000, 40000)...)
		right := scanOf(tables, "r", cs, spillInput(50000, 25000)...)
		plan := &planner.Join{Kind: kind, Left: left, Right: right,
			LeftKeys: []expr.Expr{col(0, types.Int8)}, RightKeys: []expr.Expr{col(0, types.Int8)}}
		a, b, files := runBoth(t, tables, plan)
		if files == 0 {
			t.Errorf("kind %v: no spill", kind)
		}
		if len(a) == 0 || !slices.Equal(a, b) {
			t.Errorf("kind %v: %d rows in memory, %d spilled, equal=%v", kind, len(a), len(b), slices.Equal(a, b))
		}
	}
}

// TestCrossJoinStreams: a nested-loop join whose output is huge produces it
// a batch at a time (memory stays bounded) and stops on cancel.
func TestCrossJoinStreams(t *testing.T) {
	cs := cols("k", types.Int8, "v", types.Text)
	tables := fakeTables{}
	left := scanOf(tables, "l", cs, spillInput(3*BatchSize, 7)...)
	right := scanOf(tables, "r", cs, spillInput(100000, 7)...)
	op, err := Build(&Env{Tables: tables}, &planner.Join{Kind: planner.InnerJoin, Left: left, Right: right})
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	join, ok := op.(*joinOp)
	if st, isRoot := op.(*statementOp); isRoot {
		join, ok = st.input.(*joinOp)
	}
	if !ok {
		t.Fatalf("root operator %T is not the join", op)
	}
	ctx, cancel := context.WithCancel(context.Background())
	for i := 0; i < 200; i++ {
		b, err := op.Next(ctx)
		if err != nil || b == nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		if b.NumRows() > BatchSize {
			t.Fatalf("batch of %d rows", b.NumRows())
		}
		if q := len(join.out.batches); q > 1 {
			t.Fatalf("%d batches queued: the probe does not stream", q)
		}
	}
	cancel()
	if _, err := op.Next(ctx); err == nil {
		t.Fatal("no error after cancel")
	}
}

// TestSortStableMatchesSlices: the cancellable block merge sort orders as
// the standard library's stable sort does, ties included.
func TestSortStableMatchesSlices(t *testing.T) {
	for _, n := range []int{0, 1, 100, sortBlock, sortBlock + 1, 3*sortBlock + 17, 5 * sortBlock} {
		keys := make([]int64, n)
		x := uint64(7)
		for i := range keys {
			x = x*6364136223846793005 + 1442695040888963407
			keys[i] = int64(x>>40) % 1000 // many ties
		}
		cmp := func(a, b int32) int { return int(keys[a] - keys[b]) }
		a, b := make([]int32, n), make([]int32, n)
		for i := range a {
			a[i], b[i] = int32(i), int32(i)
		}
		slices.SortStableFunc(a, cmp)
		if err := sortStable(context.Background(), nil, b, cmp); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a, b) {
			t.Fatalf("n=%d: order differs", n)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	idx := make([]int32, 4*sortBlock)
	if err := sortStable(ctx, nil, idx, func(a, b int32) int { return 0 }); err == nil {
		t.Fatal("cancelled sort returned no error")
	}
}

// TestExternalSortStableMultiPass: a sort spilled to many runs (merged in
// several passes) gives exactly the in-memory sort's order, ties in input
// order, NULLs placed as asked.
func TestExternalSortStableMultiPass(t *testing.T) {
	cs := cols("k", types.Int8, "v", types.Text)
	tables := fakeTables{}
	in := scanOf(tables, "t", cs, spillInput(150000, 97)...)
	for _, keys := range [][]planner.SortKey{
		{{Expr: col(0, types.Int8)}},
		{{Expr: col(0, types.Int8), Desc: true, NullsFirst: true}},
		{{Expr: col(1, types.Text), Desc: true}, {Expr: col(0, types.Int8), NullsFirst: true}},
	} {
		plan := &planner.Sort{Input: in, Keys: keys}
		want := run(t, &Env{Tables: tables}, plan)
		q := NewQueryMemory(NewMemoryBudget(0), 64<<10, t.TempDir())
		before := SpillFilesCreated()
		got := run(t, &Env{Tables: tables, Memory: q}, plan)
		files := SpillFilesCreated() - before
		q.Close()
		if files < 20 {
			t.Errorf("%d spill files: not a multi-pass merge", files)
		}
		if !slices.Equal(want, got) {
			t.Errorf("keys %v: spilled order differs from in-memory order", keys)
		}
	}
}

// TestSortSingleIntKeyStable: the (value, row) pair path for one integer
// key without NULLs orders as a stable sort, ascending and descending.
func TestSortSingleIntKeyStable(t *testing.T) {
	n := 3*sortBlock + 5
	vals := make([]int64, n)
	x := uint64(3)
	for i := range vals {
		x = x*6364136223846793005 + 1442695040888963407
		vals[i] = int64(x>>33)%2000 - 1000
	}
	vals[0], vals[1] = math.MinInt64, math.MaxInt64
	for _, desc := range []bool{false, true} {
		s := rowSorter{vecs: []colVec{{kind: kindInt, ints: vals}}, keys: []planner.SortKey{{Desc: desc}}}
		got := make([]int32, n)
		want := make([]int32, n)
		for i := range got {
			got[i], want[i] = int32(i), int32(i)
		}
		if err := s.sort(context.Background(), nil, got); err != nil {
			t.Fatal(err)
		}
		slices.SortStableFunc(want, func(a, b int32) int {
			c := cmp.Compare(vals[a], vals[b])
			if desc {
				return -c
			}
			return c
		})
		if !slices.Equal(got, want) {
			t.Errorf("desc=%v: order differs from a stable sort", desc)
		}
	}
}

// TestGraceJoinOneKeyDoesNotRecurse: when every right row has one key,
// partitioning cannot split them; the join partitions once and then
// builds that partition in memory instead of rewriting it level after
// level.
func TestGraceJoinOneKeyDoesNotRecurse(t *testing.T) {
	cs := cols("k", types.Int8, "v", types.Text)
	tables := fakeTables{}
	left := scanOf(tables, "l", cs, spillInput(100, 1)...)
	right := scanOf(tables, "r", cs, spillInput(40000, 1)...)
	plan := &planner.Join{Kind: planner.InnerJoin, Left: left, Right: right,
		LeftKeys: []expr.Expr{col(0, types.Int8)}, RightKeys: []expr.Expr{col(0, types.Int8)}}
	a, b, files := runBoth(t, tables, plan)
	if !slices.Equal(a, b) || len(a) == 0 {
		t.Fatalf("%d rows in memory, %d spilled", len(a), len(b))
	}
	if files == 0 || files > 4 {
		t.Errorf("%d spill files: want one partitioning pass", files)
	}
}
