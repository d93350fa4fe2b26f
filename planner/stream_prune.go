package planner

import (
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// pruneStreamJoinInputs narrows the inputs of each join that a projection
// or an aggregation reads (through filters) to the columns it, the
// filters and the join itself use. A join of streams keeps its inputs'
// rows as state and copies them into every pair: Nexmark's auctions carry
// descriptions and extras no query selects. Every timestamp column is
// kept, as a side's watermark column may be read by nothing else. The
// plan is changed in place; a join whose column references cannot all be
// renumbered is left as it is.
func pruneStreamJoinInputs(n Node) {
	for _, c := range n.Children() {
		pruneStreamJoinInputs(c)
	}
	switch x := n.(type) {
	case *Project:
		pruneUnder(x.Input, x.Exprs, func(fn func(expr.Expr) expr.Expr) {
			for i, e := range x.Exprs {
				x.Exprs[i] = fn(e)
			}
		})
	case *Aggregate:
		var reads []expr.Expr
		reads = append(reads, x.GroupBy...)
		for _, a := range x.Aggs {
			reads = append(reads, a.Args...)
			if a.Filter != nil {
				reads = append(reads, a.Filter)
			}
			for _, k := range a.OrderBy {
				reads = append(reads, k.Expr)
			}
		}
		pruneUnder(x.Input, reads, func(fn func(expr.Expr) expr.Expr) {
			for i, e := range x.GroupBy {
				x.GroupBy[i] = fn(e)
			}
			for k := range x.Aggs {
				a := &x.Aggs[k]
				for i, e := range a.Args {
					a.Args[i] = fn(e)
				}
				if a.Filter != nil {
					a.Filter = fn(a.Filter)
				}
				for i := range a.OrderBy {
					a.OrderBy[i].Expr = fn(a.OrderBy[i].Expr)
				}
			}
		})
	}
}

// pruneUnder narrows the join below in (through filters) to the columns
// reads and the filters use; remap renumbers the reader's expressions.
func pruneUnder(in Node, reads []expr.Expr, remap func(func(expr.Expr) expr.Expr)) {
	var filters []*Filter
	for {
		f, ok := in.(*Filter)
		if !ok {
			break
		}
		filters = append(filters, f)
		in = f.Input
	}
	j, ok := in.(*Join)
	if !ok || j.Kind == SemiJoin || j.Kind == AntiJoin {
		return
	}
	left, right := j.Left.Columns(), j.Right.Columns()
	nl := len(left)
	used := make([]bool, nl+len(right))
	all := append([]expr.Expr{}, reads...)
	for _, f := range filters {
		all = append(all, f.Pred)
	}
	if j.Cond != nil {
		all = append(all, j.Cond)
	}
	for _, e := range all {
		if _, ok := remapColumns(e, func(i int) int { return i }); !ok {
			return // a reference out of reach (a subquery's)
		}
		walkExpr(e, func(x expr.Expr) {
			if c, ok := x.(*expr.ColumnRef); ok && c.Index >= 0 && c.Index < len(used) {
				used[c.Index] = true
			}
		})
	}
	for _, keys := range [][]expr.Expr{j.LeftKeys, j.RightKeys} {
		for _, e := range keys {
			if _, ok := remapColumns(e, func(i int) int { return i }); !ok {
				return
			}
		}
	}
	markKeys := func(keys []expr.Expr, off int) {
		for _, e := range keys {
			walkExpr(e, func(x expr.Expr) {
				if c, ok := x.(*expr.ColumnRef); ok && off+c.Index < len(used) {
					used[off+c.Index] = true
				}
			})
		}
	}
	markKeys(j.LeftKeys, 0)
	markKeys(j.RightKeys, nl)
	cols := append(append([]Column{}, left...), right...)
	for i, c := range cols {
		if c.T.OID == types.OidTimestamp || c.T.OID == types.OidTimestampTZ || c.T.OID == types.OidDate {
			used[i] = true
		}
	}
	newIndex := make([]int, len(used))
	kept := 0
	for i, u := range used {
		newIndex[i] = -1
		if u {
			newIndex[i] = kept
			kept++
		}
	}
	if kept == len(used) {
		return
	}
	nlKept := 0
	for i := 0; i < nl; i++ {
		if used[i] {
			nlKept++
		}
	}
	j.Left = narrowTo(j.Left, used[:nl])
	j.Right = narrowTo(j.Right, used[nl:])
	joined := func(e expr.Expr) expr.Expr {
		out, _ := remapColumns(e, func(i int) int { return newIndex[i] })
		return out
	}
	local := func(e expr.Expr, off int) expr.Expr {
		out, _ := remapColumns(e, func(i int) int { return newIndex[off+i] - map[bool]int{true: 0, false: nlKept}[off == 0] })
		return out
	}
	for i, e := range j.LeftKeys {
		j.LeftKeys[i] = local(e, 0)
	}
	for i, e := range j.RightKeys {
		j.RightKeys[i] = local(e, nl)
	}
	if j.Cond != nil {
		j.Cond = joined(j.Cond)
	}
	for _, f := range filters {
		f.Pred = joined(f.Pred)
	}
	remap(joined)
}

// narrowTo is n with only the columns marked keep (n itself when all are).
func narrowTo(n Node, keep []bool) Node {
	cols := n.Columns()
	p := &Project{Input: n}
	for i, c := range cols {
		if keep[i] {
			p.Exprs = append(p.Exprs, &expr.ColumnRef{Index: i, T: c.T, Name: c.Name})
			p.Cols = append(p.Cols, c)
		}
	}
	if len(p.Cols) == len(cols) {
		return n
	}
	return p
}

// inputReads names the columns of sp.Input a single-stage plan reads, in
// the input's order; nil when it reads them all or this cannot tell (a
// stream tree, a join in the stateless part, a reference out of reach).
// A files source decodes only these (Relation.Reads): its other columns
// come NULL, which nothing reads.
//
// The columns each part of the plan reads, in the spaces they are over:
// EventTime over the input's columns; the aggregation's keys and
// arguments (or, without one, Output), the deduplication keys and a
// session window's time and partition over Pre's output; Pre over the
// Scan of the input, through filters, projections and window assignment.
func (sp *StreamPlan) inputReads() []string {
	if sp.Tree != nil || sp.Input == nil || sp.Pre == nil {
		return nil
	}
	preCols := len(sp.Pre.Columns())
	need := make([]bool, preCols)
	var reads []expr.Expr
	if sp.Agg != nil {
		reads = append(reads, sp.Agg.GroupBy...)
		for _, a := range sp.Agg.Aggs {
			reads = append(reads, a.Args...)
			if a.Filter != nil {
				reads = append(reads, a.Filter)
			}
			for _, k := range a.OrderBy {
				reads = append(reads, k.Expr)
			}
		}
	} else {
		reads = append(reads, sp.Output...)
	}
	if w := sp.Window; w != nil {
		switch {
		case w.Kind == SessionWindow && sp.Agg != nil && sp.Agg.Input == Node(w) && w.Input == sp.Pre:
			// A session the executor assigns, over Pre's rows.
			reads = append(reads, w.Time)
			reads = append(reads, w.PartitionBy...)
		case containsNode(sp.Pre, w): // readsBelow sees it
		default:
			return nil
		}
	}
	reads = append(reads, sp.Dedup...)
	if !markReads(need, reads) {
		return nil
	}
	scanNeed, ok := readsBelow(sp.Pre, need)
	if !ok {
		return nil
	}
	if len(scanNeed) != len(sp.Input.Cols) {
		return nil
	}
	if sp.EventTime != nil && !markReads(scanNeed, []expr.Expr{sp.EventTime}) {
		return nil
	}
	var out []string
	for i, c := range sp.Input.Cols {
		if scanNeed[i] {
			out = append(out, c.Name)
		}
	}
	if len(out) == len(sp.Input.Cols) {
		return nil
	}
	return append([]string{}, out...)
}

// markReads marks in need the columns es reference (those in range: the
// columns a window or session appends are not need's); false when a
// reference is out of reach.
func markReads(need []bool, es []expr.Expr) bool {
	for _, e := range es {
		if e == nil {
			continue
		}
		if _, ok := remapColumns(e, func(i int) int { return i }); !ok {
			return false
		}
		walkExpr(e, func(x expr.Expr) {
			if c, ok := x.(*expr.ColumnRef); ok && c.Index >= 0 && c.Index < len(need) {
				need[c.Index] = true
			}
		})
	}
	return true
}

// readsBelow carries the columns of n's output that are needed down to
// the Scan at the bottom of n, returning the Scan's columns needed; false
// for a node it cannot see through.
func readsBelow(n Node, need []bool) ([]bool, bool) {
	switch x := n.(type) {
	case *Scan:
		return need, len(need) == len(x.Cols)
	case *Filter:
		in := make([]bool, len(x.Input.Columns()))
		copy(in, need)
		if len(need) != len(in) || !markReads(in, []expr.Expr{x.Pred}) {
			return nil, false
		}
		return readsBelow(x.Input, in)
	case *Project:
		if len(need) != len(x.Exprs) {
			return nil, false
		}
		in := make([]bool, len(x.Input.Columns()))
		for i, e := range x.Exprs {
			if need[i] && !markReads(in, []expr.Expr{e}) {
				return nil, false
			}
		}
		return readsBelow(x.Input, in)
	case *WindowAssign:
		// The input's columns, then the window's.
		in := make([]bool, len(x.Input.Columns()))
		if len(need) < len(in) {
			return nil, false
		}
		copy(in, need)
		if !markReads(in, append([]expr.Expr{x.Time}, x.PartitionBy...)) {
			return nil, false
		}
		return readsBelow(x.Input, in)
	}
	return nil, false
}

func containsNode(n, target Node) bool {
	if n == target {
		return true
	}
	for _, c := range n.Children() {
		if containsNode(c, target) {
			return true
		}
	}
	return false
}
