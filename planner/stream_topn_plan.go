package planner

import (
	"math"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// StreamTopN is `ROW_NUMBER() OVER (PARTITION BY … ORDER BY …) <= N` in a
// streaming table (Flink's and RisingWave's Top-N): the first N rows of
// each partition. When the partition holds a window's start or end, each
// window's top N is final when the watermark closes the window
// (CloseCol); otherwise the top N is a changelog of rows entering and
// leaving it.
type StreamTopN struct {
	// Input is the plan below the window function.
	Input       Node
	PartitionBy []expr.Expr
	OrderBy     []SortKey
	N           int64
	// RankCol: the row number is read above (the output is Input's
	// columns followed by it, as the Window node's are).
	RankCol bool
	// CloseCol is the index in Input's columns of the window bound the
	// partition holds, CloseOffset what to add to reach the window's end
	// (its size for window_start); -1 without a window.
	CloseCol    int
	CloseOffset int64
	// Project, when not nil, is a projection between the window function
	// and the filter (a subquery's select list), applied to the Top-N's
	// output; Residual is the rest of the filter, over the Window node's
	// columns or, with Project, over Project's.
	Project  *Project
	Residual expr.Expr
}

// MatchStreamTopN recognises a filter on a row_number() window call that
// bounds it above: rn <= N, rn < N, rn = 1, N >= rn, and the same under
// AND with other conditions (which then filter the top N rows). readsRank
// says whether the plan above the filter reads the row number column.
// ok is false when the filter is not of that shape.
func MatchStreamTopN(f *Filter, readsRank bool) (*StreamTopN, bool) {
	in := f.Input
	proj, isProject := in.(*Project)
	if isProject {
		in = proj.Input
	}
	w, isWindow := in.(*Window)
	if !isWindow || len(w.Calls) != 1 || w.Calls[0].Name != "row_number" || len(w.Calls[0].OrderBy) == 0 {
		return nil, false
	}
	call := &w.Calls[0]
	windowRank := len(w.Input.Columns())
	rankCol := windowRank // in the filter's input
	if proj != nil {
		rankCol = -1
		for i, e := range proj.Exprs {
			if isRankRef(e, windowRank) {
				rankCol = i
			}
			walkExpr(e, func(x expr.Expr) {
				if isRankRef(x, windowRank) {
					readsRank = true
				}
			})
		}
		if rankCol < 0 {
			return nil, false
		}
	}
	n := int64(math.MaxInt64)
	var rest []expr.Expr
	for _, c := range conjuncts(f.Pred) {
		if bound, ok := rankBound(c, rankCol); ok {
			n = min(n, bound)
			continue
		}
		rest = append(rest, c)
	}
	if n == math.MaxInt64 {
		return nil, false
	}
	t := &StreamTopN{Input: w.Input, PartitionBy: call.PartitionBy, OrderBy: call.OrderBy, N: max(n, 0),
		RankCol: readsRank, CloseCol: -1, Project: proj}
	switch len(rest) {
	case 0:
	case 1:
		t.Residual = rest[0]
	default:
		t.Residual = &expr.BoolOp{And: true, Args: rest}
	}
	if t.Residual != nil {
		walkExpr(t.Residual, func(e expr.Expr) {
			if c, ok := e.(*expr.ColumnRef); ok && c.Index == rankCol {
				t.RankCol = true
			}
		})
	}
	t.findWindow()
	return t, true
}

// rankBound reads rn <= N (and its spellings) as the bound N.
func rankBound(e expr.Expr, rankCol int) (int64, bool) {
	f, ok := e.(*expr.FuncCall)
	if !ok || !f.Op || len(f.Args) != 2 {
		return 0, false
	}
	op := f.Name
	a, b := f.Args[0], f.Args[1]
	if isRankRef(b, rankCol) {
		a, b = b, a
		op = flipOp(op)
	}
	if !isRankRef(a, rankCol) {
		return 0, false
	}
	k, ok := constInt(b)
	if !ok {
		return 0, false
	}
	switch op {
	case "<=":
		return k, true
	case "<":
		return k - 1, true
	case "=":
		if k == 1 {
			return 1, true
		}
	}
	return 0, false
}

func isRankRef(e expr.Expr, rankCol int) bool {
	c, ok := e.(*expr.ColumnRef)
	return ok && c.Index == rankCol
}

// findWindow looks for window_end or window_start among the partition
// keys, produced by a tumbling or hopping window assignment below.
func (t *StreamTopN) findWindow() {
	cols := t.Input.Columns()
	var assign *WindowAssign
	var walk func(Node)
	walk = func(n Node) {
		if w, ok := n.(*WindowAssign); ok && assign == nil {
			assign = w
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(t.Input)
	if assign == nil || assign.Kind == SessionWindow {
		return
	}
	for _, p := range t.PartitionBy {
		c, ok := p.(*expr.ColumnRef)
		if !ok || c.Index >= len(cols) {
			continue
		}
		if c.T.OID != types.OidTimestamp && c.T.OID != types.OidTimestampTZ {
			continue
		}
		switch cols[c.Index].Name {
		case "window_end":
			t.CloseCol, t.CloseOffset = c.Index, 0
			return
		case "window_start":
			if t.CloseCol < 0 {
				t.CloseCol, t.CloseOffset = c.Index, assign.Size
			}
		}
	}
}
