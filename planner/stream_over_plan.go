package planner

import (
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// StreamOver is window functions (OVER) in a streaming table that reach a
// bounded number of earlier rows in event-time order, computed as rows
// become final at the watermark (exec.RollingOver).
type StreamOver struct {
	Window *Window
	// TimeCol is the index in Window.Input's columns of the event time
	// every call orders by first; Context how many earlier rows of a
	// partition the widest frame (or lag) reaches.
	TimeCol int
	Context int
	// Changelog: the input deletes rows, so no row is final; every
	// partition is kept, and a change recomputes the Context rows after it
	// or, with Context -1, its whole partition (exec.ChangelogOver;
	// TimeCol is unused).
	Changelog bool
}

// PlanStreamOver checks that every call of w can run over a stream: the
// same PARTITION BY and ORDER BY, ordered first by the watermarked column
// ascending, with a ROWS frame reaching a constant number of rows back
// (or lag with a constant offset). It says what to change otherwise.
func PlanStreamOver(w *Window, timeCol int, watermarkCol string) (*StreamOver, error) {
	so := &StreamOver{Window: w, TimeCol: -1}
	hint := "Order by the watermarked event time and use ROWS BETWEEN <n> PRECEDING AND CURRENT ROW."
	if timeCol < 0 {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "window functions (OVER) in a streaming table need a watermark: a row's value is final once no earlier row can arrive").
			WithHint("Add WATERMARK <column> DELAY OF INTERVAL ... to the input. " + hint)
	}
	cols := w.Input.Columns()
	first := &w.Calls[0]
	for i := range w.Calls {
		c := &w.Calls[i]
		if !sameExprs(c.PartitionBy, first.PartitionBy) || !sameSortKeys(c.OrderBy, first.OrderBy) {
			return nil, refuse("window functions in a streaming table must share one PARTITION BY and ORDER BY")
		}
		if len(c.OrderBy) == 0 {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "%s OVER in a streaming table needs ORDER BY the event time", c.Name).WithHint(hint)
		}
		ref, ok := c.OrderBy[0].Expr.(*expr.ColumnRef)
		if !ok || ref.Index >= len(cols) || ref.Index != timeCol || c.OrderBy[0].Desc {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "%s OVER in a streaming table must be ordered first by the watermarked column \"%s\", ascending", c.Name, watermarkCol).WithHint(hint)
		}
		so.TimeCol = ref.Index
		reach, err := callReach(c)
		if err != nil {
			return nil, err
		}
		so.Context = max(so.Context, reach)
	}
	return so, nil
}

// callReach is how many rows before the current one a call reads.
func callReach(c *WindowCall) (int, error) {
	hint := "Use ROWS BETWEEN <n> PRECEDING AND CURRENT ROW: the state then holds n rows per partition."
	switch c.Name {
	case "lag":
		if len(c.Args) < 2 {
			return 1, nil
		}
		n, ok := constInt(c.Args[1])
		if !ok || n < 0 || n > 100000 {
			return 0, refuse("lag in a streaming table needs a constant offset between 0 and 100000")
		}
		return int(n), nil
	case "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile":
		return 0, sqlerr.New(sqlerr.FeatureNotSupported, "%s() OVER in a streaming table is supported only as a Top-N filter (WHERE row_number <= N)", c.Name)
	case "lead":
		return 0, refuse("lead() in a streaming table would wait for later rows; use lag() over the reversed roles")
	}
	f := c.Frame
	if !f.Rows {
		return 0, sqlerr.New(sqlerr.FeatureNotSupported, "%s OVER in a streaming table needs a ROWS frame: the default frame reaches back to the partition's first row", c.Name).WithHint(hint)
	}
	reach := 0
	for _, b := range []FrameBound{f.Start, f.End} {
		switch b.Kind {
		case CurrentRow:
		case OffsetPreceding:
			n, ok := constInt(b.Offset)
			if !ok || n < 0 || n > 100000 {
				return 0, refuse("a frame in a streaming table reaches back a constant number of rows between 0 and 100000")
			}
			reach = max(reach, int(n))
		case UnboundedPreceding:
			return 0, sqlerr.New(sqlerr.FeatureNotSupported, "UNBOUNDED PRECEDING in a streaming table would keep every row").WithHint(hint)
		default:
			return 0, sqlerr.New(sqlerr.FeatureNotSupported, "FOLLOWING in a streaming table would wait for later rows").WithHint(hint)
		}
	}
	if f.Exclude != ExcludeNoOthers {
		return 0, refuse("EXCLUDE in a window frame is not supported in a streaming table")
	}
	return reach, nil
}

func sameExprs(a, b []expr.Expr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if exprKey(a[i]) != exprKey(b[i]) {
			return false
		}
	}
	return true
}

func sameSortKeys(a, b []SortKey) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Desc != b[i].Desc || a[i].NullsFirst != b[i].NullsFirst || exprKey(a[i].Expr) != exprKey(b[i].Expr) {
			return false
		}
	}
	return true
}
