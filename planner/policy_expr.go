package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Row-level security expressions outside a query: CREATE and ALTER
// POLICY check theirs against the table's columns when they are written
// (as PostgreSQL's transformWhereClause with EXPR_KIND_POLICY does), and
// INSERT and SUBSCRIBE evaluate them over rows of the table's own shape.

// policyScope is rel's columns, named unqualified or by the relation's
// name, at their positions in rel.
func policyScope(rel *Relation) *scope {
	own := &scope{}
	for _, c := range rel.Cols {
		own.cols = append(own.cols, scopeCol{Table: rel.Name, Name: c.Name, T: c.T, System: c.Hidden})
	}
	return own
}

// BindPolicyExpr checks a policy's USING or WITH CHECK expression n over
// rel's columns: unknown columns (42703, with n's positions), aggregates,
// window and set-returning functions (not allowed in POLICY expressions)
// and a type that is not boolean (42804) fail as PostgreSQL fails them.
func BindPolicyExpr(cat Catalog, rel *Relation, n *pg_query.Node) error {
	b := &binder{cat: cat}
	e, err := b.bindExpr(n, &exprCtx{sc: policyScope(rel), what: "policy expressions"})
	if err != nil {
		return err
	}
	if t := e.Type(); t != types.Bool && t.OID != types.OidUnknown {
		return sqlerr.New(sqlerr.DatatypeMismatch, "argument of POLICY must be type boolean, not type %s", t)
	}
	return nil
}

// BindRowExpr binds a stored policy expression (SQL text) over rel's
// columns, for evaluation on batches whose columns are rel's, in order.
func BindRowExpr(cat Catalog, rel *Relation, sql string) (expr.Expr, error) {
	stmts, err := parse.Parse("SELECT " + sql)
	if err != nil || len(stmts) != 1 {
		return nil, sqlerr.New(sqlerr.InternalError, "unreadable POLICY expression: %s", sql)
	}
	b := &binder{cat: cat}
	rt := stmts[0].Node.GetSelectStmt().TargetList[0].GetResTarget()
	e, err := b.bindExpr(rt.Val, &exprCtx{sc: policyScope(rel), what: "policy expressions"})
	if err != nil {
		return nil, err
	}
	if e.Type() != types.Bool {
		return nil, sqlerr.New(sqlerr.DatatypeMismatch, "argument of POLICY must be type boolean, not type %s", e.Type())
	}
	return e, nil
}
