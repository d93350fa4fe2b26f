package planner

import (
	"slices"
	"strings"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Event-time columns through a stream tree. A node's output watermark
// bounds its TimeCol, and for a join of two streams also the other
// side's event time (AltTimeCols): the join's watermark is the smallest
// of both sides' watermarks and of every kept row's time, so no later
// pair has either time below it. A window over a join's rows may then be
// on either side's time.

// timeColsThrough is where plan node n, over child, puts the child's
// event-time columns: the first is the output's TimeCol (-1: none), the
// rest its AltTimeCols.
func timeColsThrough(n Node, child *StreamNode) (int, []int) {
	main := timeColThrough(n, child)
	var alts []int
	for _, a := range child.AltTimeCols {
		if c := colThrough(n, child, a); c >= 0 && c != main && !slices.Contains(alts, c) {
			alts = append(alts, c)
		}
	}
	if main < 0 && len(alts) > 0 {
		main, alts = alts[0], alts[1:]
	}
	return main, alts
}

// colThrough is where plan node n, over child, puts child's column c
// (-1: n does not pass it on).
func colThrough(n Node, child *StreamNode, c int) int {
	switch x := n.(type) {
	case *Filter, *WindowAssign:
		return c
	case *Project:
		for i, e := range x.Exprs {
			if r, ok := e.(*expr.ColumnRef); ok && r.Index == c {
				return i
			}
		}
	case *Join:
		if sameColumns(x.Left.Columns(), child.Cols) {
			return c
		}
		return len(x.Left.Columns()) + c
	}
	return -1
}

// timeColsOfPlan are the event-time columns of the output of p, a plan
// inside a stateless node that reads base's rows through the scan of OID
// reads (nil when p does not carry them).
func timeColsOfPlan(p Node, base *StreamNode, reads uint32) []int {
	var at func(Node) (*StreamNode, bool)
	at = func(p Node) (*StreamNode, bool) {
		if s, ok := p.(*Scan); ok && s.OID == reads {
			return base, true
		}
		var in Node
		switch x := p.(type) {
		case *Filter:
			in = x.Input
		case *WindowAssign:
			in = x.Input
		case *Project:
			in = x.Input
		case *Join:
			if n, ok := at(x.Left); ok {
				return through(p, n), true
			}
			in = x.Right
		default:
			return nil, false
		}
		n, ok := at(in)
		if !ok {
			return nil, false
		}
		return through(p, n), true
	}
	n, ok := at(p)
	if !ok {
		return nil
	}
	var out []int
	if n.TimeCol >= 0 {
		out = append(out, n.TimeCol)
	}
	return append(out, n.AltTimeCols...)
}

// through is a stand-in node for p's output over n's rows: its columns
// and where n's event-time columns went.
func through(p Node, n *StreamNode) *StreamNode {
	main, alts := timeColsThrough(p, n)
	out := &StreamNode{Cols: p.Columns(), TimeCol: main, AltTimeCols: alts, WatermarkColumn: n.WatermarkColumn}
	if main >= 0 {
		out.WatermarkColumn = out.Cols[main].Name
	}
	return out
}

// checkWindowTime refuses a window assignment, inside the stateless
// input of a tree's aggregation, whose time is not an event-time column
// of the rows it windows: the watermark passed down would close its
// windows at the wrong moment.
func checkWindowTime(w *WindowAssign, child *StreamNode) error {
	if len(child.Children) != 1 {
		return nil
	}
	times := timeColsOfPlan(w.Input, child.Children[0], child.Reads)
	tc, ok := w.Time.(*expr.ColumnRef)
	if ok && slices.Contains(times, tc.Index) {
		return nil
	}
	cols := w.Input.Columns()
	names := make([]string, len(times))
	for i, t := range times {
		names[i] = cols[t].Name
	}
	what := "an expression"
	if ok {
		what = tc.Name
	}
	if len(names) == 0 {
		return sqlerr.New(sqlerr.FeatureNotSupported, "the window's time (%s) has no watermark here: add WATERMARK <column> DELAY OF ... to the streams below", what)
	}
	return sqlerr.New(sqlerr.FeatureNotSupported, "the window's time (%s) has no watermark here: window on an event-time column the watermark bounds (%s)", what, strings.Join(names, " or "))
}
