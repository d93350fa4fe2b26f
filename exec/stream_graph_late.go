package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// A stream tree's late rows: every stateful operator drops rows of its
// own input's shape (a join the row padded with the other side's NULLs,
// an aggregation its input with the window), so one late_rows table
// cannot hold them column for column. The tree's late_rows table has two
// columns instead: the operator that dropped the row, and the row as a
// jsonb object of its column names and values.

// LateRowsColumns are the columns of a stream tree's late_rows table.
var LateRowsColumns = []planner.Column{{Name: "operator", T: types.Text}, {Name: "late_row", T: types.JSONB}}

// lateShape is what a graph node's late rows look like: a label naming
// the operator, and the columns of the rows it drops.
type lateShape struct {
	label string
	cols  []planner.Column
}

// lateShapeOf is the shape of the late rows of a tree node's operator.
func lateShapeOf(n *planner.StreamNode) lateShape {
	switch n.Kind {
	case planner.JoinNode:
		j := n.Join.Join
		kind := map[planner.JoinKind]string{planner.InnerJoin: "inner", planner.LeftJoin: "left",
			planner.RightJoin: "right", planner.FullJoin: "full", planner.CrossJoin: "inner"}[j.Kind]
		label := kind + " interval join of " + n.Join.Sides[0].Label() + " and " + n.Join.Sides[1].Label()
		// The two sides' columns, named side.column: they often share
		// names (id, t), and a jsonb object keeps one value per key.
		var cols []planner.Column
		for s, side := range []planner.Node{j.Left, j.Right} {
			for _, c := range side.Columns() {
				c.Name = n.Join.Sides[s].Label() + "." + c.Name
				cols = append(cols, c)
			}
		}
		return lateShape{label: label, cols: cols}
	case planner.AggNode:
		return lateShape{label: "window aggregation", cols: n.Agg.Agg.Input.Columns()}
	case planner.DedupNode:
		return lateShape{label: "deduplication", cols: n.Dedup.Pre.Columns()}
	case planner.TopNNode:
		return lateShape{label: "top-n", cols: n.TopN.Input.Columns()}
	case planner.OverNode:
		return lateShape{label: "rolling window", cols: n.Over.Window.Input.Columns()}
	}
	label := "operator"
	if len(n.Children) == 1 {
		return lateShape{label: label, cols: n.Children[0].Cols}
	}
	return lateShape{label: label}
}

// lateRowsAsJSON turns late rows of the shape s into rows of
// LateRowsColumns. A batch whose columns are not the shape's (an
// operator that changed what it keeps) is still written, its columns'
// types taken from their Arrow types.
func lateRowsAsJSON(ctx *expr.Ctx, s lateShape, b arrow.RecordBatch) arrow.RecordBatch {
	n := int(b.NumRows())
	names := make([]string, b.NumCols())
	ts := make([]types.T, b.NumCols())
	for c := range names {
		names[c] = b.Schema().Field(c).Name
		if len(s.cols) == len(names) {
			names[c], ts[c] = s.cols[c].Name, s.cols[c].T
		} else {
			ts[c] = typeOfArrow(b.Column(c).DataType())
		}
	}
	ops := array.NewStringBuilder(memory.DefaultAllocator)
	rows := array.NewStringBuilder(memory.DefaultAllocator)
	defer ops.Release()
	defer rows.Release()
	for i := 0; i < n; i++ {
		ops.Append(s.label)
		rows.Append(expr.RowJSONB(ctx, names, ts, b.Columns(), i))
	}
	a, r := ops.NewArray(), rows.NewArray()
	defer a.Release()
	defer r.Release()
	return array.NewRecordBatch(planner.Schema(LateRowsColumns), []arrow.Array{a, r}, int64(n))
}

// typeOfArrow is the SQL type most likely carried in an Arrow type (see
// the table in sql/types): a fallback for rows whose planner columns are
// unknown.
func typeOfArrow(dt arrow.DataType) types.T {
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return types.Bool
	case *arrow.Int16Type:
		return types.Int2
	case *arrow.Int32Type:
		return types.Int4
	case *arrow.Int64Type:
		return types.Int8
	case *arrow.Float32Type:
		return types.Float4
	case *arrow.Float64Type:
		return types.Float8
	case *arrow.Date32Type:
		return types.Date
	case *arrow.BinaryType:
		return types.Bytea
	case *arrow.TimestampType:
		if t.TimeZone != "" {
			return types.TimestampTZ
		}
		return types.Timestamp
	case *arrow.MonthDayNanoIntervalType:
		return types.Interval
	}
	return types.Text
}
