package planner

import (
	"fmt"
	"strings"

	"github.com/weir-sql/weir/sql/expr"
)

// Explain renders a plan as indented lines, root first, in the spirit of
// PostgreSQL's EXPLAIN text format.
func Explain(n Node) []string {
	var out []string
	explainNode(n, 0, &out)
	return out
}

func explainNode(n Node, depth int, out *[]string) {
	if p, ok := n.(*Project); ok && (p.Reorder || isCatalogScanWithTableOID(p)) {
		// Column bookkeeping, not a step of the plan: the join planner's
		// return to FROM order, and the tableoid a catalog scan adds.
		n = p.Input
		if _, ok := n.(*Scan); !ok {
			explainNode(n, depth, out)
			return
		}
	}
	pad := strings.Repeat("  ", depth)
	arrow := ""
	if depth > 0 {
		arrow = "->  "
		pad = strings.Repeat("  ", depth-1) + "  "
	}
	line := func(s string) { *out = append(*out, pad+arrow+s) }
	detail := func(s string) { *out = append(*out, pad+strings.Repeat(" ", len(arrow)+2)+s) }
	switch x := n.(type) {
	case *Scan:
		kind := "Seq Scan"
		if x.Kind == VirtualTable {
			kind = "Catalog Scan"
		}
		name := x.Name
		if x.Alias != "" && x.Alias != x.Name {
			name += " " + x.Alias
		}
		line(fmt.Sprintf("%s on %s", kind, name))
	case *Values:
		if len(x.Cols) == 0 && len(x.Rows) == 1 {
			line("Result")
		} else {
			line(fmt.Sprintf("Values Scan (%d rows)", len(x.Rows)))
		}
	case *FunctionScan:
		line("Function Scan on " + x.Func)
	case *Filter:
		line("Filter")
		detail("Filter: " + x.Pred.String())
	case *Project:
		line("Project")
		detail("Output: " + exprList(x.Exprs))
	case *Aggregate:
		if len(x.GroupBy) == 0 {
			line("Aggregate")
		} else {
			line("HashAggregate")
			detail("Group Key: " + exprList(x.GroupBy))
		}
		var aggs []string
		for _, a := range x.Aggs {
			aggs = append(aggs, a.Name+"("+exprList(a.Args)+")")
		}
		if len(aggs) > 0 {
			detail("Aggregates: " + strings.Join(aggs, ", "))
		}
	case *Sort:
		line("Sort")
		var keys []string
		for _, k := range x.Keys {
			s := k.Expr.String()
			if k.Desc {
				s += " DESC"
			}
			keys = append(keys, s)
		}
		detail("Sort Key: " + strings.Join(keys, ", "))
	case *Limit:
		line("Limit")
	case *Join:
		kind := [...]string{"Inner", "Left", "Right", "Full", "Cross", "Semi", "Anti"}[x.Kind]
		est := ""
		if x.EstRows > 0 {
			est = fmt.Sprintf(" (rows=%.0f)", x.EstRows)
		}
		if len(x.LeftKeys) > 0 {
			line("Hash " + kind + " Join" + est)
			var conds []string
			for i := range x.LeftKeys {
				conds = append(conds, x.LeftKeys[i].String()+" = "+x.RightKeys[i].String())
			}
			detail("Hash Cond: " + strings.Join(conds, " AND "))
		} else {
			line("Nested Loop " + kind + " Join" + est)
		}
		if x.Cond != nil {
			detail("Join Filter: " + x.Cond.String())
		}
	case *Distinct:
		if x.On != nil {
			line("Unique On " + exprList(x.On))
		} else {
			line("HashAggregate (distinct)")
		}
	case *SetOp:
		name := [...]string{"Union", "Intersect", "Except"}[x.Kind]
		if x.All {
			name += " All"
		}
		line(name)
	case *WindowAssign:
		switch x.Kind {
		case TumblingWindow:
			line(fmt.Sprintf("Window Assign (tumbling %s)", Micros(x.Size)))
		case HoppingWindow:
			line(fmt.Sprintf("Window Assign (hopping %s every %s)", Micros(x.Size), Micros(x.Slide)))
		default:
			line(fmt.Sprintf("Window Assign (session gap %s)", Micros(x.Gap)))
		}
		detail("Event time: " + x.Time.String())
		if x.Offset != 0 {
			detail("Windows start at: the Unix epoch + " + Micros(x.Offset))
		}
	case *ProjectSet:
		line("ProjectSet")
	case *Window:
		line("WindowAgg")
		var calls []string
		for _, c := range x.Calls {
			calls = append(calls, c.Name+"("+exprList(c.Args)+")")
		}
		detail("Functions: " + strings.Join(calls, ", "))
	default:
		line(fmt.Sprintf("%T", n))
	}
	for _, c := range n.Children() {
		explainNode(c, depth+1, out)
	}
}

func exprList(es []expr.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

// isCatalogScanWithTableOID recognises the projection bindRangeVar puts over
// a catalog scan: its columns as they are, then the constant tableoid.
func isCatalogScanWithTableOID(p *Project) bool {
	s, ok := p.Input.(*Scan)
	if !ok || s.Kind != VirtualTable || len(p.Exprs) != len(s.Cols)+1 {
		return false
	}
	for i, e := range p.Exprs[:len(s.Cols)] {
		if c, ok := e.(*expr.ColumnRef); !ok || c.Index != i {
			return false
		}
	}
	_, ok = p.Exprs[len(s.Cols)].(*expr.Const)
	return ok
}
