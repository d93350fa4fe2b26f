package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

func (b *binder) bindSubLink(s *pg_query.SubLink, ec *exprCtx) (expr.Expr, error) {
	// Above an aggregation the subquery still resolves names in the
	// level's FROM scope (so that an aggregate of this level, such as
	// max(x) in (SELECT max(x)), finds its column); the scope's aggOut makes
	// a plain outer column read its GROUP BY key from the aggregate output,
	// or fail with 42803 if it is not grouped (outerColumn).
	child := &scope{parent: ec.sc}
	plan, correlated, err := b.bindSubquery(s.Subselect, child)
	if err != nil {
		return nil, err
	}
	cols := plan.Columns()
	pos := int(s.Location) + 1
	sq := &expr.Subquery{Plan: plan, Correlated: correlated}
	switch s.SubLinkType {
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		sq.Kind, sq.T = expr.ExistsSubquery, types.Bool
		return sq, nil
	case pg_query.SubLinkType_EXPR_SUBLINK:
		if len(cols) != 1 {
			return nil, sqlerr.At(sqlerr.SyntaxError, pos, "subquery must return only one column")
		}
		sq.Kind, sq.T = expr.ScalarSubquery, cols[0].T
		if sq.T.OID == types.OidUnknown {
			sq.T = types.Text
		}
		return sq, nil
	case pg_query.SubLinkType_ARRAY_SUBLINK:
		if len(cols) != 1 {
			return nil, sqlerr.At(sqlerr.SyntaxError, pos, "subquery must return only one column")
		}
		at, err := expr.ArrayTypeOf(cols[0].T)
		if err != nil {
			return nil, err
		}
		sq.Kind, sq.T = expr.ArraySubquery, at
		return sq, nil
	case pg_query.SubLinkType_ANY_SUBLINK, pg_query.SubLinkType_ALL_SUBLINK:
		if len(cols) != 1 {
			return nil, sqlerr.At(sqlerr.SyntaxError, pos, "subquery has too many columns")
		}
		left, err := b.bindExpr(s.Testexpr, ec)
		if err != nil {
			return nil, err
		}
		op := opName(s.OperName)
		if op == "" {
			op = "="
		}
		cmp, err := b.opOver(op, []expr.Expr{left, &expr.Const{T: cols[0].T}}, int(s.Location))
		if err != nil {
			return nil, err
		}
		f := cmp.(*expr.FuncCall)
		sq.Left, sq.Cmp, sq.Op, sq.T = f.Args[0], f.Impl, op, types.Bool
		if want := f.Args[1].Type(); want.OID != cols[0].T.OID {
			// Cast the subquery's column to what the comparison takes.
			castTo, err := b.coerce(&expr.ColumnRef{Index: 0, T: cols[0].T, Name: cols[0].Name}, want, false, -1)
			if err != nil {
				return nil, err
			}
			plan = &Project{Input: plan, Exprs: []expr.Expr{castTo}, Cols: []Column{{Name: cols[0].Name, T: want}}}
			sq.Plan = plan
		}
		sq.Kind = expr.AnySubquery
		if s.SubLinkType == pg_query.SubLinkType_ALL_SUBLINK {
			sq.Kind = expr.AllSubquery
		}
		return sq, nil
	}
	return nil, notSupported(s.Location, "this kind of subquery")
}

// bindSubquery binds a nested SELECT whose outer references resolve in
// sc.parent; it reports whether any did.
func (b *binder) bindSubquery(n *pg_query.Node, sc *scope) (Node, bool, error) {
	before := b.outerRefs
	plan, err := b.bindSelectNode(n, sc.parent)
	if err != nil {
		return nil, false, err
	}
	return plan, b.outerRefs != before, nil
}
