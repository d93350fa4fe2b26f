package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

func (b *binder) bindSelectNode(n *pg_query.Node, parent *scope) (Node, error) {
	s := n.GetSelectStmt()
	if s == nil {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "%s is not a query", NodeName(n))
	}
	return b.bindSelect(s, parent)
}

// target is one output column being built.
type target struct {
	e    expr.Expr
	name string
	col  Column
}

func (b *binder) bindSelect(s *pg_query.SelectStmt, parent *scope) (Node, error) {
	if err := b.enterQuery(); err != nil {
		return nil, err
	}
	defer b.leave()
	if s.WithClause != nil {
		if s.WithClause.Recursive {
			return nil, notSupported(s.WithClause.Location, "WITH RECURSIVE")
		}
		// Without RECURSIVE a CTE sees only the CTEs before it in its WITH
		// list (and those of enclosing queries), never itself or later
		// siblings: each CTE opens its own scope level, and its body is
		// bound with the stack cut below that level.
		outer := len(b.ctes)
		defer func() { b.ctes = b.ctes[:outer] }()
		seen := map[string]bool{}
		for _, c := range s.WithClause.Ctes {
			cte := c.GetCommonTableExpr()
			if seen[cte.Ctename] {
				return nil, sqlerr.At(sqlerr.DuplicateAlias, int(cte.Location)+1, "WITH query name \"%s\" specified more than once", cte.Ctename)
			}
			seen[cte.Ctename] = true
			def := &cteDef{query: cte.Ctequery, colName: stringList(cte.Aliascolnames), depth: len(b.ctes)}
			b.ctes = append(b.ctes, map[string]*cteDef{cte.Ctename: def})
		}
	}
	if s.IntoClause != nil {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "SELECT INTO is not supported")
	}
	if len(s.LockingClause) > 0 {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "SELECT FOR UPDATE/SHARE is not supported: weir tables are append-only")
	}
	var plan Node
	var err error
	switch {
	case s.Op != pg_query.SetOperation_SETOP_NONE && s.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED:
		plan, err = b.bindSetOp(s, parent)
	case len(s.ValuesLists) > 0:
		plan, err = b.bindValues(s, parent)
	default:
		return b.bindSimpleSelect(s, parent)
	}
	if err != nil {
		return nil, err
	}
	// ORDER BY / LIMIT over a set operation or VALUES see its output columns.
	cols := plan.Columns()
	sc := &scope{parent: parent}
	for _, c := range cols {
		sc.cols = append(sc.cols, scopeCol{Name: c.Name, T: c.T})
	}
	if len(s.SortClause) > 0 {
		keys := make([]SortKey, 0, len(s.SortClause))
		for _, o := range orderByAll(s.SortClause, len(cols)) {
			sb := o.GetSortBy()
			var e expr.Expr
			if i, ok := ordinal(sb.Node); ok {
				if i < 1 || i > len(cols) {
					return nil, sqlerr.At(sqlerr.InvalidColumnReference, int(sb.Location)+1, "ORDER BY position %d is not in select list", i)
				}
				e = &expr.ColumnRef{Index: i - 1, T: cols[i-1].T, Name: cols[i-1].Name}
			} else if e, err = b.bindExpr(sb.Node, &exprCtx{sc: sc, what: "ORDER BY"}); err != nil {
				return nil, err
			}
			keys = append(keys, sortKey(e, sb))
		}
		plan = &Sort{Input: plan, Keys: keys}
	}
	return b.bindLimit(s, plan)
}

// sortKeysOf returns the keys of the Sort a LIMIT applies to, for WITH TIES.
func sortKeysOf(n Node) []SortKey {
	if s, ok := n.(*Sort); ok {
		return s.Keys
	}
	return nil
}

func ordinal(n *pg_query.Node) (int, bool) {
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		return int(c.GetIval().Ival), true
	}
	return 0, false
}

func (b *binder) bindLimit(s *pg_query.SelectStmt, plan Node) (Node, error) {
	if s.LimitCount == nil && s.LimitOffset == nil {
		return plan, nil
	}
	l := &Limit{Input: plan}
	if s.LimitOption == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES {
		// FETCH FIRST n ROWS WITH TIES also passes the rows that sort
		// equal to the last one.
		keys := sortKeysOf(plan)
		if len(keys) == 0 {
			return nil, sqlerr.New(sqlerr.SyntaxError, "WITH TIES cannot be specified without ORDER BY clause")
		}
		for _, k := range keys {
			l.Ties = append(l.Ties, k.Expr)
		}
	}
	ec := &exprCtx{what: "LIMIT"}
	if s.LimitCount != nil {
		e, err := b.bindExpr(s.LimitCount, ec)
		if err != nil {
			return nil, err
		}
		if c, ok := e.(*expr.Const); !ok || c.Val != nil {
			if l.Limit, err = b.coerce(e, types.Int8, false, -1); err != nil {
				return nil, err
			}
		}
	}
	if s.LimitOffset != nil {
		e, err := b.bindExpr(s.LimitOffset, &exprCtx{what: "OFFSET"})
		if err != nil {
			return nil, err
		}
		if l.Offset, err = b.coerce(e, types.Int8, false, -1); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (b *binder) bindValues(s *pg_query.SelectStmt, parent *scope) (Node, error) {
	ec := &exprCtx{sc: &scope{parent: parent}, what: "VALUES"}
	var rows [][]expr.Expr
	width := -1
	for _, l := range s.ValuesLists {
		items := l.GetList().GetItems()
		if width >= 0 && len(items) != width {
			return nil, sqlerr.New(sqlerr.SyntaxError, "VALUES lists must all be the same length")
		}
		width = len(items)
		row := make([]expr.Expr, len(items))
		for i, it := range items {
			e, err := b.bindExpr(it, ec)
			if err != nil {
				return nil, err
			}
			row[i] = e
		}
		rows = append(rows, row)
	}
	cols := make([]Column, width)
	for c := 0; c < width; c++ {
		ts := make([]types.T, len(rows))
		for r := range rows {
			ts[r] = rows[r][c].Type()
		}
		t, err := expr.CommonType(ts)
		if err != nil {
			return nil, sqlerr.New(sqlerr.DatatypeMismatch, "VALUES %s", err.Error())
		}
		for r := range rows {
			if rows[r][c], err = b.coerce(rows[r][c], t, false, -1); err != nil {
				return nil, err
			}
		}
		cols[c] = Column{Name: "column" + itoa(c+1), T: t}
	}
	return &Values{Rows: rows, Cols: cols}, nil
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

func (b *binder) bindSetOp(s *pg_query.SelectStmt, parent *scope) (Node, error) {
	left, err := b.bindSelect(s.Larg, parent)
	if err != nil {
		return nil, err
	}
	right, err := b.bindSelect(s.Rarg, parent)
	if err != nil {
		return nil, err
	}
	lc, rc := left.Columns(), right.Columns()
	kind := Union
	name := "UNION"
	switch s.Op {
	case pg_query.SetOperation_SETOP_INTERSECT:
		kind, name = Intersect, "INTERSECT"
	case pg_query.SetOperation_SETOP_EXCEPT:
		kind, name = Except, "EXCEPT"
	}
	if len(lc) != len(rc) {
		return nil, sqlerr.New(sqlerr.SyntaxError, "each %s query must have the same number of columns", name)
	}
	cols := make([]Column, len(lc))
	lx := make([]expr.Expr, len(lc))
	rx := make([]expr.Expr, len(lc))
	needL, needR := false, false
	for i := range lc {
		t, err := expr.CommonType([]types.T{lc[i].T, rc[i].T})
		if err != nil {
			return nil, sqlerr.New(sqlerr.DatatypeMismatch, "%s types %s and %s cannot be matched", name, lc[i].T, rc[i].T)
		}
		cols[i] = Column{Name: lc[i].Name, T: t}
		if lx[i], err = b.coerce(&expr.ColumnRef{Index: i, T: lc[i].T}, t, false, -1); err != nil {
			return nil, err
		}
		if rx[i], err = b.coerce(&expr.ColumnRef{Index: i, T: rc[i].T}, t, false, -1); err != nil {
			return nil, err
		}
		needL = needL || lc[i].T != t
		needR = needR || rc[i].T != t
	}
	if needL {
		left = &Project{Input: left, Exprs: lx, Cols: cols}
	}
	if needR {
		right = &Project{Input: right, Exprs: rx, Cols: cols}
	}
	return &SetOp{Kind: kind, All: s.All, Left: left, Right: right, Cols: cols}, nil
}

func (b *binder) bindSimpleSelect(s *pg_query.SelectStmt, parent *scope) (Node, error) {
	var sc *scope
	plan, err := b.bindSimpleSelectLevel(s, parent, false, &sc)
	if sc != nil && sc.wantsAgg {
		// A subquery holds an aggregate of this level (bind_outer_agg.go).
		plan, err = b.bindSimpleSelectLevel(s, parent, true, &sc)
	}
	return plan, err
}

// bindSimpleSelectLevel binds a SELECT without set operations; forceAgg
// makes it aggregate although no aggregate of its own is written in it.
func (b *binder) bindSimpleSelectLevel(s *pg_query.SelectStmt, parent *scope, forceAgg bool, scOut **scope) (Node, error) {
	// Databricks' QUALIFY comes as a select-list item; it is bound on a
	// copy so that the statement's tree stays as parsed (it may be bound
	// again).
	var qual *pg_query.ResTarget
	if _, q := qualifyItem(s.TargetList); q != nil {
		s = proto.Clone(s).(*pg_query.SelectStmt)
		s.TargetList, qual = qualifyItem(s.TargetList)
		if len(s.DistinctClause) > 0 {
			return nil, qualifyNotSupported(qual, "DISTINCT")
		}
	}
	var input Node
	sc := &scope{parent: parent}
	if len(s.FromClause) == 0 {
		input = &Values{Rows: [][]expr.Expr{{}}, Cols: nil}
	} else {
		var err error
		input, sc, err = b.bindFromList(s.FromClause, parent)
		if err != nil {
			return nil, err
		}
	}
	var where expr.Expr
	if s.WhereClause != nil {
		if containsAggregate(s.WhereClause) {
			return nil, sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed in WHERE")
		}
		sc.clause = "WHERE"
		pred, err := b.bindExpr(s.WhereClause, &exprCtx{sc: sc, what: "WHERE"})
		sc.clause = ""
		if err != nil {
			return nil, err
		}
		if pred, err = b.coerceBool(pred, "WHERE"); err != nil {
			return nil, err
		}
		where = pred
	}
	input = b.planJoins(input, where)

	groupItems := groupByAll(s, s.GroupClause)
	if i, fc := sparkWindowGroupIn(groupItems, s.TargetList, sc); fc != nil {
		others := append(append([]*pg_query.Node{}, groupItems[:i]...), groupItems[i+1:]...)
		var err error
		if input, sc, err = b.bindSparkWindow(fc, input, sc, others); err != nil {
			return nil, err
		}
		groupItems = append(append(append([]*pg_query.Node{}, groupItems[:i]...),
			columnRefNode("window_start", fc.Location), columnRefNode("window_end", fc.Location)), groupItems[i+1:]...)
	}
	*scOut = sc
	hasAgg := len(groupItems) > 0 || s.HavingClause != nil || forceAgg
	for _, t := range s.TargetList {
		if containsLocalAggregate(t, sc) {
			hasAgg = true
		}
	}
	for _, o := range s.SortClause {
		if containsLocalAggregate(o, sc) {
			hasAgg = true
		}
	}
	var agg *aggState
	base := len(sc.cols)
	if hasAgg {
		agg = &aggState{input: sc}
		if err := b.bindGroupBy(s, groupItems, agg); err != nil {
			return nil, err
		}
		sc.aggOut = agg
		defer func() { sc.aggOut = nil }()
	}
	win := &winState{named: map[string]*pg_query.WindowDef{}, base: base}
	if agg != nil {
		// The aggregate's width is known only after the targets are bound;
		// window columns are numbered from a placeholder and renumbered.
		win.base = windowPlaceholder
	}
	for _, w := range s.WindowClause {
		wd := w.GetWindowDef()
		win.named[wd.Name] = wd
	}
	srf := &srfState{}
	ec := &exprCtx{sc: sc, agg: agg, win: win, srf: srf, what: "SELECT"}

	// Targets.
	var targets []target
	for _, tn := range s.TargetList {
		rt := tn.GetResTarget()
		if ts, ok, err := b.structStar(rt.Val, ec); ok {
			// w.* and (expr).* of a struct: one column per field.
			if err != nil {
				return nil, err
			}
			targets = append(targets, ts...)
			continue
		}
		if cr := rt.Val.GetColumnRef(); cr != nil && isStar(cr) {
			ts, err := b.expandStar(cr, ec)
			if err != nil {
				return nil, err
			}
			targets = append(targets, ts...)
			continue
		}
		if ts, ok, err := b.sparkGeneratorTargets(rt, ec); ok { // bind_spark_generators.go
			if err != nil {
				return nil, err
			}
			targets = append(targets, ts...)
			continue
		}
		if fc := rt.Val.GetFuncCall(); fc != nil && funcName(fc.Funcname) == "_pg_expandarray" {
			fields, err := b.bindExpandArray(fc, ec)
			if err != nil {
				return nil, err
			}
			name := rt.Name
			if name == "" {
				name = "_pg_expandarray"
			}
			for i, f := range []string{"x", "n"} {
				targets = append(targets, target{e: fields[i], name: name, col: Column{Name: name, Field: f, T: fields[i].Type()}})
			}
			continue
		}
		e, err := b.bindExpr(rt.Val, ec)
		if err != nil {
			return nil, err
		}
		name := rt.Name
		if name == "" {
			name = deriveName(rt.Val)
		}
		targets = append(targets, target{e: e, name: name, col: columnFor(e, name, sc)})
	}
	var having expr.Expr
	if s.HavingClause != nil {
		hec := &exprCtx{sc: sc, agg: agg, what: "HAVING"}
		h, err := b.bindExpr(s.HavingClause, hec)
		if err != nil {
			return nil, err
		}
		if having, err = b.coerceBool(h, "HAVING"); err != nil {
			return nil, err
		}
	}

	// ORDER BY: output names and ordinals first, then expressions over the
	// same columns as the target list, added as hidden columns.
	visible := len(targets)
	qualifyIdx := -1
	if qual != nil {
		cond := qualifyAliases(qual.Val, s.TargetList, sc)
		e, err := b.bindExpr(cond, ec)
		if err != nil {
			return nil, err
		}
		if e, err = b.coerceBool(e, "QUALIFY"); err != nil {
			return nil, err
		}
		targets = append(targets, target{e: e, name: "?qualify?", col: Column{Name: "?qualify?", T: e.Type()}})
		qualifyIdx = len(targets) - 1
	}
	var keys []SortKey
	for _, o := range orderByAll(s.SortClause, visible) {
		sb := o.GetSortBy()
		if err := orderingOperator(sb); err != nil {
			return nil, err
		}
		idx := -1
		if i, ok := ordinal(sb.Node); ok {
			if i < 1 || i > visible {
				return nil, sqlerr.At(sqlerr.InvalidColumnReference, int(sb.Location)+1, "ORDER BY position %d is not in select list", i)
			}
			idx = i - 1
		} else if cr := sb.Node.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			name := cr.Fields[0].GetString_().Sval
			for i := 0; i < visible; i++ {
				if targets[i].name == name {
					if idx >= 0 {
						return nil, sqlerr.At(sqlerr.AmbiguousColumn, int(cr.Location)+1, "ORDER BY \"%s\" is ambiguous", name)
					}
					idx = i
				}
			}
		}
		if idx < 0 {
			e, err := b.bindExpr(sb.Node, &exprCtx{sc: sc, agg: agg, win: win, what: "ORDER BY"})
			if err != nil {
				return nil, err
			}
			k := exprKey(e)
			for i := 0; i < len(targets); i++ {
				if exprKey(targets[i].e) == k {
					idx = i
					break
				}
			}
			if idx < 0 {
				if s.DistinctClause != nil && len(s.DistinctClause) > 0 && s.DistinctClause[0] == nil {
					return nil, sqlerr.At(sqlerr.InvalidColumnReference, int(sb.Location)+1, "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
				}
				targets = append(targets, target{e: e, name: "?sort?", col: Column{Name: "?sort?", T: e.Type()}})
				idx = len(targets) - 1
			}
		}
		k := sortKey(&expr.ColumnRef{Index: idx, T: targets[idx].e.Type(), Name: targets[idx].name}, sb)
		keys = append(keys, k)
	}

	// DISTINCT ON expressions are bound like ORDER BY expressions.
	var distinctOn []expr.Expr
	distinct := false
	if len(s.DistinctClause) > 0 {
		if len(s.DistinctClause) == 1 && s.DistinctClause[0].GetNode() == nil {
			distinct = true
		} else {
			for _, d := range s.DistinctClause {
				e, err := b.bindExpr(d, &exprCtx{sc: sc, agg: agg, win: win, what: "DISTINCT ON"})
				if err != nil {
					return nil, err
				}
				idx := -1
				k := exprKey(e)
				for i := range targets {
					if exprKey(targets[i].e) == k {
						idx = i
						break
					}
				}
				if idx < 0 {
					targets = append(targets, target{e: e, name: "?distinct?", col: Column{Name: "?distinct?", T: e.Type()}})
					idx = len(targets) - 1
				}
				distinctOn = append(distinctOn, &expr.ColumnRef{Index: idx, T: e.Type()})
			}
		}
	}

	// Assemble: input → aggregate → having → window → project → distinct/sort → limit.
	plan := input
	if agg != nil {
		cols := make([]Column, 0, len(agg.groups)+len(agg.aggs))
		for _, g := range agg.groups {
			cols = append(cols, Column{Name: g.String(), T: g.Type()})
		}
		for _, a := range agg.aggs {
			cols = append(cols, Column{Name: a.Name, T: a.Agg.Ret})
		}
		keySessions(plan, agg.groups)
		plan = &Aggregate{Input: plan, GroupBy: agg.groups, Aggs: agg.aggs, Cols: cols}
		base = len(cols)
	}
	if having != nil {
		plan = &Filter{Input: plan, Pred: having}
	}
	if len(win.calls) > 0 {
		if base != win.base {
			// Window columns were numbered before the aggregate's width was
			// known; renumber them.
			shiftRefs(targets, win.base, len(win.calls), base)
		}
		cols := append([]Column{}, plan.Columns()...)
		for _, c := range win.calls {
			cols = append(cols, Column{Name: c.Name, T: c.T})
		}
		plan = &Window{Input: plan, Calls: win.calls, Cols: cols}
	}
	if len(srf.calls) > 0 {
		cols := append([]Column{}, plan.Columns()...)
		shiftRefs(targets, srfPlaceholder, srf.width(), len(cols))
		for _, c := range srf.calls {
			cols = append(cols, Column{Name: c.Func, T: c.T})
			if c.Ordinality {
				cols = append(cols, Column{Name: "ordinality", T: types.Int4})
			}
		}
		plan = &ProjectSet{Input: plan, Calls: srf.calls, Cols: cols}
	}
	exprs := make([]expr.Expr, len(targets))
	cols := make([]Column, len(targets))
	for i, t := range targets {
		exprs[i] = t.e
		cols[i] = t.col
		if cols[i].T.OID == types.OidUnknown {
			// An untyped literal in the output is text, as in PostgreSQL.
			exprs[i] = &expr.Const{Val: constVal(t.e), T: types.Text}
			cols[i].T = types.Text
		}
	}
	if v, ok := plan.(*Values); ok && len(v.Cols) == 0 && len(v.Rows) == 1 {
		// SELECT without FROM: the select list is the one row.
		plan = &Values{Rows: [][]expr.Expr{exprs}, Cols: cols}
	} else {
		plan = &Project{Input: plan, Exprs: exprs, Cols: cols}
	}
	if qualifyIdx >= 0 {
		plan = &Filter{Input: plan, Pred: &expr.ColumnRef{Index: qualifyIdx, T: types.Bool, Name: "?qualify?"}}
	}
	if distinct {
		plan = &Distinct{Input: plan}
	}
	if len(keys) > 0 {
		plan = &Sort{Input: plan, Keys: keys}
	}
	if distinctOn != nil {
		if len(keys) == 0 {
			ks := make([]SortKey, len(distinctOn))
			for i, d := range distinctOn {
				ks[i] = SortKey{Expr: d}
			}
			plan = &Sort{Input: plan, Keys: ks}
		}
		plan = &Distinct{Input: plan, On: distinctOn}
	}
	plan, err := b.bindLimit(s, plan)
	if err != nil {
		return nil, err
	}
	if len(targets) > visible {
		exprs := make([]expr.Expr, visible)
		for i := range exprs {
			exprs[i] = &expr.ColumnRef{Index: i, T: cols[i].T, Name: cols[i].Name}
		}
		plan = &Project{Input: plan, Exprs: exprs, Cols: cols[:visible]}
	}
	return plan, nil
}

const (
	windowPlaceholder = 1 << 20
	srfPlaceholder    = 1 << 21
)

// srfState collects the set-returning functions of a select list.
type srfState struct {
	calls []SRFCall
}

func constVal(e expr.Expr) expr.Datum {
	if c, ok := e.(*expr.Const); ok {
		return c.Val
	}
	return nil
}

// shiftRefs renumbers references to the count columns numbered from a
// placeholder (window and set-returning function results, whose final
// position is known only once the whole select list is bound).
func shiftRefs(targets []target, from, count, to int) {
	for i := range targets {
		targets[i].e = mapColumnRefs(targets[i].e, func(c *expr.ColumnRef) expr.Expr {
			if c.Index >= from && c.Index < from+count {
				return &expr.ColumnRef{Index: c.Index - from + to, T: c.T, Name: c.Name}
			}
			return c
		})
	}
}

func columnRefNode(name string, loc int32) *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{
		Fields: []*pg_query.Node{pg_query.MakeStrNode(name)}, Location: loc}}}
}

func (b *binder) bindGroupBy(s *pg_query.SelectStmt, items []*pg_query.Node, agg *aggState) error {
	in := &exprCtx{sc: agg.input, what: "GROUP BY"}
	for _, g := range items {
		node := g
		if i, ok := ordinal(g); ok {
			if i < 1 || i > len(s.TargetList) {
				return sqlerr.New(sqlerr.InvalidColumnReference, "GROUP BY position %d is not in select list", i)
			}
			node = s.TargetList[i-1].GetResTarget().Val
		} else if cr := g.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			// An output column name that is not an input column.
			name := cr.Fields[0].GetString_().Sval
			if _, _, _, err := agg.input.resolve("", name, 0); err != nil {
				for _, t := range s.TargetList {
					if rt := t.GetResTarget(); rt.Name == name {
						node = rt.Val
					}
				}
			}
		}
		if node.GetGroupingSet() != nil {
			return sqlerr.New(sqlerr.FeatureNotSupported, "GROUPING SETS, ROLLUP and CUBE are not supported")
		}
		if containsAggregate(node) {
			return sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed in GROUP BY")
		}
		e, err := b.bindExpr(node, in)
		if err != nil {
			return err
		}
		k := exprKey(e)
		dup := false
		for _, gk := range agg.groupKey {
			dup = dup || gk == k
		}
		if !dup {
			agg.groups = append(agg.groups, e)
			agg.groupKey = append(agg.groupKey, k)
		}
	}
	return nil
}

func isStar(cr *pg_query.ColumnRef) bool {
	return len(cr.Fields) > 0 && cr.Fields[len(cr.Fields)-1].GetAStar() != nil
}

func (b *binder) expandStar(cr *pg_query.ColumnRef, ec *exprCtx) ([]target, error) {
	qual := ""
	if len(cr.Fields) > 1 {
		qual = cr.Fields[len(cr.Fields)-2].GetString_().Sval
	}
	var out []target
	for i, c := range ec.sc.cols {
		if (c.Hidden && qual == "") || c.System || c.Field != "" || (qual != "" && c.Table != qual) {
			continue
		}
		c.markRef() // accesses.go
		var e expr.Expr
		if ec.agg != nil {
			ref := &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{
				Fields: []*pg_query.Node{pg_query.MakeStrNode(c.Table), pg_query.MakeStrNode(c.Name)}, Location: cr.Location}}}
			if c.Table == "" {
				ref.GetColumnRef().Fields = ref.GetColumnRef().Fields[1:]
			}
			var err error
			if e, err = b.bindExpr(ref, ec); err != nil {
				return nil, err
			}
		} else {
			e = &expr.ColumnRef{Index: i, T: c.T, Name: c.Name}
		}
		out = append(out, target{e: e, name: c.Name, col: Column{Name: c.Name, T: c.T, TableOID: c.TableOID, AttNum: c.AttNum}})
	}
	if qual != "" && len(out) == 0 && !ec.sc.hasTable(qual) {
		return nil, sqlerr.At(sqlerr.UndefinedTable, int(cr.Location)+1, "missing FROM-clause entry for table \"%s\"", qual)
	}
	if qual == "" && len(ec.sc.cols) == 0 {
		return nil, sqlerr.At(sqlerr.SyntaxError, int(cr.Location)+1, "SELECT * with no tables specified is not valid")
	}
	return out, nil
}

// columnFor describes an output column; a plain column reference keeps its
// table OID and attribute number for RowDescription.
func columnFor(e expr.Expr, name string, sc *scope) Column {
	c := Column{Name: name, T: e.Type()}
	if cr, ok := e.(*expr.ColumnRef); ok && sc != nil && cr.Index < len(sc.cols) && sc.cols[cr.Index].Name == cr.Name {
		c.TableOID, c.AttNum = sc.cols[cr.Index].TableOID, sc.cols[cr.Index].AttNum
	}
	return c
}

// deriveName is PostgreSQL's FigureColname: the column name a target gets
// without AS.
func deriveName(n *pg_query.Node) string {
	name, _ := figureColname(n)
	if name == "" {
		return "?column?"
	}
	return name
}

// figureColname is FigureColnameInternal: a name and its strength. 2 is a
// name taken from a column or function; 1 a fallback (the type of a cast,
// "case") that an enclosing cast or CASE may replace; 0 no name.
func figureColname(n *pg_query.Node) (string, int) {
	switch x := n.GetNode().(type) {
	case *pg_query.Node_ColumnRef:
		f := x.ColumnRef.Fields
		if s := f[len(f)-1].GetString_(); s != nil {
			return s.Sval, 2
		}
	case *pg_query.Node_FuncCall:
		return funcName(x.FuncCall.Funcname), 2
	case *pg_query.Node_AExpr:
		if x.AExpr.Kind == pg_query.A_Expr_Kind_AEXPR_NULLIF {
			return "nullif", 2
		}
	case *pg_query.Node_TypeCast:
		name, strength := figureColname(x.TypeCast.Arg)
		if strength <= 1 && x.TypeCast.TypeName != nil {
			// The type as the grammar names it internally: int4 for
			// integer, bpchar for char(n), char for "char".
			if names := stringList(x.TypeCast.TypeName.Names); len(names) > 0 {
				if names[len(names)-1] == parse.SparkTypeNameFunc {
					return sparkTypeColname(x.TypeCast.TypeName), 1
				}
				return names[len(names)-1], 1
			}
		}
		return name, strength
	case *pg_query.Node_CaseExpr:
		if x.CaseExpr.Defresult != nil {
			if name, strength := figureColname(x.CaseExpr.Defresult); strength > 1 {
				return name, strength
			}
		}
		return "case", 1
	case *pg_query.Node_CoalesceExpr:
		return "coalesce", 2
	case *pg_query.Node_MinMaxExpr:
		if x.MinMaxExpr.Op == pg_query.MinMaxOp_IS_LEAST {
			return "least", 2
		}
		return "greatest", 2
	case *pg_query.Node_SqlvalueFunction:
		return sqlValueName[x.SqlvalueFunction.Op], 2
	case *pg_query.Node_AArrayExpr:
		return "array", 2
	case *pg_query.Node_RowExpr:
		return "row", 2
	case *pg_query.Node_GroupingFunc:
		return "grouping", 2
	case *pg_query.Node_SubLink:
		switch x.SubLink.SubLinkType {
		case pg_query.SubLinkType_EXISTS_SUBLINK:
			return "exists", 2
		case pg_query.SubLinkType_ARRAY_SUBLINK:
			return "array", 2
		case pg_query.SubLinkType_EXPR_SUBLINK:
			// The subquery's own output column name (its resname).
			if sel := x.SubLink.Subselect.GetSelectStmt(); sel != nil && len(sel.TargetList) == 1 {
				rt := sel.TargetList[0].GetResTarget()
				if rt.Name != "" {
					return rt.Name, 2
				}
				return deriveName(rt.Val), 2
			}
		}
	case *pg_query.Node_AIndirection:
		var field string
		for _, ind := range x.AIndirection.Indirection {
			if s := ind.GetString_(); s != nil {
				field = s.Sval
			}
		}
		if field != "" {
			return field, 2
		}
		return figureColname(x.AIndirection.Arg)
	case *pg_query.Node_CollateClause:
		return figureColname(x.CollateClause.Arg)
	}
	return "", 0
}

var sqlValueName = map[pg_query.SQLValueFunctionOp]string{
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:        "current_date",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME:        "current_time",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:      "current_time",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP:   "current_timestamp",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N: "current_timestamp",
	pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME:           "localtime",
	pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:         "localtime",
	pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP:      "localtimestamp",
	pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:    "localtimestamp",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:        "current_role",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER:        "current_user",
	pg_query.SQLValueFunctionOp_SVFOP_USER:                "current_user",
	pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER:        "session_user",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:     "current_catalog",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:      "current_schema",
}

// keySessions gives a session window from SESSION() in FROM (or the WINDOW
// SESSION clause) the aggregation's other GROUP BY keys as its partition:
// sessions are per key, as in ksqlDB and Spark's session_window.
func keySessions(input Node, groups []expr.Expr) {
	var w *WindowAssign
	switch x := input.(type) {
	case *WindowAssign:
		w = x
	case *Filter:
		w, _ = x.Input.(*WindowAssign)
	}
	if w == nil || w.Kind != SessionWindow || len(w.PartitionBy) > 0 {
		return
	}
	n := len(w.Input.Columns())
	for _, g := range groups {
		readsBounds := false
		walkExpr(g, func(e expr.Expr) {
			if c, ok := e.(*expr.ColumnRef); ok && c.Index >= n {
				readsBounds = true
			}
		})
		if !readsBounds {
			w.PartitionBy = append(w.PartitionBy, g)
		}
	}
}
