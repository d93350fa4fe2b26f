package exec

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// joinRow is one input row of the randomized interval-join test: a key
// (0 is NULL), an event time (-1 is NULL) and an id naming it.
type joinRow struct{ key, time, id int64 }

func joinBatch(rows []joinRow) arrow.RecordBatch {
	kb := array.NewInt64Builder(memory.DefaultAllocator)
	tb := array.NewTimestampBuilder(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Microsecond})
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	for _, r := range rows {
		if r.key == 0 {
			kb.AppendNull()
		} else {
			kb.Append(r.key)
		}
		if r.time < 0 {
			tb.AppendNull()
		} else {
			tb.Append(arrow.Timestamp(r.time))
		}
		ib.Append(r.id)
	}
	cols := []planner.Column{{Name: "k", T: types.Int8}, {Name: "t", T: types.Timestamp}, {Name: "id", T: types.Int8}}
	return array.NewRecordBatch(planner.Schema(cols), []arrow.Array{kb.NewArray(), tb.NewArray(), ib.NewArray()}, int64(len(rows)))
}

// TestIntervalJoinRandom runs random streams through the operator in
// random epochs, with a snapshot and restore at a random epoch, and
// compares its output with a nested-loop join of the rows that were not
// late, plus the unmatched rows of the preserved sides.
func TestIntervalJoinRandom(t *testing.T) {
	cols := []planner.Column{{Name: "k", T: types.Int8}, {Name: "t", T: types.Timestamp}, {Name: "id", T: types.Int8}}
	kinds := []planner.JoinKind{planner.InnerJoin, planner.LeftJoin, planner.RightJoin, planner.FullJoin}
	for iter := 0; iter < 400; iter++ {
		rng := rand.New(rand.NewSource(int64(iter)))
		kind := kinds[iter%4]
		lo, hi := int64(rng.Intn(30)-15), int64(rng.Intn(30))
		if lo > hi {
			lo, hi = hi, lo
		}
		delay := [2]int64{int64(rng.Intn(20)), int64(rng.Intn(20))}
		epochs := 2 + rng.Intn(8)
		restoreAt := rng.Intn(epochs + 1)
		newOp := func() *IntervalJoin {
			return &IntervalJoin{Kind: kind, LeftKeys: []expr.Expr{&expr.ColumnRef{Index: 0, T: types.Int8}},
				RightKeys: []expr.Expr{&expr.ColumnRef{Index: 0, T: types.Int8}}, LeftTime: 1, RightTime: 1,
				Lo: lo, Hi: hi, HasLo: true, HasHi: true, LeftCols: cols, RightCols: cols}
		}
		op := newOp()
		ectx := &expr.Ctx{}
		var got []string
		collect := func(cs []ChangeBatch) {
			for _, c := range cs {
				got = append(got, rowStrings(c.Rows)...)
			}
		}
		var kept [2][]joinRow
		wm := [2]int64{math.MinInt64, math.MinInt64}
		maxT := [2]int64{math.MinInt64, math.MinInt64}
		id := int64(0)
		late := int64(0)
		for e := 1; e <= epochs; e++ {
			sc := &StreamCtx{Expr: ectx, Epoch: int64(e)}
			for s := 0; s < 2; s++ {
				for nb := rng.Intn(3); nb > 0; nb-- {
					var rows []joinRow
					for n := rng.Intn(12); n > 0; n-- {
						id++
						r := joinRow{key: int64(rng.Intn(4)), time: int64(e*10 + rng.Intn(30) - 10), id: id}
						if rng.Intn(15) == 0 {
							r.time = -1
						}
						rows = append(rows, r)
						switch {
						case r.time >= 0 && r.time < wm[s] && r.key != 0:
							late++
						default:
							kept[s] = append(kept[s], r)
						}
						if r.time >= 0 {
							maxT[s] = max(maxT[s], r.time)
						}
					}
					if err := op.Push(sc, s, Inserts(joinBatch(rows))); err != nil {
						t.Fatal(err)
					}
				}
			}
			for s := 0; s < 2; s++ {
				if maxT[s] != math.MinInt64 && maxT[s]-delay[s] > wm[s] {
					wm[s] = maxT[s] - delay[s]
				}
				if err := op.Advance(sc, s, wm[s]); err != nil {
					t.Fatal(err)
				}
			}
			cs, err := op.Emit(sc)
			if err != nil {
				t.Fatal(err)
			}
			collect(cs)
			if e == restoreAt {
				snap, err := op.SaveState(sc)
				if err != nil {
					t.Fatal(err)
				}
				op = newOp()
				if err := op.LoadState(sc, storedState(snap)); err != nil {
					t.Fatal(err)
				}
			}
		}
		sc := &StreamCtx{Expr: ectx, Epoch: int64(epochs + 1)}
		for s := 0; s < 2; s++ {
			if err := op.Advance(sc, s, math.MaxInt64); err != nil {
				t.Fatal(err)
			}
		}
		cs, _ := op.Emit(sc)
		collect(cs)
		if op.Late() != late {
			t.Fatalf("iter %d: late %d, want %d", iter, op.Late(), late)
		}
		if r, _ := op.StateSize(); r != 0 {
			t.Fatalf("iter %d: %d rows left in state after the final watermark", iter, r)
		}
		want := referenceIntervalJoin(kept[0], kept[1], kind, lo, hi)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("iter %d (kind %d lo %d hi %d delay %v restore %d):\n got %v\nwant %v", iter, kind, lo, hi, delay, restoreAt, got, want)
		}
	}
}

func fmtJoinRow(r *joinRow) string {
	if r == nil {
		return "NULL NULL NULL"
	}
	k, tm := "NULL", "NULL"
	if r.key != 0 {
		k = fmt.Sprint(r.key)
	}
	if r.time >= 0 {
		tm = fmt.Sprint(r.time)
	}
	return k + " " + tm + " " + fmt.Sprint(r.id)
}

func referenceIntervalJoin(left, right []joinRow, kind planner.JoinKind, lo, hi int64) []string {
	var out []string
	lm := make([]bool, len(left))
	rm := make([]bool, len(right))
	for i, l := range left {
		for k, r := range right {
			if l.key != 0 && l.key == r.key && l.time >= 0 && r.time >= 0 && r.time-l.time >= lo && r.time-l.time <= hi {
				out = append(out, fmtJoinRow(&left[i])+" "+fmtJoinRow(&right[k]))
				lm[i], rm[k] = true, true
			}
		}
	}
	if kind == planner.LeftJoin || kind == planner.FullJoin {
		for i := range left {
			if !lm[i] {
				out = append(out, fmtJoinRow(&left[i])+" "+fmtJoinRow(nil))
			}
		}
	}
	if kind == planner.RightJoin || kind == planner.FullJoin {
		for k := range right {
			if !rm[k] {
				out = append(out, fmtJoinRow(nil)+" "+fmtJoinRow(&right[k]))
			}
		}
	}
	return out
}

// rowStrings renders rows as the reference does.
func rowStrings(b arrow.RecordBatch) []string {
	var out []string
	for i := 0; i < int(b.NumRows()); i++ {
		s := ""
		for c := 0; c < int(b.NumCols()); c++ {
			if c > 0 {
				s += " "
			}
			col := b.Column(c)
			switch {
			case col.IsNull(i):
				s += "NULL"
			default:
				switch a := col.(type) {
				case *array.Int64:
					s += fmt.Sprint(a.Value(i))
				case *array.Timestamp:
					s += fmt.Sprint(int64(a.Value(i)))
				case *array.String:
					s += a.Value(i)
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// storedState is what the store gives back of a snapshot: it keeps no
// batch without rows.
func storedState(bs []arrow.RecordBatch) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	for _, b := range bs {
		if b.NumRows() > 0 {
			out = append(out, b)
		}
	}
	return out
}
