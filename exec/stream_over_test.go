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
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// evCatalog has ev(k bigint, t timestamp, id bigint), the rows joinBatch makes.
type evCatalog struct{}

func (evCatalog) LookupRelation(schema, name string) (*planner.Relation, error) {
	if name != "ev" {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "relation \"%s\" does not exist", name)
	}
	return &planner.Relation{OID: 30001, Schema: "public", Name: "ev", Kind: planner.StoredTable,
		Cols: []planner.RelColumn{{Name: "k", T: types.Int8}, {Name: "t", T: types.Timestamp}, {Name: "id", T: types.Int8}}}, nil
}

func windowOf(t *testing.T, sql string) *planner.Window {
	t.Helper()
	stmts, err := parse.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	q, err := planner.BindQuery(evCatalog{}, stmts[0].Node, nil)
	if err != nil {
		t.Fatal(err)
	}
	var w *planner.Window
	var walk func(planner.Node)
	walk = func(n planner.Node) {
		if x, ok := n.(*planner.Window); ok {
			w = x
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(q.Plan)
	if w == nil {
		t.Fatalf("%s: no window node", sql)
	}
	return w
}

// TestRollingOverRandom computes sum, count and lag over the 2 rows before
// each row in event-time order, from random rows in random epochs with a
// snapshot restored at a random epoch, and compares with the values
// computed directly.
func TestRollingOverRandom(t *testing.T) {
	w := windowOf(t, "SELECT k, t, id, sum(id) OVER w, count(*) OVER w, lag(id, 2) OVER w FROM ev"+
		" WINDOW w AS (PARTITION BY k ORDER BY t ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)")
	for iter := 0; iter < 200; iter++ {
		rng := rand.New(rand.NewSource(int64(iter)))
		newOp := func() *RollingOver { return &RollingOver{Window: w, TimeCol: 1, Context: 2} }
		op := newOp()
		delay := int64(rng.Intn(15))
		epochs := 2 + rng.Intn(8)
		restoreAt := rng.Intn(epochs + 1)
		var got []string
		var all []joinRow
		wm, maxT := int64(math.MinInt64), int64(math.MinInt64)
		id, late := int64(0), int64(0)
		for e := 1; e <= epochs+1; e++ {
			sc := &StreamCtx{Expr: &expr.Ctx{}, Epoch: int64(e)}
			if e <= epochs {
				for nb := rng.Intn(3); nb > 0; nb-- {
					var rows []joinRow
					for m := rng.Intn(15); m > 0; m-- {
						id++
						r := joinRow{key: int64(1 + rng.Intn(3)), time: int64(e*8 + rng.Intn(20)), id: id}
						if r.time < wm {
							late++
						} else {
							all = append(all, r)
						}
						maxT = max(maxT, r.time)
						rows = append(rows, r)
					}
					if err := op.Push(sc, 0, Inserts(joinBatch(rows))); err != nil {
						t.Fatal(err)
					}
				}
				if maxT != math.MinInt64 && maxT-delay > wm {
					wm = maxT - delay
				}
			} else {
				wm = math.MaxInt64
			}
			if err := op.Advance(sc, 0, wm); err != nil {
				t.Fatal(err)
			}
			cs, _ := op.Emit(sc)
			for _, c := range cs {
				got = append(got, rowStrings(c.Rows)...)
			}
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
		if op.Late() != late {
			t.Fatalf("iter %d: late %d, want %d", iter, op.Late(), late)
		}
		parts := map[int64][]joinRow{}
		for _, r := range all {
			parts[r.key] = append(parts[r.key], r)
		}
		var want []string
		for _, rs := range parts {
			sort.SliceStable(rs, func(a, b int) bool { return rs[a].time < rs[b].time })
			for i, r := range rs {
				sum, n := int64(0), 0
				for j := max(0, i-2); j <= i; j++ {
					sum += rs[j].id
					n++
				}
				lag := "NULL"
				if i >= 2 {
					lag = fmt.Sprint(rs[i-2].id)
				}
				want = append(want, fmt.Sprintf("%s %d %d %s", fmtJoinRow(&r), sum, n, lag))
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("iter %d (restore %d):\n got %v\nwant %v", iter, restoreAt, got, want)
		}
	}
}
