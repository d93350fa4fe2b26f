package planner

import (
	"fmt"
	"strings"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/types"
)

// ViewDefinition prints a view's query the way PostgreSQL 15's
// pg_get_viewdef(view, pretty) does, for the shapes it covers: a select
// list over one table with an optional WHERE — columns qualified by the
// relation, constants with the casts the binder applied, one select item
// per line. Without pretty (pg_get_viewdef(view), which SQLAlchemy's
// get_view_definition calls) every operator, boolean and cast argument is
// parenthesised, as PostgreSQL does without PRETTYFLAG_PAREN. ok is false
// for other shapes; callers then show the stored text.
func ViewDefinition(cat Catalog, sql string, pretty bool) (string, bool) {
	stmts, err := parse.Parse(sql)
	if err != nil || len(stmts) != 1 {
		return "", false
	}
	q, err := BindQuery(cat, stmts[0].Node, nil)
	if err != nil {
		return "", false
	}
	p, ok := q.Plan.(*Project)
	if !ok {
		return "", false
	}
	var where expr.Expr
	in := p.Input
	if f, ok := in.(*Filter); ok {
		where, in = f.Pred, f.Input
	}
	scan, ok := in.(*Scan)
	if !ok || scan.Kind != StoredTable {
		return "", false
	}
	d := &viewDeparser{scan: scan, pretty: pretty}
	var sb strings.Builder
	sb.WriteString(" SELECT ")
	for i, e := range p.Exprs {
		if i > 0 {
			sb.WriteString(",\n    ")
		}
		text, ok := d.expr(e, nil)
		if !ok {
			return "", false
		}
		sb.WriteString(text)
		if cr, isCol := e.(*expr.ColumnRef); !isCol || scan.Cols[cr.Index].Name != p.Cols[i].Name {
			sb.WriteString(" AS " + quoteIfNeeded(p.Cols[i].Name))
		}
	}
	name := quoteIfNeeded(scan.Name)
	if scan.Alias != "" && scan.Alias != scan.Name {
		name += " " + quoteIfNeeded(scan.Alias)
	}
	sb.WriteString("\n   FROM " + name)
	if where != nil {
		text, ok := d.expr(where, nil)
		if !ok {
			return "", false
		}
		sb.WriteString("\n  WHERE " + text)
	}
	sb.WriteString(";")
	return sb.String(), true
}

type viewDeparser struct {
	scan   *Scan
	pretty bool
}

// expr prints e as an operand of parent (nil at the top), adding the
// parentheses PostgreSQL's pretty printer adds: an operator under an
// operator unless it binds tighter (* / % under + -, or the left operand
// of an equal-priority operator); AND under AND or OR and OR under OR go
// bare; comparisons and IS NULL under AND/OR go bare.
func (d *viewDeparser) expr(e expr.Expr, parent expr.Expr) (string, bool) {
	s, ok := d.bare(e)
	if !ok {
		return "", false
	}
	if !d.pretty {
		// Every operator and boolean expression prints its own
		// parentheses; bare() already parenthesised cast arguments.
		switch x := e.(type) {
		case *expr.FuncCall:
			if x.Op {
				s = "(" + s + ")"
			}
		case *expr.BoolOp, *expr.IsNull:
			s = "(" + s + ")"
		}
		return s, true
	}
	if parent != nil && needsParens(e, parent) {
		s = "(" + s + ")"
	}
	return s, true
}

func (d *viewDeparser) bare(e expr.Expr) (string, bool) {
	switch x := e.(type) {
	case *expr.ColumnRef:
		alias := d.scan.Alias
		if alias == "" {
			alias = d.scan.Name
		}
		return quoteIfNeeded(alias) + "." + quoteIfNeeded(d.scan.Cols[x.Index].Name), true
	case *expr.FuncCall:
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			var parent expr.Expr
			if x.Op {
				parent = x
			}
			s, ok := d.expr(a, parent)
			if !ok {
				return "", false
			}
			if d.pretty && x.Op && i == 0 && len(x.Args) == 2 {
				if f, isOp := a.(*expr.FuncCall); isOp && f.Op && samePriority(f.Name, x.Name) {
					s = strings.TrimSuffix(strings.TrimPrefix(s, "("), ")")
				}
			}
			args[i] = s
		}
		switch {
		case x.Op && len(args) == 2:
			return args[0] + " " + x.Name + " " + args[1], true
		case x.Op:
			return "", false
		}
		return x.Name + "(" + strings.Join(args, ", ") + ")", true
	case *expr.BoolOp:
		op := " OR "
		if x.And {
			op = " AND "
		}
		parts := make([]string, len(x.Args))
		for i, a := range x.Args {
			s, ok := d.expr(a, x)
			if !ok {
				return "", false
			}
			parts[i] = s
		}
		return strings.Join(parts, op), true
	case *expr.IsNull:
		s, ok := d.expr(x.Arg, x)
		if !ok {
			return "", false
		}
		if x.Negate {
			return s + " IS NOT NULL", true
		}
		return s + " IS NULL", true
	case *expr.Cast:
		s, ok := d.expr(x.Arg, x)
		if !ok {
			return "", false
		}
		if !d.pretty {
			s = "(" + s + ")"
		}
		return s + "::" + x.T.String(), true
	case *expr.Const:
		return d.constText(x)
	}
	return "", false
}

func priority(op string) int {
	switch op {
	case "+", "-":
		return 1
	case "*", "/", "%":
		return 2
	}
	return 0
}

func samePriority(a, b string) bool { return priority(a) != 0 && priority(a) == priority(b) }

// needsParens is PostgreSQL's isSimpleNode, inverted, for the nodes
// ViewDefinition prints.
func needsParens(e, parent expr.Expr) bool {
	switch x := e.(type) {
	case *expr.FuncCall:
		if !x.Op {
			return false
		}
		switch p := parent.(type) {
		case *expr.BoolOp, *expr.IsNull:
			_, isBool := p.(*expr.BoolOp)
			return !isBool
		case *expr.FuncCall:
			op, pop := priority(x.Name), priority(p.Name)
			if op == 0 || pop == 0 {
				return true
			}
			return !(op > pop) // same priority: the left operand drops them later
		case *expr.Cast:
			return true
		}
		return true
	case *expr.BoolOp:
		p, ok := parent.(*expr.BoolOp)
		if !ok {
			return true
		}
		if x.And {
			return false
		}
		return p.And // OR under AND
	case *expr.IsNull:
		_, ok := parent.(*expr.BoolOp)
		return !ok
	case *expr.Cast:
		return false
	}
	return false
}

// constText prints a constant as PostgreSQL's get_const_expr does: integers
// and decimal numerics bare, other values quoted with their type. An
// integral numeric is the binder's folding of an integer cast to numeric,
// which PostgreSQL prints as a cast: 1::numeric, or (1)::numeric when not
// pretty.
func (d *viewDeparser) constText(c *expr.Const) (string, bool) {
	if !d.pretty && c.Val != nil && c.T.OID == types.OidNumeric {
		if s := c.Val.(string); !strings.HasPrefix(s, "-") && !strings.Contains(s, ".") {
			return "(" + s + ")::numeric", true
		}
	}
	return constText(c)
}

func constText(c *expr.Const) (string, bool) {
	if c.Val == nil {
		return "NULL::" + c.T.String(), true
	}
	switch c.T.OID {
	case types.OidInt4:
		if v := c.Val.(int64); v >= 0 {
			return fmt.Sprint(v), true
		}
		return fmt.Sprintf("'%d'::integer", c.Val), true
	case types.OidNumeric:
		s := c.Val.(string)
		if !strings.HasPrefix(s, "-") {
			if strings.Contains(s, ".") {
				return s, true
			}
			return s + "::numeric", true
		}
		return "'" + s + "'::numeric", true
	case types.OidBool:
		if c.Val.(bool) {
			return "true", true
		}
		return "false", true
	case types.OidText, types.OidVarchar, types.OidBpchar, types.OidUnknown:
		s := "'" + strings.ReplaceAll(c.Val.(string), "'", "''") + "'"
		if c.T.OID == types.OidUnknown {
			return s, true
		}
		return s + "::" + c.T.String(), true
	}
	return "", false
}

func quoteIfNeeded(s string) string {
	ok := s != ""
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			ok = false
		}
	}
	if ok {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
