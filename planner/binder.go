package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// binder holds the state of binding one statement.
type binder struct {
	cat Catalog
	// params are the types of $1..$n: given by the client or inferred from
	// where a parameter is used; unknown until then.
	params []types.T
	// ctes is a stack of WITH scopes, innermost last.
	ctes []map[string]*cteDef
	// views are the views being expanded, outermost first: a view met
	// again inside itself is a cycle. (Deep chains of distinct views are
	// bounded by depth, like any nesting.)
	views []string
	// viewOIDs are the OIDs of views, in step with views (Relation.Via).
	viewOIDs []uint32
	// outerRefs counts references to enclosing queries, so that a subquery
	// knows whether it is correlated (and must run once per outer row).
	outerRefs int
	// depth and queries bound the binder's recursion (depth.go).
	depth, queries int
	// sparkWindows holds the window(...) call a query level's GROUP BY
	// assigned, by the scope it made (bind_window_struct.go).
	sparkWindows map[*scope]*pg_query.FuncCall
	// inlining are the SQL functions whose bodies are being bound,
	// outermost first: one met again calls itself (bind_sql_function.go).
	inlining []string
	// acc collects the relations the statement reads and writes (accesses.go).
	acc *accessLog
}

type cteDef struct {
	query   *pg_query.Node
	colName []string
	// depth is the length of the cte stack where the CTE was defined, so its
	// body is bound seeing only the CTEs defined before it.
	depth int
}

// Query is a bound SELECT (or VALUES) ready to run.
type Query struct {
	Plan       Node
	ParamTypes []types.T
	Accesses   []Access // what it reads, for privilege checks (accesses.go)
}

// BindQuery binds a SELECT / VALUES statement. paramTypes holds the types
// the client declared (OID 0 entries are inferred).
func BindQuery(cat Catalog, stmt *pg_query.Node, paramTypes []types.T) (*Query, error) {
	b := &binder{cat: cat, params: append([]types.T(nil), paramTypes...)}
	plan, err := b.bindSelectNode(stmt, nil)
	if err != nil {
		return nil, err
	}
	if plan, err = b.regTypesAsNames(plan); err != nil {
		return nil, err
	}
	return &Query{Plan: plan, ParamTypes: b.finalParams(), Accesses: b.accesses()}, nil
}

// regTypesAsNames converts result columns of the reg* types (regclass,
// regtype, ...) to their names, as PostgreSQL's output functions print
// them. Inside the query they stay OIDs so that they compare with oid
// columns; only what the client receives is the name, typed text.
func (b *binder) regTypesAsNames(plan Node) (Node, error) {
	cols := plan.Columns()
	need := false
	for _, c := range cols {
		need = need || needsCatalog(c.T.OID)
	}
	if !need {
		return plan, nil
	}
	exprs := make([]expr.Expr, len(cols))
	out := make([]Column, len(cols))
	for i, c := range cols {
		var e expr.Expr = &expr.ColumnRef{Index: i, T: c.T, Name: c.Name}
		out[i] = c
		if needsCatalog(c.T.OID) {
			var err error
			if e, err = b.coerce(e, types.Text, true, -1); err != nil {
				return nil, err
			}
			out[i] = Column{Name: c.Name, T: types.Text}
		}
		exprs[i] = e
	}
	return &Project{Input: plan, Exprs: exprs, Cols: out}, nil
}

// finalParams returns parameter types with unresolved ones as text, as
// PostgreSQL does for parameters it could not infer.
func (b *binder) finalParams() []types.T {
	out := make([]types.T, len(b.params))
	for i, t := range b.params {
		if t.OID == 0 || t.OID == types.OidUnknown {
			t = types.Text
		}
		out[i] = t
	}
	return out
}

func (b *binder) paramType(i int) types.T {
	if i < len(b.params) && b.params[i].OID != 0 {
		return b.params[i]
	}
	return types.Unknown
}

func (b *binder) setParamType(i int, t types.T) {
	for len(b.params) <= i {
		b.params = append(b.params, types.T{})
	}
	b.params[i] = types.T{OID: t.OID, Typmod: -1}
}

func (b *binder) lookupCTE(name string) (*cteDef, bool) {
	for i := len(b.ctes) - 1; i >= 0; i-- {
		if d, ok := b.ctes[i][name]; ok {
			return d, true
		}
	}
	return nil, false
}

func notSupported(pos int32, what string) error {
	return &sqlerr.Error{Code: sqlerr.FeatureNotSupported, Message: what + " is not supported", Position: int(pos) + 1}
}

var _ = expr.Const{}
