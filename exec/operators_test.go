package exec

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

var kv = cols("k", types.Int8, "v", types.Int8)

// kvScan is table t over two batches with NULL keys:
// (1,10) (2,20) (NULL,5) | (1,30) (NULL,7) (3,NULL)
func kvScan(tables fakeTables) *planner.Scan {
	return scanOf(tables, "t", kv,
		mkBatch(kv, row(int64(1), int64(10)), row(int64(2), int64(20)), row(nil, int64(5))),
		mkBatch(kv, row(int64(1), int64(30)), row(nil, int64(7)), row(int64(3), nil)))
}

func TestScanReslices(t *testing.T) {
	env, tables := newEnv()
	cs := cols("x", types.Int8)
	rows := make([][]expr.Datum, 20000)
	for i := range rows {
		rows[i] = row(int64(i))
	}
	bs, err := Run(context.Background(), env, scanOf(tables, "big", cs, mkBatch(cs, rows...)))
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 3 || bs[0].NumRows() != BatchSize || bs[2].NumRows() != 20000-2*BatchSize {
		t.Fatalf("batches: %d", len(bs))
	}
	if got := expr.DatumAt(bs[2].Column(0), 0); got != int64(2*BatchSize) {
		t.Fatalf("first row of third batch: %v", got)
	}
}

func TestFilterProject(t *testing.T) {
	env, tables := newEnv()
	scan := kvScan(tables)
	// v > 6: NULL v is dropped.
	f := &planner.Filter{Input: scan, Pred: cmpFunc(">", col(1, types.Int8), cnst(int64(6), types.Int8))}
	p := &planner.Project{Input: f, Exprs: []expr.Expr{col(1, types.Int8), col(0, types.Int8)}, Cols: cols("v", types.Int8, "k", types.Int8)}
	expect(t, run(t, env, p), "10 1", "20 2", "30 1", "7 NULL")
	// A predicate that is false or NULL everywhere gives no rows.
	none := &planner.Filter{Input: kvScan(tables), Pred: cnst(nil, types.Bool)}
	expect(t, run(t, env, none))
}

func TestValues(t *testing.T) {
	env, _ := newEnv()
	v := &planner.Values{Cols: kv, Rows: [][]expr.Expr{
		{cnst(int64(1), types.Int8), cnst(nil, types.Int8)},
		{cnst(int64(2), types.Int8), cnst(int64(3), types.Int8)},
	}}
	expect(t, run(t, env, v), "1 NULL", "2 3")
}

func TestHashAggregate(t *testing.T) {
	env, tables := newEnv()
	agg := &planner.Aggregate{
		Input:   kvScan(tables),
		GroupBy: []expr.Expr{col(0, types.Int8)},
		Aggs: []planner.AggCall{
			{Name: "sum", Agg: sumAgg, Args: []expr.Expr{col(1, types.Int8)}},
			{Name: "count", Agg: countAgg},
			{Name: "count", Agg: countAgg, Args: []expr.Expr{col(1, types.Int8)},
				Filter: cmpFunc(">", col(1, types.Int8), cnst(int64(8), types.Int8))},
		},
		Cols: cols("k", types.Int8, "sum", types.Int8, "count", types.Int8, "countf", types.Int8),
	}
	// NULL keys form one group; groups come out in order of first appearance.
	expect(t, run(t, env, agg), "1 40 2 2", "2 20 1 1", "NULL 12 2 0", "3 NULL 1 0")
}

func TestHashAggregateEmptyInput(t *testing.T) {
	env, tables := newEnv()
	empty := scanOf(tables, "e", kv)
	global := &planner.Aggregate{Input: empty,
		Aggs: []planner.AggCall{{Name: "sum", Agg: sumAgg, Args: []expr.Expr{col(1, types.Int8)}}, {Name: "count", Agg: countAgg}},
		Cols: cols("sum", types.Int8, "count", types.Int8)}
	expect(t, run(t, env, global), "NULL 0")
	grouped := &planner.Aggregate{Input: empty, GroupBy: []expr.Expr{col(0, types.Int8)},
		Aggs: []planner.AggCall{{Name: "count", Agg: countAgg}}, Cols: cols("k", types.Int8, "count", types.Int8)}
	expect(t, run(t, env, grouped))
}

func TestHashAggregateDistinctAndOrderBy(t *testing.T) {
	env, tables := newEnv()
	cs := cols("g", types.Text, "x", types.Text, "o", types.Int8)
	scan := scanOf(tables, "s", cs,
		mkBatch(cs, row("a", "p", int64(3)), row("a", "q", int64(1)), row("b", "r", int64(2))),
		mkBatch(cs, row("a", "p", int64(2)), row("b", "r", int64(1)), row("a", nil, int64(0))))
	agg := &planner.Aggregate{Input: scan, GroupBy: []expr.Expr{col(0, types.Text)},
		Aggs: []planner.AggCall{
			{Name: "count", Agg: countAgg, Args: []expr.Expr{col(1, types.Text)}, Distinct: true},
			{Name: "concat", Agg: concatAgg, Args: []expr.Expr{col(1, types.Text)},
				OrderBy: []planner.SortKey{{Expr: col(2, types.Int8)}}},
			{Name: "concat", Agg: concatAgg, Args: []expr.Expr{col(1, types.Text)}, Distinct: true,
				OrderBy: []planner.SortKey{{Expr: col(1, types.Text), Desc: true, NullsFirst: true}}},
		},
		Cols: cols("g", types.Text, "c", types.Int8, "s", types.Text, "d", types.Text)}
	expect(t, run(t, env, agg), "a 2 <nil>qpp <nil>qp", "b 1 rr r")
}

func TestHashAggregateNumericAndFloatKeys(t *testing.T) {
	env, tables := newEnv()
	cs := cols("n", types.Numeric, "f", types.Float8)
	scan := scanOf(tables, "n", cs, mkBatch(cs, row("1.0", 0.0), row("1.00", math.Copysign(0, -1)), row("2", 1.5), row("-0", 1.5)))
	agg := &planner.Aggregate{Input: scan, GroupBy: []expr.Expr{col(0, types.Numeric)},
		Aggs: []planner.AggCall{{Name: "count", Agg: countAgg}}, Cols: cols("n", types.Numeric, "c", types.Int8)}
	expect(t, run(t, env, agg), "1.0 2", "2 1", "-0 1")
	agg2 := &planner.Aggregate{Input: scan, GroupBy: []expr.Expr{col(1, types.Float8)},
		Aggs: []planner.AggCall{{Name: "count", Agg: countAgg}}, Cols: cols("f", types.Float8, "c", types.Int8)}
	expect(t, run(t, env, agg2), "0 2", "1.5 2")
}

func TestSort(t *testing.T) {
	env, tables := newEnv()
	// Sort by k ASC (NULLS LAST), then v DESC (NULLS FIRST).
	s := &planner.Sort{Input: kvScan(tables), Keys: []planner.SortKey{
		{Expr: col(0, types.Int8)}, {Expr: col(1, types.Int8), Desc: true, NullsFirst: true}}}
	expect(t, run(t, env, s), "1 30", "1 10", "2 20", "3 NULL", "NULL 7", "NULL 5")
	s2 := &planner.Sort{Input: kvScan(tables), Keys: []planner.SortKey{{Expr: col(0, types.Int8), Desc: true, NullsFirst: true}}}
	// Stable: equal keys keep input order.
	expect(t, run(t, env, s2), "NULL 5", "NULL 7", "3 NULL", "2 20", "1 10", "1 30")

	cs := cols("n", types.Numeric, "s", types.Text)
	ns := scanOf(tables, "ns", cs, mkBatch(cs, row("10", "b"), row("9.5", "B"), row("-1", "a"), row("10.0", "ä")))
	expect(t, run(t, env, &planner.Sort{Input: ns, Keys: []planner.SortKey{{Expr: col(0, types.Numeric)}}}),
		"-1 a", "9.5 B", "10 b", "10.0 ä")
	expect(t, run(t, env, &planner.Sort{Input: ns, Keys: []planner.SortKey{{Expr: col(1, types.Text)}}}),
		"9.5 B", "-1 a", "10 b", "10.0 ä")
}

func TestSortManyBatches(t *testing.T) {
	env, tables := newEnv()
	cs := cols("x", types.Int8)
	var batches []arrow.RecordBatch
	for b := 0; b < 3; b++ {
		rows := make([][]expr.Datum, 5000)
		for i := range rows {
			rows[i] = row(int64((i*7919 + b*13) % 15000))
		}
		batches = append(batches, mkBatch(cs, rows...))
	}
	bs, err := Run(context.Background(), env, &planner.Sort{Input: scanOf(tables, "m", cs, batches...), Keys: []planner.SortKey{{Expr: col(0, types.Int8)}}})
	if err != nil {
		t.Fatal(err)
	}
	prev, n := int64(-1), 0
	for _, b := range format(bs) {
		var v int64
		fmt.Sscan(b, &v)
		if v < prev {
			t.Fatalf("not sorted: %d after %d", v, prev)
		}
		prev = v
		n++
	}
	if n != 15000 || len(bs) != 2 {
		t.Fatalf("rows %d batches %d", n, len(bs))
	}
}

func TestLimit(t *testing.T) {
	env, tables := newEnv()
	l := &planner.Limit{Input: kvScan(tables), Limit: cnst(int64(2), types.Int8), Offset: cnst(int64(2), types.Int8)}
	expect(t, run(t, env, l), "NULL 5", "1 30")
	expect(t, run(t, env, &planner.Limit{Input: kvScan(tables), Limit: cnst(nil, types.Int8), Offset: cnst(int64(5), types.Int8)}), "3 NULL")
	expect(t, run(t, env, &planner.Limit{Input: kvScan(tables), Limit: cnst(int64(0), types.Int8)}))
	runErr(t, env, &planner.Limit{Input: kvScan(tables), Limit: cnst(int64(-1), types.Int8)}, "2201W")
	runErr(t, env, &planner.Limit{Input: kvScan(tables), Offset: cnst(int64(-1), types.Int8)}, "2201X")
}

func joinFixture(tables fakeTables) (*planner.Scan, *planner.Scan) {
	l := scanOf(tables, "l", kv,
		mkBatch(kv, row(int64(1), int64(10)), row(nil, int64(11))),
		mkBatch(kv, row(int64(2), int64(12)), row(int64(1), int64(13))))
	r := scanOf(tables, "r", kv,
		mkBatch(kv, row(int64(1), int64(100)), row(nil, int64(101))),
		mkBatch(kv, row(int64(3), int64(102)), row(int64(1), int64(103))))
	return l, r
}

func TestHashJoinKinds(t *testing.T) {
	env, tables := newEnv()
	l, r := joinFixture(tables)
	j := func(kind planner.JoinKind, cond expr.Expr) *planner.Join {
		return &planner.Join{Kind: kind, Left: l, Right: r, LeftKeys: []expr.Expr{col(0, types.Int8)},
			RightKeys: []expr.Expr{col(0, types.Int8)}, Cond: cond}
	}
	expectSorted(t, run(t, env, j(planner.InnerJoin, nil)), "1 10 1 100", "1 10 1 103", "1 13 1 100", "1 13 1 103")
	expectSorted(t, run(t, env, j(planner.LeftJoin, nil)),
		"1 10 1 100", "1 10 1 103", "1 13 1 100", "1 13 1 103", "NULL 11 NULL NULL", "2 12 NULL NULL")
	expectSorted(t, run(t, env, j(planner.RightJoin, nil)),
		"1 10 1 100", "1 10 1 103", "1 13 1 100", "1 13 1 103", "NULL NULL NULL 101", "NULL NULL 3 102")
	expectSorted(t, run(t, env, j(planner.FullJoin, nil)),
		"1 10 1 100", "1 10 1 103", "1 13 1 100", "1 13 1 103", "NULL 11 NULL NULL", "2 12 NULL NULL",
		"NULL NULL NULL 101", "NULL NULL 3 102")
	expectSorted(t, run(t, env, j(planner.SemiJoin, nil)), "1 10", "1 13")
	expectSorted(t, run(t, env, j(planner.AntiJoin, nil)), "NULL 11", "2 12")
	// Residual condition: left.v + 90 = right.v only for (10, 100) → v=10 vs 100.
	cond := cmpFunc(">", col(3, types.Int8), cnst(int64(101), types.Int8))
	expectSorted(t, run(t, env, j(planner.InnerJoin, cond)), "1 10 1 103", "1 13 1 103")
	expectSorted(t, run(t, env, j(planner.FullJoin, cond)), "1 10 1 103", "1 13 1 103",
		"NULL 11 NULL NULL", "2 12 NULL NULL", "NULL NULL 1 100", "NULL NULL NULL 101", "NULL NULL 3 102")
	expectSorted(t, run(t, env, j(planner.AntiJoin, cond)), "NULL 11", "2 12")
}

func TestHashJoinTextKeysAndEmptySides(t *testing.T) {
	env, tables := newEnv()
	cs := cols("s", types.Text)
	l := scanOf(tables, "ls", cs, mkBatch(cs, row("a"), row("b"), row(nil)))
	r := scanOf(tables, "rs", cs, mkBatch(cs, row("b"), row("c"), row(nil)))
	empty := scanOf(tables, "es", cs)
	j := &planner.Join{Kind: planner.InnerJoin, Left: l, Right: r, LeftKeys: []expr.Expr{col(0, types.Text)}, RightKeys: []expr.Expr{col(0, types.Text)}}
	expect(t, run(t, env, j), "b b")
	j2 := &planner.Join{Kind: planner.LeftJoin, Left: l, Right: empty, LeftKeys: []expr.Expr{col(0, types.Text)}, RightKeys: []expr.Expr{col(0, types.Text)}}
	expect(t, run(t, env, j2), "a NULL", "b NULL", "NULL NULL")
	j3 := &planner.Join{Kind: planner.AntiJoin, Left: l, Right: empty, LeftKeys: []expr.Expr{col(0, types.Text)}, RightKeys: []expr.Expr{col(0, types.Text)}}
	expect(t, run(t, env, j3), "a", "b", "NULL")
}

func TestNestedLoopJoin(t *testing.T) {
	env, tables := newEnv()
	l, r := joinFixture(tables)
	cross := &planner.Join{Kind: planner.CrossJoin, Left: l, Right: r}
	if got := run(t, env, cross); len(got) != 16 {
		t.Fatalf("cross join rows: %d", len(got))
	}
	// l.v > 11 AND r.k is compared by <: non-equi.
	cond := cmpFunc("<", col(0, types.Int8), col(2, types.Int8))
	expectSorted(t, run(t, env, &planner.Join{Kind: planner.InnerJoin, Left: l, Right: r, Cond: cond}),
		"1 10 3 102", "2 12 3 102", "1 13 3 102")
	expectSorted(t, run(t, env, &planner.Join{Kind: planner.LeftJoin, Left: l, Right: r, Cond: cond}),
		"1 10 3 102", "2 12 3 102", "1 13 3 102", "NULL 11 NULL NULL")
	expectSorted(t, run(t, env, &planner.Join{Kind: planner.RightJoin, Left: l, Right: r, Cond: cond}),
		"1 10 3 102", "2 12 3 102", "1 13 3 102", "NULL NULL 1 100", "NULL NULL NULL 101", "NULL NULL 1 103")
	expectSorted(t, run(t, env, &planner.Join{Kind: planner.SemiJoin, Left: l, Right: r, Cond: cond}), "1 10", "2 12", "1 13")
	expectSorted(t, run(t, env, &planner.Join{Kind: planner.AntiJoin, Left: l, Right: r, Cond: cond}), "NULL 11")
}

func TestLargeJoinOutputIsChunked(t *testing.T) {
	env, tables := newEnv()
	cs := cols("x", types.Int8)
	rows := make([][]expr.Datum, 300)
	for i := range rows {
		rows[i] = row(int64(1))
	}
	l := scanOf(tables, "a", cs, mkBatch(cs, rows...))
	r := scanOf(tables, "b", cs, mkBatch(cs, rows...))
	j := &planner.Join{Kind: planner.InnerJoin, Left: l, Right: r, LeftKeys: []expr.Expr{col(0, types.Int8)}, RightKeys: []expr.Expr{col(0, types.Int8)}}
	if got := run(t, env, j); len(got) != 90000 { // run checks every batch ≤ BatchSize
		t.Fatalf("rows: %d", len(got))
	}
}

func TestDistinct(t *testing.T) {
	env, tables := newEnv()
	cs := cols("a", types.Int8, "b", types.Text)
	scan := scanOf(tables, "d", cs,
		mkBatch(cs, row(int64(1), "x"), row(nil, nil), row(int64(1), "x")),
		mkBatch(cs, row(nil, nil), row(int64(1), "y"), row(int64(2), "x")))
	expect(t, run(t, env, &planner.Distinct{Input: scan}), "1 x", "NULL NULL", "1 y", "2 x")
	expect(t, run(t, env, &planner.Distinct{Input: scan, On: []expr.Expr{col(0, types.Int8)}}), "1 x", "NULL NULL", "2 x")
}

func TestSetOps(t *testing.T) {
	env, tables := newEnv()
	cs := cols("x", types.Int8)
	l := scanOf(tables, "sl", cs, mkBatch(cs, row(int64(1)), row(int64(1)), row(int64(1))), mkBatch(cs, row(int64(2)), row(nil), row(nil)))
	r := scanOf(tables, "sr", cs, mkBatch(cs, row(int64(1)), row(int64(3))), mkBatch(cs, row(nil), row(int64(1))))
	op := func(k planner.SetOpKind, all bool) *planner.SetOp {
		return &planner.SetOp{Kind: k, All: all, Left: l, Right: r, Cols: cs}
	}
	expect(t, run(t, env, op(planner.Union, true)), "1", "1", "1", "2", "NULL", "NULL", "1", "3", "NULL", "1")
	expectSorted(t, run(t, env, op(planner.Union, false)), "1", "2", "NULL", "3")
	expectSorted(t, run(t, env, op(planner.Intersect, false)), "1", "NULL")
	expectSorted(t, run(t, env, op(planner.Intersect, true)), "1", "1", "NULL")
	expectSorted(t, run(t, env, op(planner.Except, false)), "2")
	expectSorted(t, run(t, env, op(planner.Except, true)), "1", "2", "NULL")
}

func TestCancellation(t *testing.T) {
	env, tables := newEnv()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, plan := range []planner.Node{
		kvScan(tables),
		&planner.Sort{Input: kvScan(tables), Keys: []planner.SortKey{{Expr: col(0, types.Int8)}}},
		&planner.Aggregate{Input: kvScan(tables), Aggs: []planner.AggCall{{Name: "count", Agg: countAgg}}, Cols: cols("c", types.Int8)},
	} {
		_, err := Run(ctx, env, plan)
		if err == nil || err.Error() != "canceling statement due to user request" {
			t.Fatalf("%T: want cancel error, got %v", plan, err)
		}
	}
	// The statement's Done channel cancels too.
	done := make(chan struct{})
	close(done)
	env.Ctx.Done = done
	runErr(t, env, kvScan(tables), "57014")
}
