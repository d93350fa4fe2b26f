package exec

import (
	"testing"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

func TestWindow(t *testing.T) {
	env, tables := newEnv()
	cs := cols("p", types.Text, "o", types.Int8)
	scan := scanOf(tables, "w", cs,
		mkBatch(cs, row("a", int64(1)), row("a", int64(2)), row("b", int64(5))),
		mkBatch(cs, row("a", int64(2)), row("a", int64(4)), row(nil, int64(9))))
	part := []expr.Expr{col(0, types.Text)}
	ord := []planner.SortKey{{Expr: col(1, types.Int8)}}
	rowsFrame := func(s, e planner.FrameBoundKind, n int64) planner.Frame {
		return planner.Frame{Rows: true, Start: planner.FrameBound{Kind: s, Offset: cnst(n, types.Int8)}, End: planner.FrameBound{Kind: e, Offset: cnst(n, types.Int8)}}
	}
	calls := []planner.WindowCall{
		{Name: "row_number", PartitionBy: part, OrderBy: ord, T: types.Int8},
		{Name: "rank", PartitionBy: part, OrderBy: ord, T: types.Int8},
		{Name: "dense_rank", PartitionBy: part, OrderBy: ord, T: types.Int8},
		{Name: "sum", Agg: sumAgg, Args: []expr.Expr{col(1, types.Int8)}, PartitionBy: part, OrderBy: ord, T: types.Int8},
		{Name: "sum", Agg: sumAgg, Args: []expr.Expr{col(1, types.Int8)}, PartitionBy: part, OrderBy: ord, T: types.Int8,
			Frame: rowsFrame(planner.OffsetPreceding, planner.OffsetFollowing, 1)},
		{Name: "lag", Args: []expr.Expr{col(1, types.Int8)}, PartitionBy: part, OrderBy: ord, T: types.Int8},
		{Name: "lead", Args: []expr.Expr{col(1, types.Int8), cnst(int64(2), types.Int8), cnst(int64(-1), types.Int8)}, PartitionBy: part, OrderBy: ord, T: types.Int8},
		{Name: "ntile", Args: []expr.Expr{cnst(int64(3), types.Int8)}, PartitionBy: part, OrderBy: ord, T: types.Int8},
		{Name: "last_value", Args: []expr.Expr{col(1, types.Int8)}, PartitionBy: part, OrderBy: ord, T: types.Int8},
		{Name: "first_value", Args: []expr.Expr{col(1, types.Int8)}, PartitionBy: part, OrderBy: ord, T: types.Int8,
			Frame: rowsFrame(planner.CurrentRow, planner.UnboundedFollowing, 0)},
		{Name: "cume_dist", PartitionBy: part, OrderBy: ord, T: types.Float8},
		{Name: "percent_rank", PartitionBy: part, OrderBy: ord, T: types.Float8},
		{Name: "sum", Agg: sumAgg, Args: []expr.Expr{col(1, types.Int8)}, T: types.Int8}, // whole input
	}
	out := append(cs, make([]planner.Column, len(calls))...)
	for i, c := range calls {
		out[len(cs)+i] = planner.Column{Name: c.Name, T: c.T}
	}
	w := &planner.Window{Input: scan, Calls: calls, Cols: out}
	// Rows keep input order. Partition a is ordered 1, 2, 2, 4 (the two 2s are peers).
	expect(t, run(t, env, w),
		"a 1 1 1 1 1 3 NULL 2 1 1 1 0.25 0 23",
		"a 2 2 2 2 5 5 1 4 1 2 2 0.75 0.3333333333333333 23",
		"b 5 1 1 1 5 5 NULL -1 1 5 5 1 0 23",
		"a 2 3 2 2 5 8 2 -1 2 2 2 0.75 0.3333333333333333 23",
		"a 4 4 4 3 9 6 2 -1 3 4 4 1 1 23",
		"NULL 9 1 1 1 9 9 NULL -1 1 9 9 1 0 23")
}

func TestWindowEmptyInput(t *testing.T) {
	env, tables := newEnv()
	cs := cols("o", types.Int8)
	w := &planner.Window{Input: scanOf(tables, "we", cs), Calls: []planner.WindowCall{{Name: "row_number", T: types.Int8}},
		Cols: cols("o", types.Int8, "rn", types.Int8)}
	expect(t, run(t, env, w))
}
