package exec

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// TestLoserTreeOrders: the loser tree yields its entries' values in
// order, ties by entry, for every fan-in from 1 to 17.
func TestLoserTreeOrders(t *testing.T) {
	x := uint64(5)
	for k := 1; k <= 17; k++ {
		lists := make([][]int, k)
		var want [][2]int // value, entry
		for e := range lists {
			v := 0
			for range int(x % 9) {
				x = x*6364136223846793005 + 1442695040888963407
				v += int(x>>60) % 3
				lists[e] = append(lists[e], v)
				want = append(want, [2]int{v, e})
			}
			x = x*6364136223846793005 + 1442695040888963407
		}
		slices.SortStableFunc(want, func(a, b [2]int) int {
			if a[0] != b[0] {
				return a[0] - b[0]
			}
			return a[1] - b[1]
		})
		pos := make([]int, k)
		beats := func(a, b int) bool {
			ad, bd := pos[a] >= len(lists[a]), pos[b] >= len(lists[b])
			if ad || bd {
				return !ad
			}
			if va, vb := lists[a][pos[a]], lists[b][pos[b]]; va != vb {
				return va < vb
			}
			return a < b
		}
		var tr loserTree
		tr.init(k, beats)
		var got [][2]int
		for {
			w := tr.winner()
			if pos[w] >= len(lists[w]) {
				break
			}
			got = append(got, [2]int{lists[w][pos[w]], w})
			pos[w]++
			tr.replay(w, beats)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("k=%d: got %v, want %v", k, got, want)
		}
	}
}

// TestSpilledSortColumnTypes: the merge's typed gathering keeps every
// column's values and NULLs (integers, floats, timestamps, text, bool),
// whether the key is a single non-null integer (the int64 fast path), a
// nullable one, or several keys, ascending and descending.
func TestSpilledSortColumnTypes(t *testing.T) {
	cs := cols("i", types.Int8, "f", types.Float8, "ts", types.Timestamp, "s", types.Text, "b", types.Bool, "n", types.Int8)
	var batches []arrow.RecordBatch
	for st := 0; st < 60000; st += BatchSize {
		var rows [][]expr.Datum
		for i := st; i < min(st+BatchSize, 60000); i++ {
			var f, ts, s, b, n expr.Datum = float64(i%313) / 4, int64(i%1009) * 1000000, "s" + string(rune('a'+i%23)), i%3 == 0, int64(i % 41)
			switch i % 7 {
			case 1:
				f = nil
			case 2:
				ts = nil
			case 3:
				s = nil
			case 4:
				b = nil
			case 5:
				n = nil
			}
			rows = append(rows, row(int64((i*7919)%5003), f, ts, s, b, n))
		}
		batches = append(batches, mkBatch(cs, rows...))
	}
	tables := fakeTables{}
	in := scanOf(tables, "t", cs, batches...)
	for _, keys := range [][]planner.SortKey{
		{{Expr: col(0, types.Int8)}},
		{{Expr: col(0, types.Int8), Desc: true}},
		{{Expr: col(5, types.Int8), NullsFirst: true}},
		{{Expr: col(1, types.Float8), Desc: true}, {Expr: col(2, types.Timestamp)}},
		{{Expr: col(3, types.Text)}, {Expr: col(4, types.Bool), Desc: true, NullsFirst: true}},
	} {
		plan := &planner.Sort{Input: in, Keys: keys}
		want := run(t, &Env{Tables: tables}, plan)
		q := NewQueryMemory(NewMemoryBudget(0), 64<<10, t.TempDir())
		before := SpillFilesCreated()
		got := run(t, &Env{Tables: tables, Memory: q}, plan)
		files := SpillFilesCreated() - before
		q.Close()
		if files < 2 {
			t.Errorf("keys %v: %d spill files", keys, files)
		}
		if !slices.Equal(want, got) {
			t.Errorf("keys %v: spilled order differs from in-memory order", keys)
		}
	}
}
