package engine

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// policyPrinter prints a policy expression the way PostgreSQL's
// pg_get_expr prints a stored one (pg_policies.qual, psql's \d): every
// operator and boolean expression in its own parentheses, CURRENT_USER
// and friends in capitals, a string compared with a column cast to the
// column's type ('x'::text), IN lists as = ANY (ARRAY[...]); other nodes
// as pg_query deparses them.
type policyPrinter struct {
	rel *catalog.Relation
}

func policyExprText(rel *catalog.Relation, n *pg_query.Node) (string, error) {
	return policyPrinter{rel: rel}.text(n)
}

// columnType is the type of the column n names, if it names one of rel's.
func (p policyPrinter) columnType(n *pg_query.Node) (types.T, bool) {
	cr := n.GetColumnRef()
	if cr == nil || len(cr.Fields) == 0 {
		return types.T{}, false
	}
	name := cr.Fields[len(cr.Fields)-1].GetString_().GetSval()
	if i := p.rel.Column(name); i >= 0 {
		return p.rel.Columns[i].Type, true
	}
	return types.T{}, false
}

// operand prints n, a string literal cast to t when typed.
func (p policyPrinter) operand(n *pg_query.Node, t types.T, typed bool) (string, error) {
	if c := n.GetAConst(); typed && c != nil && c.GetSval() != nil {
		if name := types.FormatType(t.OID, -1); name != "???" {
			return "'" + strings.ReplaceAll(c.GetSval().GetSval(), "'", "''") + "'::" + name, nil
		}
	}
	return p.text(n)
}

func (p policyPrinter) text(n *pg_query.Node) (string, error) {
	switch x := n.GetNode().(type) {
	case *pg_query.Node_AExpr:
		a := x.AExpr
		if len(a.Name) != 1 {
			break
		}
		op := a.Name[0].GetString_().GetSval()
		switch a.Kind {
		case pg_query.A_Expr_Kind_AEXPR_OP:
			if a.Lexpr == nil {
				r, err := p.text(a.Rexpr)
				return "(" + op + " " + r + ")", err
			}
			lt, lok := p.columnType(a.Lexpr)
			rt, rok := p.columnType(a.Rexpr)
			l, err := p.operand(a.Lexpr, rt, rok)
			if err != nil {
				return "", err
			}
			r, err := p.operand(a.Rexpr, lt, lok)
			if err != nil {
				return "", err
			}
			return "(" + l + " " + op + " " + r + ")", nil
		case pg_query.A_Expr_Kind_AEXPR_IN:
			items := a.Rexpr.GetList().GetItems()
			if items == nil {
				break
			}
			t, ok := p.columnType(a.Lexpr)
			l, err := p.text(a.Lexpr)
			if err != nil {
				return "", err
			}
			elems := make([]string, len(items))
			for i, it := range items {
				if elems[i], err = p.operand(it, t, ok); err != nil {
					return "", err
				}
			}
			cmp := "= ANY"
			if op == "<>" {
				cmp = "<> ALL"
			}
			return "(" + l + " " + cmp + " (ARRAY[" + strings.Join(elems, ", ") + "]))", nil
		}
	case *pg_query.Node_BoolExpr:
		parts := make([]string, len(x.BoolExpr.Args))
		for i, arg := range x.BoolExpr.Args {
			s, err := p.text(arg)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		switch x.BoolExpr.Boolop {
		case pg_query.BoolExprType_AND_EXPR:
			return "(" + strings.Join(parts, " AND ") + ")", nil
		case pg_query.BoolExprType_OR_EXPR:
			return "(" + strings.Join(parts, " OR ") + ")", nil
		case pg_query.BoolExprType_NOT_EXPR:
			return "(NOT " + parts[0] + ")", nil
		}
	case *pg_query.Node_NullTest:
		arg, err := p.text(x.NullTest.Arg)
		if err != nil {
			return "", err
		}
		if x.NullTest.Nulltesttype == pg_query.NullTestType_IS_NOT_NULL {
			return "(" + arg + " IS NOT NULL)", nil
		}
		return "(" + arg + " IS NULL)", nil
	case *pg_query.Node_SubLink:
		// A subquery prints after "( " (get_sublink_expr); only one-line
		// queries come out as PostgreSQL's, which breaks longer ones.
		sl := x.SubLink
		q, err := deparse(sl.Subselect)
		if err != nil {
			return "", err
		}
		switch sl.SubLinkType {
		case pg_query.SubLinkType_EXISTS_SUBLINK:
			return "(EXISTS ( " + q + "))", nil
		case pg_query.SubLinkType_ANY_SUBLINK:
			if len(sl.OperName) == 0 {
				l, err := p.text(sl.Testexpr)
				if err != nil {
					return "", err
				}
				return "(" + l + " IN ( " + q + "))", nil
			}
		case pg_query.SubLinkType_EXPR_SUBLINK:
			return "( " + q + ")", nil
		}
	case *pg_query.Node_SqlvalueFunction:
		switch x.SqlvalueFunction.Op {
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg_query.SQLValueFunctionOp_SVFOP_USER:
			return "CURRENT_USER", nil
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
			return "CURRENT_ROLE", nil
		case pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER:
			return "SESSION_USER", nil
		}
	}
	return deparseExpr(n)
}
