package engine

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// policyExprText prints a policy expression the way PostgreSQL's
// pg_get_expr prints a stored one (pg_policies.qual, psql's \d): every
// operator and boolean expression in its own parentheses, CURRENT_USER
// and friends in capitals; other nodes as pg_query deparses them.
func policyExprText(n *pg_query.Node) (string, error) {
	switch x := n.GetNode().(type) {
	case *pg_query.Node_AExpr:
		a := x.AExpr
		if a.Kind != pg_query.A_Expr_Kind_AEXPR_OP || len(a.Name) != 1 {
			break
		}
		op := a.Name[0].GetString_().GetSval()
		r, err := policyExprText(a.Rexpr)
		if err != nil {
			return "", err
		}
		if a.Lexpr == nil {
			return "(" + op + " " + r + ")", nil
		}
		l, err := policyExprText(a.Lexpr)
		if err != nil {
			return "", err
		}
		return "(" + l + " " + op + " " + r + ")", nil
	case *pg_query.Node_BoolExpr:
		parts := make([]string, len(x.BoolExpr.Args))
		for i, arg := range x.BoolExpr.Args {
			p, err := policyExprText(arg)
			if err != nil {
				return "", err
			}
			parts[i] = p
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
		arg, err := policyExprText(x.NullTest.Arg)
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
				l, err := policyExprText(sl.Testexpr)
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
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER:
			return "CURRENT_USER", nil
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
			return "CURRENT_ROLE", nil
		case pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER:
			return "SESSION_USER", nil
		case pg_query.SQLValueFunctionOp_SVFOP_USER:
			return "CURRENT_USER", nil
		}
	}
	return deparseExpr(n)
}
