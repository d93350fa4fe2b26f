package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Insert is a bound INSERT: Plan yields rows in the table's full column
// order and types (defaults and NULLs filled in).
type Insert struct {
	Rel        *Relation
	Plan       Node
	ParamTypes []types.T
	Accesses   []Access // the target's columns and what it reads (accesses.go)
}

// BindInsert binds INSERT INTO rel [(cols)] VALUES ... | SELECT ...
func BindInsert(cat Catalog, stmt *pg_query.InsertStmt, paramTypes []types.T) (*Insert, error) {
	b := &binder{cat: cat, params: append([]types.T(nil), paramTypes...)}
	if stmt.OnConflictClause != nil {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "ON CONFLICT is not supported: weir tables are append-only")
	}
	if len(stmt.ReturningList) > 0 {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "INSERT ... RETURNING is not supported")
	}
	rv := stmt.Relation
	rel, err := cat.LookupRelation(rv.Schemaname, rv.Relname)
	if err != nil {
		return nil, withPos(err, rv.Location)
	}
	if rel.Streaming {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "cannot insert into streaming table \"%s\"", rel.Name).
			WithDetail("A streaming table's rows come from its defining query.")
	}
	if rel.Source {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "cannot insert into source \"%s\"", rel.Name).
			WithDetail("A source's rows come from its connector.")
	}
	if rel.Kind != StoredTable || rel.ViewSQL != "" {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "cannot insert into relation \"%s\"", rel.Name).
			WithDetail("Only input tables accept INSERT.")
	}
	// Which table column each source column feeds.
	var targets []int
	if len(stmt.Cols) == 0 {
		for i := range rel.Cols {
			targets = append(targets, i)
		}
	} else {
		seen := map[int]bool{}
		for _, c := range stmt.Cols {
			rt := c.GetResTarget()
			idx := -1
			for i, col := range rel.Cols {
				if col.Name == rt.Name {
					idx = i
				}
			}
			if idx < 0 {
				return nil, sqlerr.At(sqlerr.UndefinedColumn, int(rt.Location)+1, "column \"%s\" of relation \"%s\" does not exist", rt.Name, rel.Name)
			}
			if seen[idx] {
				return nil, sqlerr.At(sqlerr.DuplicateColumn, int(rt.Location)+1, "column \"%s\" specified more than once", rt.Name)
			}
			seen[idx] = true
			targets = append(targets, idx)
		}
	}
	b.recordInsert(rel, targets) // accesses.go
	var src Node
	sel := stmt.SelectStmt.GetSelectStmt()
	if sel != nil && len(sel.ValuesLists) > 0 && sel.Op == pg_query.SetOperation_SETOP_NONE {
		src, err = b.bindInsertValues(sel, rel, targets)
	} else {
		src, err = b.bindSelectNode(stmt.SelectStmt, nil)
	}
	if err != nil {
		return nil, err
	}
	srcCols := src.Columns()
	if len(srcCols) > len(targets) {
		return nil, sqlerr.New(sqlerr.SyntaxError, "INSERT has more expressions than target columns")
	}
	if len(srcCols) < len(targets) {
		return nil, sqlerr.New(sqlerr.SyntaxError, "INSERT has more target columns than expressions")
	}
	exprs := make([]expr.Expr, len(rel.Cols))
	cols := make([]Column, len(rel.Cols))
	for i, c := range rel.Cols {
		cols[i] = Column{Name: c.Name, T: c.T}
	}
	for j, ti := range targets {
		e, err := b.assign(&expr.ColumnRef{Index: j, T: srcCols[j].T, Name: srcCols[j].Name}, rel.Cols[ti])
		if err != nil {
			return nil, err
		}
		exprs[ti] = e
	}
	for i, c := range rel.Cols {
		if exprs[i] != nil {
			continue
		}
		d, err := b.defaultExpr(c)
		if err != nil {
			return nil, err
		}
		exprs[i] = d
	}
	return &Insert{Rel: rel, Plan: &Project{Input: src, Exprs: exprs, Cols: cols}, ParamTypes: b.finalParams(), Accesses: b.accesses()}, nil
}

// bindInsertValues binds VALUES rows with each column typed by its target,
// so that '2024-01-01' goes straight to timestamptz and $1 is inferred.
func (b *binder) bindInsertValues(sel *pg_query.SelectStmt, rel *Relation, targets []int) (Node, error) {
	ec := &exprCtx{sc: &scope{}, what: "VALUES"}
	var rows [][]expr.Expr
	for _, l := range sel.ValuesLists {
		items := l.GetList().GetItems()
		if len(items) > len(targets) {
			return nil, sqlerr.New(sqlerr.SyntaxError, "INSERT has more expressions than target columns")
		}
		if len(items) < len(targets) {
			return nil, sqlerr.New(sqlerr.SyntaxError, "INSERT has more target columns than expressions")
		}
		row := make([]expr.Expr, len(items))
		for i, it := range items {
			col := rel.Cols[targets[i]]
			if it.GetSetToDefault() != nil {
				d, err := b.defaultExpr(col)
				if err != nil {
					return nil, err
				}
				row[i] = d
				continue
			}
			e, err := b.bindExpr(it, ec)
			if err != nil {
				return nil, err
			}
			if row[i], err = b.assign(e, col); err != nil {
				return nil, err
			}
		}
		rows = append(rows, row)
	}
	cols := make([]Column, len(targets))
	for i, t := range targets {
		cols[i] = Column{Name: rel.Cols[t].Name, T: rel.Cols[t].T}
	}
	return &Values{Rows: rows, Cols: cols}, nil
}

// assign converts a value for storing in a column: PostgreSQL's assignment
// cast (numeric to integer, anything to text, varchar(n) length checks).
func (b *binder) assign(e expr.Expr, col RelColumn) (expr.Expr, error) {
	from := e.Type()
	if from.OID == col.T.OID && (col.T.Typmod < 0 || from.Typmod == col.T.Typmod) {
		return e, nil
	}
	if from.OID == types.OidUnknown {
		return b.coerce(e, col.T, true, -1)
	}
	if _, ok := expr.ImplicitCastCost(from, col.T); !ok && !assignmentCast(from, col.T) {
		return nil, sqlerr.New(sqlerr.DatatypeMismatch, "column \"%s\" is of type %s but expression is of type %s", col.Name, col.T, from).
			WithHint("You will need to rewrite or cast the expression.")
	}
	return b.coerce(e, col.T, true, -1)
}

// assignmentCast lists the casts PostgreSQL marks as assignment casts
// beyond the implicit ones.
func assignmentCast(from, to types.T) bool {
	_, fromNum := numericTypes[from.OID]
	_, toNum := numericTypes[to.OID]
	switch {
	case fromNum && toNum:
		return true
	case to.OID == types.OidText || to.OID == types.OidVarchar || to.OID == types.OidBpchar:
		return true
	case from.OID == types.OidTimestampTZ && (to.OID == types.OidTimestamp || to.OID == types.OidDate):
		return true
	case from.OID == types.OidTimestamp && to.OID == types.OidDate:
		return true
	case from.OID == types.OidJSON && to.OID == types.OidJSONB, from.OID == types.OidJSONB && to.OID == types.OidJSON:
		return true
	}
	return false
}

var numericTypes = map[uint32]bool{
	types.OidInt2: true, types.OidInt4: true, types.OidInt8: true,
	types.OidFloat4: true, types.OidFloat8: true, types.OidNumeric: true,
}

// defaultExpr binds a column's DEFAULT (NULL when it has none).
func (b *binder) defaultExpr(c RelColumn) (expr.Expr, error) {
	if c.Default == "" {
		return &expr.Const{Val: nil, T: c.T}, nil
	}
	stmts, err := parse.Parse("SELECT " + c.Default)
	if err != nil || len(stmts) != 1 {
		return nil, sqlerr.New(sqlerr.InternalError, "unreadable default for column \"%s\"", c.Name)
	}
	rt := stmts[0].Node.GetSelectStmt().TargetList[0].GetResTarget()
	e, err := b.bindExpr(rt.Val, &exprCtx{sc: &scope{}, what: "DEFAULT expressions"})
	if err != nil {
		return nil, err
	}
	return b.assign(e, c)
}

// BindDefault checks a DEFAULT expression written in CREATE TABLE.
func BindDefault(cat Catalog, n *pg_query.Node, col RelColumn) error {
	b := &binder{cat: cat}
	e, err := b.bindExpr(n, &exprCtx{sc: &scope{}, what: "DEFAULT expressions"})
	if err != nil {
		return err
	}
	_, err = b.assign(e, col)
	return err
}

func withPos(err error, loc int32) error { return sqlerr.PositionIfNone(err, int(loc)+1) }
