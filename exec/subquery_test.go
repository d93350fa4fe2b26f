package exec

import (
	"testing"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

func TestScalarSubquery(t *testing.T) {
	env, tables := newEnv()
	inner := &planner.Aggregate{Input: kvScan(tables), Aggs: []planner.AggCall{{Name: "sum", Agg: sumAgg, Args: []expr.Expr{col(1, types.Int8)}}},
		Cols: cols("s", types.Int8)}
	sub := &expr.Subquery{Kind: expr.ScalarSubquery, Plan: inner, T: types.Int8}
	p := &planner.Project{Input: kvScan(tables), Exprs: []expr.Expr{col(0, types.Int8), sub}, Cols: cols("k", types.Int8, "s", types.Int8)}
	got := run(t, env, p)
	if len(got) != 6 || got[0] != "1 72" || got[5] != "3 72" {
		t.Fatalf("got %v", got)
	}
	// More than one row is an error; no row is NULL.
	multi := &expr.Subquery{Kind: expr.ScalarSubquery, Plan: &planner.Project{Input: kvScan(tables), Exprs: []expr.Expr{col(0, types.Int8)}, Cols: cols("k", types.Int8)}, T: types.Int8}
	runErr(t, env, &planner.Project{Input: kvScan(tables), Exprs: []expr.Expr{multi}, Cols: cols("x", types.Int8)}, "21000")
	none := &expr.Subquery{Kind: expr.ScalarSubquery, Plan: scanOf(tables, "empty", kv), T: types.Int8}
	expect(t, run(t, env, &planner.Values{Rows: [][]expr.Expr{{none}}, Cols: cols("x", types.Int8)}), "NULL")
}

func TestCorrelatedSubquery(t *testing.T) {
	env, tables := newEnv()
	// For each row of t: (SELECT count(*) FROM t AS i WHERE i.k = outer.k).
	innerScan := kvScan(tables)
	filter := &planner.Filter{Input: innerScan, Pred: cmpFunc("=", col(0, types.Int8), &expr.OuterRef{Depth: 1, Index: 0, T: types.Int8})}
	count := &planner.Aggregate{Input: filter, Aggs: []planner.AggCall{{Name: "count", Agg: countAgg}}, Cols: cols("c", types.Int8)}
	sub := &expr.Subquery{Kind: expr.ScalarSubquery, Plan: count, Correlated: true, T: types.Int8}
	p := &planner.Project{Input: kvScan(tables), Exprs: []expr.Expr{col(0, types.Int8), sub}, Cols: cols("k", types.Int8, "c", types.Int8)}
	expect(t, run(t, env, p), "1 2", "2 1", "NULL 0", "1 2", "NULL 0", "3 1")
	exists := &expr.Subquery{Kind: expr.ExistsSubquery, Plan: filter, Correlated: true, T: types.Bool}
	f := &planner.Filter{Input: kvScan(tables), Pred: exists}
	expect(t, run(t, env, f), "1 10", "2 20", "1 30", "3 NULL")
}

func TestAnyAllSubquery(t *testing.T) {
	env, tables := newEnv()
	cs := cols("x", types.Int8)
	vals := scanOf(tables, "vals", cs, mkBatch(cs, row(int64(1)), row(int64(2))))
	withNull := scanOf(tables, "wn", cs, mkBatch(cs, row(int64(1)), row(nil)))
	empty := scanOf(tables, "em", cs)
	probe := scanOf(tables, "probe", cs, mkBatch(cs, row(int64(1)), row(int64(3)), row(nil)))
	eq := cmpFunc("=", nil, nil).Impl
	gt := cmpFunc(">", nil, nil).Impl
	check := func(kind expr.SubqueryKind, plan planner.Node, cmp expr.ScalarImpl, want ...string) {
		t.Helper()
		sub := &expr.Subquery{Kind: kind, Plan: plan, T: types.Bool, Left: col(0, types.Int8), Cmp: cmp, Op: "="}
		expect(t, run(t, env, &planner.Project{Input: probe, Exprs: []expr.Expr{sub}, Cols: cols("r", types.Bool)}), want...)
	}
	check(expr.AnySubquery, vals, eq, "true", "false", "NULL")
	check(expr.AnySubquery, withNull, eq, "true", "NULL", "NULL")
	check(expr.AnySubquery, empty, eq, "false", "false", "false")
	check(expr.AllSubquery, empty, eq, "true", "true", "true")
	check(expr.AllSubquery, vals, gt, "false", "true", "NULL")
	check(expr.AllSubquery, withNull, gt, "false", "NULL", "NULL")
}
