package exec

import (
	"slices"
	"testing"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// TestAggregateInputSpills: aggregates with ORDER BY (ties included: the
// spilled merge is stable like the in-memory sort) and DISTINCT give the
// in-memory results when their input passes a 64kB work_mem, without
// GROUP BY and with a few large groups.
func TestAggregateInputSpills(t *testing.T) {
	cs := cols("k", types.Int8, "v", types.Text)
	aggs := []planner.AggCall{
		{Name: "count", Agg: countAgg, Args: []expr.Expr{col(0, types.Int8)}, Distinct: true},
		{Name: "concat", Agg: concatAgg, Args: []expr.Expr{col(1, types.Text)},
			OrderBy: []planner.SortKey{{Expr: col(0, types.Int8), Desc: true, NullsFirst: true}}},
		{Name: "concat", Agg: concatAgg, Args: []expr.Expr{col(1, types.Text)}, Distinct: true,
			OrderBy: []planner.SortKey{{Expr: col(1, types.Text), Desc: true}}},
		{Name: "sum", Agg: sumAgg, Args: []expr.Expr{col(0, types.Int8)}, Distinct: true},
	}
	for _, groupBy := range [][]expr.Expr{nil, {col(1, types.Text)}} {
		tables := fakeTables{}
		in := scanOf(tables, "t", cs, spillInput(60000, 7001)...)
		out := cols("c", types.Int8, "o", types.Text, "d", types.Text, "s", types.Int8)
		if groupBy != nil {
			out = append(cols("v", types.Text), out...)
		}
		plan := &planner.Aggregate{Input: in, GroupBy: groupBy, Aggs: aggs, Cols: out}
		a, b, files := runBoth(t, tables, plan)
		if files == 0 {
			t.Errorf("group by %v: no spill", groupBy)
		}
		if len(a) == 0 || !slices.Equal(a, b) {
			t.Errorf("group by %v: spilled results differ from in-memory ones", groupBy)
		}
	}
}
