package planner

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// bindFromList binds FROM items; several items are cross-joined (WHERE
// equalities between them become hash-join keys in pushFilter).
func (b *binder) bindFromList(items []*pg_query.Node, parent *scope) (Node, *scope, error) {
	var plan Node
	sc := &scope{parent: parent}
	for _, it := range items {
		p, s, err := b.bindFromItem(it, parent)
		if err != nil {
			return nil, nil, laterFromReference(err, sc)
		}
		if plan == nil {
			plan, sc = p, &scope{parent: parent, cols: s.cols, usingCols: s.usingCols}
			continue
		}
		for _, c := range s.cols {
			for _, have := range sc.cols {
				if c.Table != "" && have.Table == c.Table && !c.Hidden && !have.Hidden && c.Name == have.Name {
					return nil, nil, sqlerr.New(sqlerr.DuplicateObject, "table name \"%s\" specified more than once", c.Table)
				}
			}
		}
		plan = &Join{Kind: CrossJoin, Left: plan, Right: p}
		sc.cols = append(sc.cols, s.cols...)
	}
	return plan, sc, nil
}

// laterFromReference rewrites "missing FROM-clause entry" for a table
// that an earlier item of the same FROM list names, as PostgreSQL says it:
// the entry exists but a subquery or function in FROM cannot see it
// (that would need LATERAL).
func laterFromReference(err error, sc *scope) error {
	se, ok := err.(*sqlerr.Error)
	const prefix = "missing FROM-clause entry for table \""
	if !ok || se.Code != sqlerr.UndefinedTable || !strings.HasPrefix(se.Message, prefix) {
		return err
	}
	name := strings.TrimSuffix(strings.TrimPrefix(se.Message, prefix), "\"")
	for _, c := range sc.cols {
		if c.Table == name {
			cp := *se
			cp.Message = "invalid reference to FROM-clause entry for table \"" + name + "\""
			cp.Hint = "There is an entry for table \"" + name + "\", but it cannot be referenced from this part of the query."
			return &cp
		}
	}
	return err
}

func (b *binder) bindFromItem(n *pg_query.Node, parent *scope) (Node, *scope, error) {
	switch x := n.GetNode().(type) {
	case *pg_query.Node_RangeVar:
		return b.bindRangeVar(x.RangeVar, parent)
	case *pg_query.Node_RangeSubselect:
		if x.RangeSubselect.Lateral {
			return nil, nil, sqlerr.New(sqlerr.FeatureNotSupported, "LATERAL is not supported")
		}
		plan, err := b.bindSelectNode(x.RangeSubselect.Subquery, parent)
		if err != nil {
			return nil, nil, err
		}
		alias := ""
		var colnames []string
		if a := x.RangeSubselect.Alias; a != nil {
			alias, colnames = a.Aliasname, stringList(a.Colnames)
		}
		return plan, scopeOf(plan.Columns(), alias, colnames, parent), nil
	case *pg_query.Node_RangeFunction:
		return b.bindRangeFunction(x.RangeFunction, parent)
	case *pg_query.Node_JoinExpr:
		return b.bindJoin(x.JoinExpr, parent)
	}
	return nil, nil, notSupported(nodeLocation(n), NodeName(n)+" in FROM")
}

func scopeOf(cols []Column, alias string, colnames []string, parent *scope) *scope {
	sc := &scope{parent: parent}
	for i, c := range cols {
		name := c.Name
		if i < len(colnames) {
			name = colnames[i]
		}
		sc.cols = append(sc.cols, scopeCol{Table: alias, Name: name, T: c.T, TableOID: c.TableOID, AttNum: c.AttNum, Field: c.Field})
	}
	return sc
}

func (b *binder) bindRangeVar(rv *pg_query.RangeVar, parent *scope) (Node, *scope, error) {
	alias := rv.Relname
	var colnames []string
	if rv.Alias != nil {
		alias, colnames = rv.Alias.Aliasname, stringList(rv.Alias.Colnames)
	}
	if rv.Schemaname == "" {
		if cte, ok := b.lookupCTE(rv.Relname); ok {
			saved := b.ctes
			// A full slice expression, so that WITH scopes the body pushes
			// are appended to a copy, not over the saved stack's entries.
			b.ctes = b.ctes[:cte.depth:cte.depth]
			plan, err := b.bindSelectNode(cte.query, nil)
			b.ctes = saved
			if err != nil {
				return nil, nil, err
			}
			names := colnames
			if names == nil {
				names = cte.colName
			}
			return plan, scopeOf(plan.Columns(), alias, names, parent), nil
		}
	}
	if err := b.checkRangeVarDatabase(rv); err != nil {
		return nil, nil, err
	}
	rel, err := b.cat.LookupRelation(rv.Schemaname, rv.Relname)
	if err != nil {
		return nil, nil, sqlerr.PositionIfNone(err, int(rv.Location)+1)
	}
	if rel.ViewSQL != "" {
		if b.expandingView(rel.Name) {
			return nil, nil, sqlerr.New(sqlerr.InvalidTableDefinition, "infinite recursion detected in view \"%s\"", rel.Name)
		}
		stmts, err := parse.Parse(rel.ViewSQL)
		if err != nil || len(stmts) != 1 {
			return nil, nil, sqlerr.New(sqlerr.InternalError, "view \"%s\" has an unreadable definition", rel.Name)
		}
		b.views = append(b.views, rel.Name)
		b.viewOIDs = append(b.viewOIDs, rel.OID)
		saved := b.ctes
		b.ctes = nil
		viewAccess := b.recordScan(rel, nil) // accesses.go: the view, as the current user
		leaveView := b.enterView(rel)        // what it reads, as the view's owner
		plan, err := b.bindSelectNode(stmts[0].Node, nil)
		leaveView()
		b.ctes = saved
		b.views = b.views[:len(b.views)-1]
		b.viewOIDs = b.viewOIDs[:len(b.viewOIDs)-1]
		if err != nil {
			return nil, nil, err
		}
		names := colnames
		if names == nil {
			for _, c := range rel.Cols {
				names = append(names, c.Name)
			}
		}
		vsc := scopeOf(plan.Columns(), alias, names, parent)
		tieScope(viewAccess, vsc) // accesses.go
		return plan, vsc, nil
	}
	scan := &Scan{OID: rel.OID, Schema: rel.Schema, Name: rel.Name, Alias: alias, Kind: rel.Kind}
	sc := &scope{parent: parent}
	for i, c := range rel.Cols {
		name := c.Name
		if i < len(colnames) {
			name = colnames[i]
		}
		col := Column{Name: c.Name, T: c.T}
		if rel.Kind == StoredTable {
			col.TableOID, col.AttNum = rel.OID, int16(i+1)
		}
		scan.Cols = append(scan.Cols, col)
		// A hidden column (a files source's _metadata) is read by name
		// only, as a system column is.
		sc.cols = append(sc.cols, scopeCol{Table: alias, Name: name, T: c.T, TableOID: col.TableOID, AttNum: col.AttNum, System: c.Hidden})
	}
	b.recordScan(rel, sc) // accesses.go
	if rel.Kind == VirtualTable {
		// Catalog relations expose the system column tableoid, which psql's
		// \dd joins on.
		exprs := make([]expr.Expr, 0, len(scan.Cols)+1)
		for i, c := range scan.Cols {
			exprs = append(exprs, &expr.ColumnRef{Index: i, T: c.T, Name: c.Name})
		}
		exprs = append(exprs, &expr.Const{Val: int64(rel.OID), T: types.Oid})
		cols := append(append([]Column{}, scan.Cols...), Column{Name: "tableoid", T: types.Oid})
		sc.cols = append(sc.cols, scopeCol{Table: alias, Name: "tableoid", T: types.Oid, System: true})
		return &Project{Input: scan, Exprs: exprs, Cols: cols}, sc, nil
	}
	if n := len(b.viewOIDs); n > 0 {
		rel.Via = b.viewOIDs[n-1]
	}
	node, err := b.applyScanSecurity(rel, scan) // scan_security.go
	if err != nil {
		return nil, nil, err
	}
	return node, sc, nil
}

// setReturning lists the set-returning functions weir runs in FROM.
var setReturning = map[string]bool{"generate_series": true, "unnest": true, "generate_subscripts": true, "pg_partition_ancestors": true, "aclexplode": true, "explode": true, "explode_outer": true, "posexplode": true, "json_tuple": true}

func (b *binder) bindRangeFunction(rf *pg_query.RangeFunction, parent *scope) (Node, *scope, error) {
	if rf.Lateral || len(rf.Functions) != 1 {
		return nil, nil, sqlerr.New(sqlerr.FeatureNotSupported, "LATERAL and ROWS FROM are not supported")
	}
	items := rf.Functions[0].GetList().GetItems()
	fc := items[0].GetFuncCall()
	if fc == nil {
		return nil, nil, sqlerr.New(sqlerr.FeatureNotSupported, "this function form in FROM is not supported")
	}
	name := funcName(fc.Funcname)
	if kind, ok := windowFunctions[name]; ok {
		return b.bindWindowFunction(rf, fc, kind, parent)
	}
	if err := databricksFileFunction(name, fc); err != nil {
		return nil, nil, err
	}
	if name == "identifier" {
		if rv, ok := identifierClause(fc, rf.Alias); ok {
			return b.bindRangeVar(rv, parent)
		}
	}
	if IsFilesFunction(name) {
		return b.bindReadFiles(rf, fc, parent) // bind_read_files.go
	}
	if IsKafkaFunction(name) {
		return b.bindReadKafka(rf, fc, parent) // bind_read_kafka.go
	}
	if name == "event_log" {
		return b.bindEventLog(rf, fc, parent) // bind_event_log.go
	}
	alias := name
	var colnames []string
	if rf.Alias != nil {
		alias, colnames = rf.Alias.Aliasname, stringList(rf.Alias.Colnames)
	}
	if name == "nexmark" {
		fs, err := b.bindNexmark(fc)
		if err != nil {
			return nil, nil, err
		}
		if fs.WithOrdinality = rf.Ordinality; rf.Ordinality {
			fs.Cols = append(fs.Cols, Column{Name: "ordinality", T: types.Int8})
		}
		return fs, scopeOf(fs.Cols, alias, colnames, parent), nil
	}
	ec := &exprCtx{sc: &scope{parent: parent}, what: "functions in FROM"}
	var args []expr.Expr
	for _, a := range fc.Args {
		e, err := b.bindExpr(a, ec)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, e)
	}
	var plan Node
	if name == "pg_get_keywords" {
		kw, err := keywordsValues(args, int(fc.Location))
		if err != nil {
			return nil, nil, err
		}
		plan = kw
	} else if setReturning[name] {
		fs, err := b.bindSetReturning(name, args, int(fc.Location))
		if err != nil {
			return nil, nil, err
		}
		fs.WithOrdinality = rf.Ordinality
		if rf.Ordinality {
			fs.Cols = append(fs.Cols, Column{Name: "ordinality", T: types.Int8})
		}
		plan = fs
	} else {
		e, err := b.bindExpr(items[0], ec)
		if err != nil {
			return nil, nil, err
		}
		plan = &Values{Rows: [][]expr.Expr{{e}}, Cols: []Column{{Name: name, T: e.Type()}}}
	}
	cols := plan.Columns()
	if len(colnames) == 0 && rf.Alias != nil && len(cols) == 1 {
		// FROM f(...) AS x names the single column x too.
		colnames = []string{alias}
	}
	if len(colnames) == 0 && len(cols) >= 1 && cols[0].Name == name {
		colnames = []string{name}
	}
	return plan, scopeOf(cols, alias, colnames, parent), nil
}

func (b *binder) bindSetReturning(name string, args []expr.Expr, pos int) (*FunctionScan, error) {
	switch name {
	case "explode", "explode_outer":
		// Databricks' explode(array) is unnest; its column is named col.
		// explode_outer unnests one NULL for a NULL or empty array.
		if len(args) != 1 {
			return nil, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function %s with %d arguments does not exist", name, len(args))
		}
		if name == "explode_outer" && args[0].Type().IsArray() {
			outer, err := b.callResolved("_explode_outer_array", args, types.T{}, pos)
			if err != nil {
				return nil, err
			}
			args = []expr.Expr{outer}
		}
		fs, err := b.bindSetReturning("unnest", args, pos)
		if err != nil {
			return nil, err
		}
		fs.Cols[0].Name = "col"
		return fs, nil
	case "json_tuple":
		// Databricks' json_tuple(json, k1, k2, ...): one row, a text
		// column c0, c1, ... per key.
		if len(args) < 2 {
			return nil, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function json_tuple with %d arguments does not exist", len(args)).
				WithHint("json_tuple takes a JSON string and one or more keys.")
		}
		fs := &FunctionScan{Func: "unnest"}
		for i, k := range args[1:] {
			field, err := b.callResolved("_json_tuple_field", []expr.Expr{args[0], k}, types.T{}, pos)
			if err != nil {
				return nil, err
			}
			fs.Args = append(fs.Args, &expr.ArrayConstructor{Elems: []expr.Expr{field}, T: types.ArrayOf(types.Text)})
			fs.Cols = append(fs.Cols, Column{Name: fmt.Sprintf("c%d", i), T: types.Text})
		}
		return fs, nil
	case "posexplode":
		// Databricks' posexplode(array): (pos, col), pos from 0; unnest
		// of the positions beside the array.
		if len(args) != 1 {
			return nil, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function posexplode with %d arguments does not exist", len(args))
		}
		fs, err := b.bindSetReturning("unnest", args, pos)
		if err != nil {
			return nil, err
		}
		positions, err := b.callResolved("_posexplode_positions", fs.Args, types.T{}, pos)
		if err != nil {
			return nil, err
		}
		return &FunctionScan{Func: "unnest", Args: []expr.Expr{positions, fs.Args[0]},
			Cols: []Column{{Name: "pos", T: types.Int4}, {Name: "col", T: fs.Cols[0].T}}}, nil
	case "generate_series":
		if len(args) < 2 || len(args) > 3 {
			return nil, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function generate_series with %d arguments does not exist", len(args))
		}
		ts := make([]types.T, 0, 3)
		for _, a := range args[:2] {
			ts = append(ts, a.Type())
		}
		t, err := expr.CommonType(ts)
		if err != nil {
			return nil, err
		}
		if t.OID == types.OidInt2 {
			t = types.Int4
		}
		if t.OID == types.OidDate || t.OID == types.OidUnknown && len(args) == 3 {
			t = types.TimestampTZ
		}
		switch t.OID {
		case types.OidInt4, types.OidInt8, types.OidNumeric, types.OidTimestamp, types.OidTimestampTZ:
		default:
			if t.OID == types.OidText {
				return nil, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function generate_series(unknown, unknown) is not unique")
			}
			return nil, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function generate_series(%s, %s) does not exist", args[0].Type(), args[1].Type())
		}
		for i := 0; i < 2; i++ {
			var err error
			if args[i], err = b.coerce(args[i], t, false, -1); err != nil {
				return nil, err
			}
		}
		if len(args) == 3 {
			step := t
			if t.OID == types.OidTimestamp || t.OID == types.OidTimestampTZ {
				step = types.Interval
			}
			var err error
			if args[2], err = b.coerce(args[2], step, false, -1); err != nil {
				return nil, err
			}
		}
		return &FunctionScan{Func: name, Args: args, Cols: []Column{{Name: name, T: t}}}, nil
	case "unnest":
		if len(args) == 1 {
			var err error
			if args[0], err = b.vectorAsArray(args[0]); err != nil {
				return nil, err
			}
		}
		if len(args) != 1 || !args[0].Type().IsArray() {
			if len(args) == 1 && args[0].Type().OID == types.OidUnknown {
				return nil, sqlerr.At(sqlerr.IndeterminateDatatype, pos+1, "could not determine polymorphic type because input has type unknown")
			}
			return nil, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function unnest(%s) does not exist", typeList(args))
		}
		return &FunctionScan{Func: name, Args: args, Cols: []Column{{Name: name, T: args[0].Type().Elem()}}}, nil
	case "generate_subscripts":
		// generate_subscripts(arr, 1) is the series of arr's subscripts:
		// 1..n for arrays, 0..n-1 for int2vector / oidvector.
		if len(args) != 2 {
			return nil, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function generate_subscripts with %d arguments does not exist", len(args))
		}
		lo := int64(1)
		if t := args[0].Type().OID; t == types.OidInt2Vector || t == types.OidOidVector {
			lo = 0
		}
		arr, err := b.vectorAsArray(args[0])
		if err != nil {
			return nil, err
		}
		n, err := b.callResolved("cardinality", []expr.Expr{arr}, types.T{}, pos)
		if err != nil {
			return nil, err
		}
		hi, err := b.opOver("+", []expr.Expr{n, &expr.Const{Val: lo - 1, T: types.Int4}}, pos)
		if err != nil {
			return nil, err
		}
		return &FunctionScan{Func: "generate_series", Args: []expr.Expr{&expr.Const{Val: lo, T: types.Int4}, hi},
			Cols: []Column{{Name: name, T: types.Int4}}}, nil
	case "aclexplode":
		if len(args) != 1 {
			return nil, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function aclexplode with %d arguments does not exist", len(args))
		}
		// aclitem[] or a literal: no other type casts to it implicitly.
		if t := args[0].Type(); t.OID != types.OidUnknown && !(t.IsArray() && t.Elem().OID == types.OidACLItem) {
			return nil, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function aclexplode(%s) does not exist", t).
				WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
		}
		acl, err := b.coerce(args[0], types.ArrayOf(types.T{OID: types.OidACLItem, Typmod: -1}), false, -1)
		if err != nil {
			return nil, err
		}
		return &FunctionScan{Func: name, Args: []expr.Expr{acl}, Cols: []Column{
			{Name: "grantor", T: types.Oid}, {Name: "grantee", T: types.Oid},
			{Name: "privilege_type", T: types.Text}, {Name: "is_grantable", T: types.Bool}}}, nil
	case "pg_partition_ancestors":
		// weir has no partitions: a relation's only ancestor is itself.
		if len(args) != 1 {
			return nil, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function pg_partition_ancestors with %d arguments does not exist", len(args))
		}
		rel, err := b.coerce(args[0], types.Regclass, false, -1)
		if err != nil {
			return nil, err
		}
		return &FunctionScan{Func: "unnest", Args: []expr.Expr{&expr.ArrayConstructor{Elems: []expr.Expr{rel}, T: types.ArrayOf(types.Regclass)}},
			Cols: []Column{{Name: "relid", T: types.Regclass}}}, nil
	}
	return nil, sqlerr.New(sqlerr.FeatureNotSupported, "function %s in FROM is not supported", name)
}

func typeList(args []expr.Expr) string {
	s := ""
	for i, a := range args {
		if i > 0 {
			s += ", "
		}
		s += a.Type().String()
	}
	return s
}

func (b *binder) bindJoin(j *pg_query.JoinExpr, parent *scope) (Node, *scope, error) {
	left, ls, err := b.bindFromItem(j.Larg, parent)
	if err != nil {
		return nil, nil, err
	}
	right, rs, err := b.bindFromItem(j.Rarg, parent)
	if err != nil {
		return nil, nil, laterFromReference(err, ls)
	}
	kind := InnerJoin
	switch j.Jointype {
	case pg_query.JoinType_JOIN_LEFT:
		kind = LeftJoin
	case pg_query.JoinType_JOIN_RIGHT:
		kind = RightJoin
	case pg_query.JoinType_JOIN_FULL:
		kind = FullJoin
	}
	sc := &scope{parent: parent, cols: append(append([]scopeCol{}, ls.cols...), rs.cols...)}
	nl := len(ls.cols)
	join := &Join{Kind: kind, Left: left, Right: right}
	using := stringList(j.UsingClause)
	if j.IsNatural {
		for _, lc := range ls.cols {
			for _, rc := range rs.cols {
				if !lc.Hidden && !rc.Hidden && lc.Name == rc.Name {
					using = append(using, lc.Name)
				}
			}
		}
	}
	var plan Node = join
	if len(using) > 0 {
		// Each USING column becomes one merged column, listed first by *
		// and found by its bare name: the left column (the right one for a
		// RIGHT JOIN), or COALESCE of both for a FULL JOIN, so right-only
		// rows keep their key and a later USING of the same name joins on
		// the merged value. The sides' columns stay reachable qualified.
		var merged []expr.Expr
		var mergedCols []scopeCol
		for _, name := range using {
			li, lcol, _, err := (&scope{cols: ls.cols}).resolve("", name, 0)
			if err != nil {
				return nil, nil, sqlerr.New(sqlerr.UndefinedColumn, "column \"%s\" specified in USING clause does not exist in left table", name)
			}
			ri, rcol, _, err := (&scope{cols: rs.cols}).resolve("", name, 0)
			if err != nil {
				return nil, nil, sqlerr.New(sqlerr.UndefinedColumn, "column \"%s\" specified in USING clause does not exist in right table", name)
			}
			lcol.markRef() // accesses.go: the join compares both
			rcol.markRef()
			t, err := expr.CommonType([]types.T{lcol.T, rcol.T})
			if err != nil {
				return nil, nil, err
			}
			lk, err := b.coerce(&expr.ColumnRef{Index: li, T: lcol.T, Name: name}, t, false, -1)
			if err != nil {
				return nil, nil, err
			}
			rk, err := b.coerce(&expr.ColumnRef{Index: ri, T: rcol.T, Name: name}, t, false, -1)
			if err != nil {
				return nil, nil, err
			}
			join.LeftKeys = append(join.LeftKeys, lk)
			join.RightKeys = append(join.RightKeys, rk)
			rOut, err := b.coerce(&expr.ColumnRef{Index: nl + ri, T: rcol.T, Name: name}, t, false, -1)
			if err != nil {
				return nil, nil, err
			}
			mc := scopeCol{Name: name, T: t}
			var m expr.Expr
			switch kind {
			case FullJoin:
				m = &expr.Coalesce{Args: []expr.Expr{lk, rOut}, T: t}
			case RightJoin:
				m = rOut
				mc.TableOID, mc.AttNum = rcol.TableOID, rcol.AttNum
			default:
				m = lk
				mc.TableOID, mc.AttNum = lcol.TableOID, lcol.AttNum
			}
			merged = append(merged, m)
			mergedCols = append(mergedCols, mc)
			sc.cols[li].Hidden = true
			sc.cols[nl+ri].Hidden = true
		}
		joinCols := join.Columns()
		exprs := append([]expr.Expr{}, merged...)
		cols := make([]Column, 0, len(merged)+len(joinCols))
		for _, mc := range mergedCols {
			cols = append(cols, Column{Name: mc.Name, T: mc.T, TableOID: mc.TableOID, AttNum: mc.AttNum})
		}
		for i, c := range joinCols {
			exprs = append(exprs, &expr.ColumnRef{Index: i, T: c.T, Name: c.Name})
			cols = append(cols, c)
		}
		plan = &Project{Input: join, Exprs: exprs, Cols: cols}
		sc.cols = append(mergedCols, sc.cols...)
	} else if j.Quals != nil {
		cond, err := b.bindExpr(j.Quals, &exprCtx{sc: sc, what: "JOIN conditions"})
		if err != nil {
			return nil, nil, err
		}
		if cond, err = b.coerceBool(cond, "JOIN/ON"); err != nil {
			return nil, nil, err
		}
		b.splitJoinCondition(join, cond, nl)
	} else if kind == InnerJoin {
		join.Kind = CrossJoin
	}
	if j.Alias != nil {
		for i := range sc.cols {
			sc.cols[i].Table = j.Alias.Aliasname
			if sc.cols[i].Hidden && len(using) > 0 {
				// The alias names only the merged columns.
				sc.cols[i].Table = ""
			}
		}
	}
	return plan, sc, nil
}

// splitJoinCondition moves equalities between a left and a right
// expression into hash keys and keeps the rest as the residual condition.
func (b *binder) splitJoinCondition(j *Join, cond expr.Expr, nl int) {
	var rest []expr.Expr
	for _, c := range conjuncts(cond) {
		if lk, rk, ok := b.equiKey(c, nl); ok {
			j.LeftKeys = append(j.LeftKeys, lk)
			j.RightKeys = append(j.RightKeys, rk)
			continue
		}
		rest = append(rest, c)
	}
	switch len(rest) {
	case 0:
	case 1:
		j.Cond = rest[0]
	default:
		j.Cond = &expr.BoolOp{And: true, Args: rest}
	}
}

func conjuncts(e expr.Expr) []expr.Expr {
	if bo, ok := e.(*expr.BoolOp); ok && bo.And {
		var out []expr.Expr
		for _, a := range bo.Args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []expr.Expr{e}
}

// equiKey recognises left = right where each side reads only one input;
// the right side is renumbered to the right input's columns.
func (b *binder) equiKey(c expr.Expr, nl int) (expr.Expr, expr.Expr, bool) {
	f, ok := c.(*expr.FuncCall)
	if !ok || f.Name != "=" || len(f.Args) != 2 {
		return nil, nil, false
	}
	a, z := f.Args[0], f.Args[1]
	sa, sz := side(a, nl), side(z, nl)
	switch {
	case sa == 1 && sz == 2:
	case sa == 2 && sz == 1:
		a, z = z, a
	default:
		return nil, nil, false
	}
	if a.Type().OID != z.Type().OID {
		t, err := expr.CommonType([]types.T{a.Type(), z.Type()})
		if err != nil {
			return nil, nil, false
		}
		if a, err = b.coerce(a, t, false, -1); err != nil {
			return nil, nil, false
		}
		if z, err = b.coerce(z, t, false, -1); err != nil {
			return nil, nil, false
		}
	}
	z = mapColumnRefs(z, func(cr *expr.ColumnRef) expr.Expr {
		return &expr.ColumnRef{Index: cr.Index - nl, T: cr.T, Name: cr.Name}
	})
	return a, z, true
}

// side tells which join input an expression reads: 1 left, 2 right, 0 none
// or outer references, 3 both.
func side(e expr.Expr, nl int) int {
	s := 0
	bad := false
	walkExpr(e, func(x expr.Expr) {
		switch c := x.(type) {
		case *expr.ColumnRef:
			if c.Index < nl {
				s |= 1
			} else {
				s |= 2
			}
		case *expr.OuterRef, *expr.Subquery, *expr.Param:
			bad = true
		}
	})
	if bad {
		return 0
	}
	return s
}

// pushFilter places a WHERE predicate: equalities across a cross join
// become hash-join keys, a conjunct that reads one side only filters that
// side below the join (as PostgreSQL does: fewer rows to join, and the
// same rows reach the conjunct, hence the same errors), the rest filters
// above.
func pushFilter(input Node, pred expr.Expr) Node {
	j, ok := input.(*Join)
	if !ok || j.Kind != CrossJoin && j.Kind != InnerJoin {
		return &Filter{Input: input, Pred: pred}
	}
	nl := len(j.Left.Columns())
	var rest []expr.Expr
	for _, c := range conjuncts(pred) {
		if pushEqui(j, c) {
			continue
		}
		if !isVolatile(c) {
			switch side(c, nl) {
			case 1:
				j.Left = pushFilter(j.Left, c)
				continue
			case 2:
				shifted := mapColumnRefs(c, func(r *expr.ColumnRef) expr.Expr {
					return &expr.ColumnRef{Index: r.Index - nl, T: r.T, Name: r.Name}
				})
				// mapColumnRefs rebuilds the node kinds it knows; move the
				// conjunct only if every column reference was shifted.
				if shiftedBy(c, shifted, nl) {
					j.Right = pushFilter(j.Right, shifted)
					continue
				}
			}
		}
		rest = append(rest, c)
	}
	switch len(rest) {
	case 0:
		return input
	case 1:
		return &Filter{Input: input, Pred: rest[0]}
	}
	return &Filter{Input: input, Pred: &expr.BoolOp{And: true, Args: rest}}
}

// shiftedBy reports whether b is a with every column reference moved down
// by n (walked in the same order).
func shiftedBy(a, b expr.Expr, n int) bool {
	refs := func(e expr.Expr) []int {
		var out []int
		walkExpr(e, func(x expr.Expr) {
			if r, ok := x.(*expr.ColumnRef); ok {
				out = append(out, r.Index)
			}
		})
		return out
	}
	ra, rb := refs(a), refs(b)
	if len(ra) != len(rb) {
		return false
	}
	for i := range ra {
		if rb[i] != ra[i]-n {
			return false
		}
	}
	return true
}

// isVolatile reports whether e calls a volatile function (random(), ...),
// which must run as often as the query says, so it is not moved.
func isVolatile(e expr.Expr) bool {
	v := false
	walkExpr(e, func(x expr.Expr) {
		if f, ok := x.(*expr.FuncCall); ok && expr.IsVolatile(f.Name) {
			v = true
		}
	})
	return v
}

// pushEqui tries to turn c into a key of j or of a cross join nested on its
// left side (FROM a, b, c builds ((a × b) × c)).
func pushEqui(j *Join, c expr.Expr) bool {
	nl := len(j.Left.Columns())
	if side(c, nl) == 3 {
		b := &binder{}
		if lk, rk, ok := b.equiKey(c, nl); ok && side(c, nl) == 3 {
			j.LeftKeys = append(j.LeftKeys, lk)
			j.RightKeys = append(j.RightKeys, rk)
			if j.Kind == CrossJoin {
				j.Kind = InnerJoin
			}
			return true
		}
		return false
	}
	if side(c, nl) == 1 {
		if lj, ok := j.Left.(*Join); ok && (lj.Kind == CrossJoin || lj.Kind == InnerJoin) {
			return pushEqui(lj, c)
		}
	}
	return false
}

// mapColumnRefs rebuilds e with every ColumnRef replaced by fn's result.
func mapColumnRefs(e expr.Expr, fn func(*expr.ColumnRef) expr.Expr) expr.Expr {
	switch x := e.(type) {
	case *expr.ColumnRef:
		return fn(x)
	case *expr.FuncCall:
		c := *x
		c.Args = mapAll(x.Args, fn)
		return &c
	case *expr.Cast:
		c := *x
		c.Arg = mapColumnRefs(x.Arg, fn)
		return &c
	case *expr.BoolOp:
		c := *x
		c.Args = mapAll(x.Args, fn)
		return &c
	case *expr.Not:
		return &expr.Not{Arg: mapColumnRefs(x.Arg, fn)}
	case *expr.IsNull:
		return &expr.IsNull{Arg: mapColumnRefs(x.Arg, fn), Negate: x.Negate}
	case *expr.BoolTest:
		c := *x
		c.Arg = mapColumnRefs(x.Arg, fn)
		return &c
	case *expr.Case:
		c := *x
		c.Whens = mapAll(x.Whens, fn)
		c.Thens = mapAll(x.Thens, fn)
		if x.Else != nil {
			c.Else = mapColumnRefs(x.Else, fn)
		}
		return &c
	case *expr.InList:
		c := *x
		c.Arg = mapColumnRefs(x.Arg, fn)
		c.List = mapAll(x.List, fn)
		return &c
	case *expr.Coalesce:
		c := *x
		c.Args = mapAll(x.Args, fn)
		return &c
	case *expr.DistinctFrom:
		c := *x
		c.Left, c.Right = mapColumnRefs(x.Left, fn), mapColumnRefs(x.Right, fn)
		return &c
	case *expr.ArrayCompare:
		c := *x
		c.Left, c.Array = mapColumnRefs(x.Left, fn), mapColumnRefs(x.Array, fn)
		return &c
	case *expr.ArrayConstructor:
		c := *x
		c.Elems = mapAll(x.Elems, fn)
		return &c
	case *expr.ArraySubscript:
		c := *x
		c.Array, c.Index = mapColumnRefs(x.Array, fn), mapColumnRefs(x.Index, fn)
		return &c
	case *expr.MakeStruct:
		c := *x
		c.Fields = mapAll(x.Fields, fn)
		return &c
	case *expr.FieldSelect:
		c := *x
		c.Arg = mapColumnRefs(x.Arg, fn)
		return &c
	case *expr.Subquery:
		if x.Left != nil {
			c := *x
			c.Left = mapColumnRefs(x.Left, fn)
			return &c
		}
	}
	return e
}

func mapAll(es []expr.Expr, fn func(*expr.ColumnRef) expr.Expr) []expr.Expr {
	out := make([]expr.Expr, len(es))
	for i, e := range es {
		out[i] = mapColumnRefs(e, fn)
	}
	return out
}

// vectorAsArray turns an int2vector / oidvector into the array it lists.
func (b *binder) vectorAsArray(e expr.Expr) (expr.Expr, error) {
	switch e.Type().OID {
	case types.OidInt2Vector:
		return b.coerce(e, types.ArrayOf(types.Int2), true, -1)
	case types.OidOidVector:
		return b.coerce(e, types.ArrayOf(types.Oid), true, -1)
	}
	return e, nil
}
