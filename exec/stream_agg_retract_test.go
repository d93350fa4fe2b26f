package exec

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// clCatalog has cl(k bigint, v integer, f double precision, n numeric,
// s text): the rows of a changelog the tests below insert and delete.
type clCatalog struct{}

var clCols = []planner.RelColumn{{Name: "k", T: types.Int8}, {Name: "v", T: types.Int4}, {Name: "f", T: types.Float8}, {Name: "n", T: types.Numeric}, {Name: "s", T: types.Text}}

func (clCatalog) LookupRelation(schema, name string) (*planner.Relation, error) {
	if name != "cl" {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "relation \"%s\" does not exist", name)
	}
	return &planner.Relation{OID: 30002, Schema: "public", Name: "cl", Kind: planner.StoredTable, Cols: clCols}, nil
}

// boundPlan binds a query over cl.
func boundPlan(t *testing.T, sql string) planner.Node {
	t.Helper()
	stmts, err := parse.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	q, err := planner.BindQuery(clCatalog{}, stmts[0].Node, nil)
	if err != nil {
		t.Fatal(err)
	}
	return q.Plan
}

func findNode[T planner.Node](n planner.Node) (T, bool) {
	if x, ok := n.(T); ok {
		return x, true
	}
	for _, c := range n.Children() {
		if x, ok := findNode[T](c); ok {
			return x, true
		}
	}
	var zero T
	return zero, false
}

// clRow is one row of cl as SQL values (nil: NULL).
type clRow [5]expr.Datum

func randomClRow(rng *rand.Rand) clRow {
	var r clRow
	r[0] = int64(rng.Intn(5))
	if rng.Intn(8) > 0 {
		r[1] = int64(rng.Intn(200) - 50)
	}
	if rng.Intn(8) > 0 {
		r[2] = float64(rng.Intn(400)-100) / 4 // exact in binary: sums do not drift
	}
	if rng.Intn(8) > 0 {
		scale := rng.Intn(3)
		v := rng.Intn(20000) - 5000
		s := fmt.Sprint(v)
		if scale > 0 {
			neg := v < 0
			if neg {
				v = -v
			}
			s = fmt.Sprintf("%d.%0*d", v/100, scale, v%100%[]int{1, 10, 100}[scale])
			if neg {
				s = "-" + s
			}
		}
		r[3] = s
	}
	if rng.Intn(8) > 0 {
		r[4] = string(rune('a' + rng.Intn(26)))
	}
	return r
}

func clBatch(rows []clRow) arrow.RecordBatch {
	cols := make([]planner.Column, len(clCols))
	for c, rc := range clCols {
		cols[c] = planner.Column{Name: rc.Name, T: rc.T}
	}
	arrs := make([]arrow.Array, len(cols))
	for c, col := range cols {
		ds := make([]expr.Datum, len(rows))
		for i, r := range rows {
			ds[i] = r[c]
		}
		arrs[c] = expr.ArrayFromDatums(nil, col.T, ds)
	}
	return array.NewRecordBatch(planner.Schema(cols), arrs, int64(len(rows)))
}

func datumRows(bs ...arrow.RecordBatch) []string {
	var out []string
	for _, b := range bs {
		for i := 0; i < int(b.NumRows()); i++ {
			var parts []string
			for c := 0; c < int(b.NumCols()); c++ {
				parts = append(parts, fmt.Sprint(expr.DatumAt(b.Column(c), i)))
			}
			out = append(out, strings.Join(parts, " "))
		}
	}
	return out
}

// changelogRun drives op with random inserts and deletes of cl rows over
// random epochs, restoring a snapshot at a random epoch, and after every
// epoch compares the changelog applied to a multiset with the batch plan
// run over the rows live at that point.
func changelogRun(t *testing.T, iter int, batchPlan planner.Node, scanOID uint32, deletes bool, newOp func() StreamOperator) {
	rng := rand.New(rand.NewSource(int64(iter)))
	op := newOp()
	var live []clRow
	held := map[string]int{}
	epochs := 2 + rng.Intn(8)
	restoreAt := rng.Intn(epochs + 1)
	for e := 1; e <= epochs; e++ {
		sc := &StreamCtx{Expr: &expr.Ctx{}, Epoch: int64(e)}
		for nb := rng.Intn(4); nb > 0; nb-- {
			var rows []clRow
			var diff []int8
			for m := rng.Intn(20); m > 0; m-- {
				if deletes && len(live) > 0 && rng.Intn(3) == 0 {
					j := rng.Intn(len(live))
					rows, diff = append(rows, live[j]), append(diff, ChangeDelete)
					live = slices.Delete(live, j, j+1)
					continue
				}
				r := randomClRow(rng)
				if len(live) > 0 && rng.Intn(4) == 0 {
					r = live[rng.Intn(len(live))] // a duplicate
				}
				live = append(live, r)
				rows, diff = append(rows, r), append(diff, ChangeInsert)
			}
			if err := op.Push(sc, 0, ChangeBatch{Rows: clBatch(rows), Diff: diff}); err != nil {
				t.Fatalf("iter %d: %v", iter, err)
			}
		}
		if err := op.Advance(sc, 0, int64(e)); err != nil {
			t.Fatal(err)
		}
		cs, err := op.Emit(sc)
		if err != nil {
			t.Fatalf("iter %d: %v", iter, err)
		}
		for _, c := range cs {
			for i, r := range datumRows(c.Rows) {
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
		if e == restoreAt {
			snap, err := op.SaveState(sc)
			if err != nil {
				t.Fatal(err)
			}
			rows, bytes := op.StateSize()
			op = newOp()
			if err := op.LoadState(sc, storedState(snap)); err != nil {
				t.Fatalf("iter %d: load: %v", iter, err)
			}
			// The size kept up to date epoch by epoch is the size of the
			// same state built at once.
			if r2, b2 := op.StateSize(); r2 != rows || b2 != bytes {
				t.Fatalf("iter %d: state size %d rows %d bytes, after a restore %d rows %d bytes", iter, rows, bytes, r2, b2)
			}
		}
		env := &Env{Tables: &batchSource{oid: scanOID, batches: []arrow.RecordBatch{clBatch(live)}}, Ctx: sc.Expr}
		res, err := Run(context.Background(), env, batchPlan)
		if err != nil {
			t.Fatal(err)
		}
		want := datumRows(res...)
		var got []string
		for r, c := range held {
			if c < 0 {
				t.Fatalf("iter %d epoch %d: row %q deleted more often than inserted", iter, e, r)
			}
			for ; c > 0; c-- {
				got = append(got, r)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("iter %d epoch %d (restore %d):\n got %q\nwant %q", iter, e, restoreAt, got, want)
		}
	}
}

// TestRetractingAggregateRandom checks count, sum, avg, min and max (and
// FILTER) over a random changelog against the batch aggregation of the
// rows live after each epoch, with and without GROUP BY, and over an
// append-only input.
func TestRetractingAggregateRandom(t *testing.T) {
	for _, sql := range []string{
		"SELECT k, count(*), count(v), sum(v), avg(v), min(v), max(v), sum(f), avg(f), min(f), max(f), sum(n), avg(n), min(n), max(s), sum(v) FILTER (WHERE v > 3) FROM cl GROUP BY k",
		"SELECT count(*), sum(n), avg(v), max(v), min(s) FROM cl",
		"SELECT s, k % 2, sum(k), max(n), avg(f) FROM cl GROUP BY s, k % 2",
	} {
		plan := boundPlan(t, sql)
		agg, ok := findNode[*planner.Aggregate](plan)
		if !ok {
			t.Fatalf("%s: no aggregate", sql)
		}
		scan := agg.Input.(*planner.Scan)
		for iter := 0; iter < 150; iter++ {
			appendOnly := iter%3 == 2 // min and max keep only the extreme
			changelogRun(t, iter, agg, scan.OID, !appendOnly, func() StreamOperator {
				return &RetractingAggregate{GroupBy: agg.GroupBy, Aggs: agg.Aggs, Cols: agg.Columns(), AppendOnly: appendOnly}
			})
		}
	}
}

// TestChangelogOverRandom checks rolling aggregates, lag and row_number
// over a random changelog against the batch window functions over the
// rows live after each epoch.
func TestChangelogOverRandom(t *testing.T) {
	for _, sql := range []string{
		"SELECT k, v, n, avg(v) OVER (PARTITION BY k ORDER BY n, v ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), lag(n) OVER (PARTITION BY k ORDER BY n, v), rank() OVER (PARTITION BY k ORDER BY v) FROM cl",
		"SELECT k, sum(v) OVER (ORDER BY k) FROM cl",
		// Bounded reach: a change recomputes the rows it reaches. ORDER BY
		// every column, so that only equal rows tie (PostgreSQL orders ties
		// arbitrarily; equal rows are interchangeable).
		"SELECT k, v, avg(v) OVER w, lag(n, 2) OVER w, sum(f) OVER (PARTITION BY k ORDER BY n, v, f, s ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING), max(s) OVER w FROM cl" +
			" WINDOW w AS (PARTITION BY k ORDER BY n, v, f, s ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)",
		"SELECT k, v, s, count(*) OVER w, min(n) OVER w, lag(k) OVER w FROM cl WINDOW w AS (ORDER BY s DESC NULLS LAST, v NULLS FIRST, n, f, k ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)",
	} {
		plan := boundPlan(t, sql)
		w, ok := findNode[*planner.Window](plan)
		if !ok {
			t.Fatalf("%s: no window", sql)
		}
		so, err := planner.PlanChangelogOver(w)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: reach %d", sql, so.Context)
		scan := w.Input.(*planner.Scan)
		for iter := 0; iter < 150; iter++ {
			changelogRun(t, iter, w, scan.OID, true, func() StreamOperator { return &ChangelogOver{Window: w, Reach: so.Context} })
		}
	}
}
