package planner

import (
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// ScanSecurity is what a reader of a relation must be kept from: the
// row filters of row-level security and the masks of sensitive columns,
// as the catalog works them out for the current user. The binder applies
// them where the relation is scanned, below everything the query does, so
// that no WHERE, join or aggregate sees a row or value the reader may not
// (PostgreSQL adds RLS quals to the scan the same way).
type ScanSecurity struct {
	// RowFilters are SQL boolean expressions over the relation's columns;
	// a row is read only when every one of them is true (row-level
	// security: the OR of the permissive policies' USING, each
	// restrictive policy's USING; "false" when row security is on and no
	// policy applies to the reader).
	RowFilters []string
	// Masks maps a column's name to the SQL expression over the
	// relation's columns that readers see in its place (a column mask:
	// mask_fn(col, using_cols...)).
	Masks map[string]string
}

// SecurityCatalog is implemented by catalogs whose relations may carry
// row-level security or column masks. ScanSecurity is asked once per scan
// of a stored relation (never of a virtual one); it returns the zero
// ScanSecurity when nothing applies to the current user.
type SecurityCatalog interface {
	ScanSecurity(rel *Relation) (ScanSecurity, error)
}

// applyScanSecurity wraps scan in the filters and masks the catalog gives
// for rel.
func (b *binder) applyScanSecurity(rel *Relation, scan Node) (Node, error) {
	cat, ok := b.cat.(SecurityCatalog)
	if !ok || rel.Kind == VirtualTable {
		return scan, nil
	}
	sec, err := cat.ScanSecurity(rel)
	if err != nil || len(sec.RowFilters) == 0 && len(sec.Masks) == 0 {
		return scan, err
	}
	// The expressions name the relation's own columns, unqualified or
	// by its name, whatever the query calls them.
	own := &scope{}
	for _, c := range scan.Columns() {
		own.cols = append(own.cols, scopeCol{Table: rel.Name, Name: c.Name, T: c.T, TableOID: c.TableOID, AttNum: c.AttNum})
	}
	node := scan
	for _, f := range sec.RowFilters {
		e, err := b.bindSecurityExpr(f, own, "POLICY expressions")
		if err != nil {
			return nil, err
		}
		if e.Type() != types.Bool {
			return nil, sqlerr.New(sqlerr.DatatypeMismatch, "argument of POLICY must be type boolean, not type %s", e.Type())
		}
		node = &Filter{Input: node, Pred: e}
	}
	if len(sec.Masks) == 0 {
		return node, nil
	}
	cols := node.Columns()
	exprs := make([]expr.Expr, len(cols))
	outCols := append([]Column(nil), cols...)
	for i, c := range cols {
		exprs[i] = &expr.ColumnRef{Index: i, T: c.T, Name: c.Name}
		m, ok := sec.Masks[c.Name]
		if !ok {
			continue
		}
		e, err := b.bindSecurityExpr(m, own, "column masks")
		if err != nil {
			return nil, err
		}
		if e.Type() != c.T {
			cast, err := b.assign(e, RelColumn{Name: c.Name, T: c.T})
			if err != nil {
				return nil, err
			}
			e = cast
		}
		exprs[i] = e
		// A masked value is computed: it is no longer the stored column
		// (clients see no table OID for it).
		outCols[i].TableOID, outCols[i].AttNum = 0, 0
	}
	return &Project{Input: node, Exprs: exprs, Cols: outCols}, nil
}

// bindSecurityExpr binds one policy or mask expression over the
// relation's columns.
func (b *binder) bindSecurityExpr(sql string, own *scope, what string) (expr.Expr, error) {
	stmts, err := parse.Parse("SELECT " + sql)
	if err != nil || len(stmts) != 1 {
		return nil, sqlerr.New(sqlerr.InternalError, "unreadable %s: %s", what, sql)
	}
	rt := stmts[0].Node.GetSelectStmt().TargetList[0].GetResTarget()
	return b.bindExpr(rt.Val, &exprCtx{sc: own, what: what})
}
