package exec

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// TestTopNRandom feeds random rows (k = partition, t = time and sort key
// descending, id = arrival) to Top-N with and without windows, restores a
// snapshot at a random epoch, applies the changelog to a multiset, and
// compares the result with the top N per partition computed directly
// (ties: the row that arrived first).
func TestTopNRandom(t *testing.T) {
	cols := []planner.Column{{Name: "k", T: types.Int8}, {Name: "t", T: types.Timestamp}, {Name: "id", T: types.Int8}}
	const size = 10 // window size: windows close at t/size*size + size
	for iter := 0; iter < 300; iter++ {
		rng := rand.New(rand.NewSource(int64(iter)))
		windowed := iter%2 == 1
		rankCol := iter%4 >= 2
		n := int64(1 + rng.Intn(4))
		delay := int64(rng.Intn(15))
		newOp := func() *TopN {
			op := &TopN{PartitionBy: []expr.Expr{&expr.ColumnRef{Index: 0, T: types.Int8}},
				OrderBy: []planner.SortKey{{Expr: &expr.ColumnRef{Index: 1, T: types.Timestamp}, Desc: true, NullsFirst: true}},
				N:       n, RankCol: rankCol, Cols: cols, CloseCol: -1}
			return op
		}
		// The windowed variant closes on the time itself rounded up: the
		// rows carry their window end in t's place for the partition.
		var all []joinRow
		op := newOp()
		if windowed {
			op.CloseCol = 1
		}
		epochs := 2 + rng.Intn(8)
		restoreAt := rng.Intn(epochs + 1)
		held := map[string]int{}
		apply := func(cs []ChangeBatch) {
			for _, c := range cs {
				rs := rowStrings(c.Rows)
				for i, r := range rs {
					d := ChangeInsert
					if c.Diff != nil {
						d = c.Diff[i]
					}
					held[r] += int(d)
					if held[r] == 0 {
						delete(held, r)
					}
				}
			}
		}
		wm := int64(math.MinInt64)
		maxT := int64(math.MinInt64)
		id := int64(0)
		late := int64(0)
		for e := 1; e <= epochs; e++ {
			sc := &StreamCtx{Expr: &expr.Ctx{}, Epoch: int64(e)}
			for nb := rng.Intn(3); nb > 0; nb-- {
				var rows []joinRow
				for m := rng.Intn(15); m > 0; m-- {
					id++
					r := joinRow{key: int64(rng.Intn(4)), time: int64(e*8 + rng.Intn(20)), id: id}
					if !windowed && rng.Intn(12) == 0 {
						r.time = -1
					}
					if windowed {
						r.time = (r.time/size)*size + size // the window's end
						if r.time <= wm {
							late++
							rows = append(rows, r)
							continue
						}
					}
					maxT = max(maxT, r.time)
					rows = append(rows, r)
					all = append(all, r)
				}
				if err := op.Push(sc, 0, Inserts(joinBatch(rows))); err != nil {
					t.Fatal(err)
				}
			}
			if maxT != math.MinInt64 && maxT-size-delay > wm {
				wm = maxT - size - delay
			}
			if err := op.Advance(sc, 0, wm); err != nil {
				t.Fatal(err)
			}
			cs, _ := op.Emit(sc)
			apply(cs)
			if e == restoreAt {
				snap, err := op.SaveState(sc)
				if err != nil {
					t.Fatal(err)
				}
				nop := newOp()
				nop.CloseCol = op.CloseCol
				if err := nop.LoadState(sc, storedState(snap)); err != nil {
					t.Fatal(err)
				}
				op = nop
			}
		}
		if windowed {
			sc := &StreamCtx{Expr: &expr.Ctx{}, Epoch: int64(epochs + 1)}
			op.Advance(sc, 0, math.MaxInt64)
			cs, _ := op.Emit(sc)
			apply(cs)
			if r, _ := op.StateSize(); r != 0 {
				t.Fatalf("iter %d: %d rows held after the last window closed", iter, r)
			}
		}
		if op.Late() != late {
			t.Fatalf("iter %d: late %d, want %d", iter, op.Late(), late)
		}
		// Reference: group by (k[, window]), order by t desc nulls first, id.
		type part struct{ k, w int64 }
		groups := map[part][]joinRow{}
		for _, r := range all {
			p := part{k: r.key}
			if windowed {
				p.w = r.time
			}
			groups[p] = append(groups[p], r)
		}
		var want []string
		for _, rs := range groups {
			sort.SliceStable(rs, func(a, b int) bool {
				if (rs[a].time < 0) != (rs[b].time < 0) {
					return rs[a].time < 0
				}
				return rs[a].time > rs[b].time
			})
			for q := 0; q < len(rs) && int64(q) < n; q++ {
				s := fmtJoinRow(&rs[q])
				if rankCol {
					s += fmt.Sprintf(" %d", q+1)
				}
				want = append(want, s)
			}
		}
		var got []string
		for r, c := range held {
			if c != 1 {
				t.Fatalf("iter %d: row %q held %d times", iter, r, c)
			}
			got = append(got, r)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("iter %d (windowed %v rank %v n %d restore %d):\n got %v\nwant %v", iter, windowed, rankCol, n, restoreAt, got, want)
		}
	}
}
