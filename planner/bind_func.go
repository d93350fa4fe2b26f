package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// windowOnly are functions that exist only with OVER.
var windowOnly = map[string]bool{
	"row_number": true, "rank": true, "dense_rank": true, "percent_rank": true, "cume_dist": true,
	"ntile": true, "lag": true, "lead": true, "first_value": true, "last_value": true, "nth_value": true,
}

func funcName(names []*pg_query.Node) string {
	s := stringList(names)
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

func (b *binder) bindFuncCall(f *pg_query.FuncCall, ec *exprCtx) (expr.Expr, error) {
	name := funcName(f.Funcname)
	pos := int(f.Location)
	if f.Over != nil {
		if err := overOrderedSet(f); err != nil {
			return nil, err
		}
		if ec.win == nil {
			return nil, sqlerr.At(sqlerr.WindowingError, pos+1, "window functions are not allowed in %s", clause(ec))
		}
		return b.bindWindowCall(f, ec)
	}
	if e, ok, err := b.bindSQLFunctionCall(f, ec); ok { // bind_sql_function.go
		return e, err
	}
	if name == "aclexplode" {
		// It returns records, which weir has no values for; its fields
		// can be selected, as pgAdmin does.
		return nil, sqlerr.At(sqlerr.FeatureNotSupported, pos+1, "aclexplode returns records: select a field, as (aclexplode(acl)).privilege_type, or call it in FROM")
	}
	if name == "explode" || name == "explode_outer" {
		// Databricks' generators in a select list: one row per element,
		// as unnest; for a NULL or empty array explode gives no row and
		// explode_outer one NULL (FROM explode(...): bindSetReturning).
		if len(f.Args) != 1 {
			return nil, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function %s with %d arguments does not exist", name, len(f.Args)).
				WithHint(name + " takes one array.")
		}
		if name == "explode_outer" {
			return b.bindExplodeOuter(f, ec)
		}
		return b.bindSRFCall(f, "unnest", ec)
	}
	if name == "posexplode" || name == "json_tuple" {
		return nil, sqlerr.At(sqlerr.FeatureNotSupported, pos+1, "%s is supported in FROM only", name).
			WithHint("Call it as a table: SELECT ... FROM " + name + "(...) AS t.")
	}
	if setReturning[name] {
		return b.bindSRFCall(f, name, ec)
	}
	if e, ok, err := b.bindTryFunc(name, f, ec); ok { // bind_try.go
		return e, err
	}
	if e, ok, err := b.bindStructFunc(name, f, ec); ok {
		return e, err
	}
	if windowOnly[name] && !f.AggWithinGroup {
		if expr.IsHypotheticalSetAggregate(name) && len(f.Args) > 0 {
			return nil, sqlerr.At(sqlerr.WrongObjectType, pos+1, "WITHIN GROUP is required for ordered-set aggregate %s", name)
		}
		return nil, sqlerr.At(sqlerr.WrongObjectType, pos+1, "window function %s requires an OVER clause", name)
	}
	if f.AggWithinGroup && !isAggregateCall(f) {
		return nil, b.withinGroupOnFunction(f, ec)
	}
	if isAggregateCall(f) {
		if d := aggLevelsUp(f, ec.sc); d > 0 {
			return b.bindOuterAggregate(f, ec, d)
		}
		// Reaching here means aggregates are not allowed in this clause (the
		// aggregate level intercepts them where they are).
		return nil, sqlerr.At(sqlerr.GroupingError, pos+1, "aggregate functions are not allowed in %s", clause(ec))
	}
	args := make([]expr.Expr, len(f.Args))
	for i, a := range f.Args {
		// Named arguments (make_interval(days => 1)) bind positionally by name.
		if na := a.GetNamedArgExpr(); na != nil {
			return b.bindNamedArgs(name, f, ec)
		}
		e, err := b.bindExpr(a, ec)
		if err != nil {
			return nil, err
		}
		args[i] = e
	}
	sparkUnescapePattern(name, f, args)
	if f.FuncVariadic && len(args) > 0 {
		return b.callVariadic(name, args, pos)
	}
	return b.callResolved(name, args, types.T{}, pos)
}

// callVariadic binds f(..., VARIADIC arr): the array's elements are the
// variadic arguments. A NULL array makes the call NULL (concat,
// json_build_array), except for format, which then has no arguments to
// format.
func (b *binder) callVariadic(name string, args []expr.Expr, pos int) (expr.Expr, error) {
	last := args[len(args)-1]
	t := last.Type()
	if t.OID == types.OidUnknown {
		if c, ok := last.(*expr.Const); ok && c.Val == nil {
			t = types.ArrayOf(types.Text)
			last = &expr.Const{T: t}
		}
	}
	if !t.IsArray() {
		return nil, sqlerr.At(sqlerr.DatatypeMismatch, pos+1, "VARIADIC argument must be an array")
	}
	fixed := args[:len(args)-1]
	if name == "format" && len(fixed) == 0 {
		// format(text, VARIADIC "any"): the format string is not variadic.
		return nil, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function format(%s) does not exist", t).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	elem := t.Elem()
	var elems []expr.Expr
	switch x := last.(type) {
	case *expr.ArrayConstructor:
		elems = x.Elems
	case *expr.Const:
		if x.Val == nil {
			if name == "format" {
				return b.callResolved(name, fixed, types.T{}, pos)
			}
			call, err := b.callResolved(name, append(append([]expr.Expr{}, fixed...), &expr.Const{T: elem}), types.T{}, pos)
			if err != nil {
				return nil, err
			}
			return &expr.Const{T: call.Type()}, nil
		}
		vals, ok := x.Val.([]expr.Datum)
		if !ok {
			return nil, notSupported(int32(pos), "VARIADIC with this array")
		}
		for _, v := range vals {
			elems = append(elems, &expr.Const{Val: v, T: elem})
		}
	default:
		return nil, notSupported(int32(pos), "VARIADIC with a non-constant array")
	}
	return b.callResolved(name, append(append([]expr.Expr{}, fixed...), elems...), types.T{}, pos)
}

// namedArgOrder gives the parameter order of functions commonly called with
// named arguments.
var namedArgOrder = map[string][]string{
	"make_interval": {"years", "months", "weeks", "days", "hours", "mins", "secs"},
}

func (b *binder) bindNamedArgs(name string, f *pg_query.FuncCall, ec *exprCtx) (expr.Expr, error) {
	order, ok := namedArgOrder[name]
	if !ok {
		return nil, notSupported(f.Location, "named arguments to "+name)
	}
	args := make([]expr.Expr, len(order))
	for i := range args {
		args[i] = &expr.Const{Val: int64(0), T: types.Int4}
	}
	if name == "make_interval" {
		args[6] = &expr.Const{Val: float64(0), T: types.Float8}
	}
	for i, a := range f.Args {
		pos := i
		node := a
		if na := a.GetNamedArgExpr(); na != nil {
			pos = -1
			for j, n := range order {
				if n == na.Name {
					pos = j
				}
			}
			if pos < 0 {
				return nil, sqlerr.At(sqlerr.UndefinedFunction, int(f.Location)+1, "function %s has no parameter named %s", name, na.Name)
			}
			node = na.Arg
		}
		e, err := b.bindExpr(node, ec)
		if err != nil {
			return nil, err
		}
		args[pos] = e
	}
	return b.callResolved(name, args, types.T{}, int(f.Location))
}

func clause(ec *exprCtx) string {
	if ec.what != "" {
		return ec.what
	}
	return "this context"
}

// aggState collects the grouping and aggregates of one query level.
type aggState struct {
	input    *scope      // the FROM scope aggregates' arguments are bound in
	groups   []expr.Expr // bound over input
	groupKey []string
	aggs     []AggCall
	aggKey   []string
}

// winState collects the window calls of one query level.
type winState struct {
	base  int // number of columns before the window columns
	calls []WindowCall
	named map[string]*pg_query.WindowDef
}

// bindAggregateLevel handles a node in an aggregating query: aggregate
// calls and GROUP BY expressions become columns of the aggregation output;
// other column references are errors. ok=false means "bind normally".
func (b *binder) bindAggregateLevel(n *pg_query.Node, ec *exprCtx) (expr.Expr, bool, error) {
	st := ec.agg
	if f := n.GetFuncCall(); f != nil && isAggregateCall(f) {
		if d := aggLevelsUp(f, ec.sc); d > 0 {
			e, err := b.bindOuterAggregate(f, ec, d)
			return e, true, err
		}
		e, err := b.bindAggCall(f, ec)
		return e, true, err
	}
	if n.GetFuncCall() != nil && n.GetFuncCall().Over != nil {
		return nil, false, nil
	}
	if n.GetSubLink() != nil {
		return nil, false, nil
	}
	// An expression holding a subquery is bound piece by piece, so that
	// the subquery is bound above the aggregation (bindSubLink).
	if !containsAggregate(n) && !containsSubLink(n) {
		in := &exprCtx{sc: st.input, what: ec.what}
		e, err := b.bindExpr(n, in)
		if err == nil {
			k := exprKey(e)
			for i, gk := range st.groupKey {
				if gk == k {
					return &expr.ColumnRef{Index: i, T: st.groups[i].Type(), Name: e.String()}, true, nil
				}
			}
			if !refersToColumns(e) {
				return e, true, nil
			}
		}
		if cr := n.GetColumnRef(); cr != nil {
			if err != nil {
				return nil, true, err
			}
			switch e.(type) {
			case *expr.MakeStruct, *expr.FieldSelect:
				// w.start of a struct column, Spark's bare window: bound
				// piece by piece, each column matched to a GROUP BY key.
				return nil, false, nil
			}
			qual := ""
			fields := stringList(cr.Fields)
			if len(fields) > 1 {
				qual = fields[len(fields)-2] + "."
			}
			return nil, true, sqlerr.At(sqlerr.GroupingError, int(cr.Location)+1,
				"column \"%s%s\" must appear in the GROUP BY clause or be used in an aggregate function", qual, fields[len(fields)-1])
		}
	}
	return nil, false, nil
}

// refersToColumns reports whether e reads any column of its input.
func refersToColumns(e expr.Expr) bool {
	found := false
	walkExpr(e, func(x expr.Expr) {
		if _, ok := x.(*expr.ColumnRef); ok {
			found = true
		}
	})
	return found
}

func (b *binder) bindAggCall(f *pg_query.FuncCall, ec *exprCtx) (expr.Expr, error) {
	st := ec.agg
	name := funcName(f.Funcname)
	in := &exprCtx{sc: st.input, what: "aggregate function calls"}
	if saved := st.input.aggOut; saved != nil {
		// Arguments are evaluated below the aggregation: subqueries in
		// them read the level's input columns.
		st.input.aggOut = nil
		defer func() { st.input.aggOut = saved }()
	}
	if f.AggWithinGroup {
		return b.bindWithinGroup(f, ec, in)
	}
	var args []expr.Expr
	for _, a := range f.Args {
		if containsAggregate(a) {
			return nil, sqlerr.At(sqlerr.GroupingError, int(f.Location)+1, "aggregate function calls cannot be nested")
		}
		e, err := b.bindExpr(a, in)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	if f.AggStar {
		args = nil
	}
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	r, err := expr.ResolveAggregate(name, ts)
	if err != nil {
		if se, ok := err.(*sqlerr.Error); ok {
			cp := *se
			cp.Position = int(f.Location) + 1
			return nil, &cp
		}
		return nil, err
	}
	for i := range args {
		if args[i], err = b.coerce(args[i], r.ArgTypes[i], false, -1); err != nil {
			return nil, err
		}
	}
	call := AggCall{Name: name, Agg: r, Args: args, Distinct: f.AggDistinct}
	if f.AggFilter != nil {
		fe, err := b.bindExpr(f.AggFilter, in)
		if err != nil {
			return nil, err
		}
		if call.Filter, err = b.coerceBool(fe, "FILTER"); err != nil {
			return nil, err
		}
	}
	for _, o := range f.AggOrder {
		sb := o.GetSortBy()
		e, err := b.bindExpr(sb.Node, in)
		if err != nil {
			return nil, err
		}
		call.OrderBy = append(call.OrderBy, sortKey(e, sb))
	}
	key := aggCallKey(&call)
	for i, k := range st.aggKey {
		if k == key {
			return &expr.ColumnRef{Index: len(st.groups) + i, T: r.Ret, Name: name}, nil
		}
	}
	st.aggs = append(st.aggs, call)
	st.aggKey = append(st.aggKey, key)
	return &expr.ColumnRef{Index: len(st.groups) + len(st.aggs) - 1, T: r.Ret, Name: name}, nil
}

func aggCallKey(c *AggCall) string {
	k := c.Name + "("
	if c.Distinct {
		k += "DISTINCT "
	}
	for _, a := range c.Args {
		k += exprKey(a) + ","
	}
	k += ")"
	if c.Filter != nil {
		k += " FILTER " + exprKey(c.Filter)
	}
	for _, o := range c.OrderBy {
		k += " ORDER " + exprKey(o.Expr)
		if o.Desc {
			k += " DESC"
		}
	}
	return k
}

func sortKey(e expr.Expr, sb *pg_query.SortBy) SortKey {
	k := SortKey{Expr: e, Desc: sb.SortbyDir == pg_query.SortByDir_SORTBY_DESC}
	if sb.SortbyDir == pg_query.SortByDir_SORTBY_USING {
		// ORDER BY x USING >: a btree "greater than" sorts descending
		// (orderingOperator checks the operator).
		k.Desc = opName(sb.UseOp) == ">" || opName(sb.UseOp) == "~>~"
	}
	switch sb.SortbyNulls {
	case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
		k.NullsFirst = true
	case pg_query.SortByNulls_SORTBY_NULLS_LAST:
		k.NullsFirst = false
	default:
		k.NullsFirst = k.Desc
	}
	return k
}

// orderingOperator checks ORDER BY ... USING op: only a btree ordering
// operator (< or >) is one.
func orderingOperator(sb *pg_query.SortBy) error {
	if sb.SortbyDir != pg_query.SortByDir_SORTBY_USING {
		return nil
	}
	switch opName(sb.UseOp) {
	case "<", ">", "~<~", "~>~":
		return nil
	}
	return sqlerr.At(sqlerr.WrongObjectType, int(sb.Location)+1, "operator %s is not a valid ordering operator", opName(sb.UseOp)).
		WithHint("Ordering operators must be \"<\" or \">\" members of btree operator families.")
}

func (b *binder) bindWindowCall(f *pg_query.FuncCall, ec *exprCtx) (expr.Expr, error) {
	ws := ec.win
	name := funcName(f.Funcname)
	def := f.Over
	if def.Refname != "" || (def.Name != "" && def.PartitionClause == nil && def.OrderClause == nil) {
		ref := def.Refname
		if ref == "" {
			ref = def.Name
		}
		nd, ok := ws.named[ref]
		if !ok {
			return nil, sqlerr.At(sqlerr.UndefinedObject, int(f.Location)+1, "window \"%s\" does not exist", ref)
		}
		merged := &pg_query.WindowDef{PartitionClause: nd.PartitionClause, OrderClause: nd.OrderClause,
			FrameOptions: nd.FrameOptions, StartOffset: nd.StartOffset, EndOffset: nd.EndOffset}
		if def.OrderClause != nil {
			merged.OrderClause = def.OrderClause
		}
		if def.FrameOptions != 0 && def.FrameOptions&1 != 0 {
			merged.FrameOptions, merged.StartOffset, merged.EndOffset = def.FrameOptions, def.StartOffset, def.EndOffset
		}
		def = merged
	}
	// Arguments and window clauses see the same columns as the target list
	// minus window results: an aggregating query's output, or the FROM scope.
	inner := &exprCtx{sc: ec.sc, agg: ec.agg, what: "window function calls"}
	call := WindowCall{Name: name}
	for _, a := range f.Args {
		e, err := b.bindExpr(a, inner)
		if err != nil {
			return nil, err
		}
		call.Args = append(call.Args, e)
	}
	for _, p := range def.PartitionClause {
		e, err := b.bindExpr(p, inner)
		if err != nil {
			return nil, err
		}
		call.PartitionBy = append(call.PartitionBy, e)
	}
	for _, o := range def.OrderClause {
		sb := o.GetSortBy()
		e, err := b.bindExpr(sb.Node, inner)
		if err != nil {
			return nil, err
		}
		call.OrderBy = append(call.OrderBy, sortKey(e, sb))
	}
	frame, err := b.bindFrame(def, inner)
	if err != nil {
		return nil, err
	}
	call.Frame = frame
	ts := make([]types.T, len(call.Args))
	for i, a := range call.Args {
		ts[i] = a.Type()
	}
	switch {
	case expr.IsAggregate(name):
		if f.AggStar {
			call.Args, ts = nil, nil
		}
		r, err := expr.ResolveAggregate(name, ts)
		if err != nil {
			return nil, err
		}
		for i := range call.Args {
			if call.Args[i], err = b.coerce(call.Args[i], r.ArgTypes[i], false, -1); err != nil {
				return nil, err
			}
		}
		call.Agg, call.T = r, r.Ret
	case name == "row_number" || name == "rank" || name == "dense_rank":
		call.T = types.Int8
	case name == "ntile":
		call.T = types.Int4
		if len(call.Args) == 1 {
			if call.Args[0], err = b.coerce(call.Args[0], types.Int4, false, -1); err != nil {
				return nil, err
			}
		}
	case name == "percent_rank" || name == "cume_dist":
		call.T = types.Float8
	case name == "lag" || name == "lead" || name == "first_value" || name == "last_value" || name == "nth_value":
		if len(call.Args) == 0 {
			return nil, sqlerr.At(sqlerr.UndefinedFunction, int(f.Location)+1, "function %s() does not exist", name)
		}
		call.T = call.Args[0].Type()
		if (name == "lag" || name == "lead") && len(call.Args) == 3 {
			// lag(anycompatible, int, anycompatible): the value and the
			// default unify, so lag(int, 1, 0.5) is numeric.
			a, d := call.Args[0].Type(), call.Args[2].Type()
			switch {
			case a.OID == types.OidUnknown && d.OID == types.OidUnknown:
				call.T = types.Text
			case a.OID == types.OidUnknown:
				call.T = d
			case d.OID != types.OidUnknown:
				if call.T, err = expr.CommonType([]types.T{a, d}); err != nil {
					return nil, err
				}
			}
			if call.Args[0], err = b.coerce(call.Args[0], call.T, false, -1); err != nil {
				return nil, err
			}
		}
		if call.T.OID == types.OidUnknown {
			return nil, sqlerr.At(sqlerr.DatatypeMismatch, int(f.Location)+1, "could not determine polymorphic type because input has type unknown")
		}
		for i := 1; i < len(call.Args); i++ {
			want := types.Int4
			if i == 2 {
				want = call.T
			}
			if call.Args[i], err = b.coerce(call.Args[i], want, false, -1); err != nil {
				return nil, err
			}
		}
	default:
		return nil, sqlerr.At(sqlerr.WrongObjectType, int(f.Location)+1, "function %s is not a window function", name)
	}
	ws.calls = append(ws.calls, call)
	return &expr.ColumnRef{Index: ws.base + len(ws.calls) - 1, T: call.T, Name: name}, nil
}

const (
	frameRange           = 0x2
	frameRows            = 0x4
	frameStartUnbPrec    = 0x20
	frameEndUnbFoll      = 0x100
	frameStartCurrent    = 0x200
	frameEndCurrent      = 0x400
	frameStartOffsetPrec = 0x800
	frameEndOffsetPrec   = 0x1000
	frameStartOffsetFoll = 0x2000
	frameEndOffsetFoll   = 0x4000
	frameExcludeCurrent  = 0x8000
	frameExcludeGroup    = 0x10000
	frameExcludeTies     = 0x20000
	frameNonDefault      = 0x1
)

func (b *binder) bindFrame(def *pg_query.WindowDef, ec *exprCtx) (Frame, error) {
	fo := def.FrameOptions
	f := Frame{Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: CurrentRow}}
	if fo&frameNonDefault == 0 {
		return f, nil
	}
	f.Rows = fo&frameRows != 0
	bound := func(kind FrameBoundKind, n *pg_query.Node) (FrameBound, error) {
		fb := FrameBound{Kind: kind}
		if n != nil {
			e, err := b.bindExpr(n, ec)
			if err != nil {
				return fb, err
			}
			if err := frameOffsetVarFree(e, fo, n); err != nil {
				return fb, err
			}
			if f.Rows {
				if e, err = b.coerce(e, types.Int8, false, -1); err != nil {
					return fb, err
				}
			}
			fb.Offset = e
		}
		return fb, nil
	}
	var err error
	switch {
	case fo&frameStartUnbPrec != 0:
		f.Start = FrameBound{Kind: UnboundedPreceding}
	case fo&frameStartCurrent != 0:
		f.Start = FrameBound{Kind: CurrentRow}
	case fo&frameStartOffsetPrec != 0:
		f.Start, err = bound(OffsetPreceding, def.StartOffset)
	case fo&frameStartOffsetFoll != 0:
		f.Start, err = bound(OffsetFollowing, def.StartOffset)
	}
	if err != nil {
		return f, err
	}
	switch {
	case fo&frameEndUnbFoll != 0:
		f.End = FrameBound{Kind: UnboundedFollowing}
	case fo&frameEndCurrent != 0:
		f.End = FrameBound{Kind: CurrentRow}
	case fo&frameEndOffsetPrec != 0:
		f.End, err = bound(OffsetPreceding, def.EndOffset)
	case fo&frameEndOffsetFoll != 0:
		f.End, err = bound(OffsetFollowing, def.EndOffset)
	}
	switch {
	case fo&frameExcludeCurrent != 0:
		f.Exclude = ExcludeCurrentRow
	case fo&frameExcludeGroup != 0:
		f.Exclude = ExcludeGroup
	case fo&frameExcludeTies != 0:
		f.Exclude = ExcludeTies
	}
	return f, err
}

// bindSRFCall binds a set-returning function in a select list as a column
// of the ProjectSet below the projection.
func (b *binder) bindSRFCall(f *pg_query.FuncCall, name string, ec *exprCtx) (expr.Expr, error) {
	if ec.srf == nil {
		return nil, sqlerr.At(sqlerr.FeatureNotSupported, int(f.Location)+1, "set-returning functions are not allowed in %s", clause(ec))
	}
	inner := &exprCtx{sc: ec.sc, agg: ec.agg, what: "arguments of set-returning functions"}
	var args []expr.Expr
	for _, a := range f.Args {
		e, err := b.bindExpr(a, inner)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	fs, err := b.bindSetReturning(name, args, int(f.Location))
	if err != nil {
		return nil, err
	}
	idx := ec.srf.width()
	ec.srf.calls = append(ec.srf.calls, SRFCall{Func: fs.Func, Args: fs.Args, T: fs.Cols[0].T})
	return &expr.ColumnRef{Index: srfPlaceholder + idx, T: fs.Cols[0].T, Name: name}, nil
}

// bindExplodeOuter binds explode_outer(array) in a select list: unnest
// of the array, or of one NULL for a NULL or empty array.
func (b *binder) bindExplodeOuter(f *pg_query.FuncCall, ec *exprCtx) (expr.Expr, error) {
	if ec.srf == nil {
		return nil, sqlerr.At(sqlerr.FeatureNotSupported, int(f.Location)+1, "set-returning functions are not allowed in %s", clause(ec))
	}
	inner := &exprCtx{sc: ec.sc, agg: ec.agg, what: "arguments of set-returning functions"}
	arg, err := b.bindExpr(f.Args[0], inner)
	if err != nil {
		return nil, err
	}
	if arg.Type().IsArray() {
		if arg, err = b.callResolved("_explode_outer_array", []expr.Expr{arg}, types.T{}, int(f.Location)); err != nil {
			return nil, err
		}
	}
	fs, err := b.bindSetReturning("unnest", []expr.Expr{arg}, int(f.Location))
	if err != nil {
		return nil, err
	}
	idx := ec.srf.width()
	ec.srf.calls = append(ec.srf.calls, SRFCall{Func: fs.Func, Args: fs.Args, T: fs.Cols[0].T})
	return &expr.ColumnRef{Index: srfPlaceholder + idx, T: fs.Cols[0].T, Name: "explode_outer"}, nil
}

// width is the number of columns the calls so far produce.
func (s *srfState) width() int {
	n := 0
	for _, c := range s.calls {
		n++
		if c.Ordinality {
			n++
		}
	}
	return n
}

// bindExpandArray binds information_schema._pg_expandarray(arr), which
// pgjdbc calls for primary keys: a set of records (x = element, n = its
// position), carried as two columns.
func (b *binder) bindExpandArray(f *pg_query.FuncCall, ec *exprCtx) ([]expr.Expr, error) {
	if ec.srf == nil || len(f.Args) != 1 {
		return nil, sqlerr.At(sqlerr.FeatureNotSupported, int(f.Location)+1, "_pg_expandarray is supported only in a select list")
	}
	inner := &exprCtx{sc: ec.sc, agg: ec.agg, what: "arguments of set-returning functions"}
	arg, err := b.bindExpr(f.Args[0], inner)
	if err != nil {
		return nil, err
	}
	if t := arg.Type().OID; t == types.OidInt2Vector || t == types.OidOidVector {
		elem := types.Int2
		if t == types.OidOidVector {
			elem = types.Oid
		}
		if arg, err = b.coerce(arg, types.ArrayOf(elem), true, -1); err != nil {
			return nil, err
		}
	}
	if !arg.Type().IsArray() {
		return nil, sqlerr.At(sqlerr.UndefinedFunction, int(f.Location)+1, "function _pg_expandarray(%s) does not exist", arg.Type())
	}
	idx := ec.srf.width()
	elem := arg.Type().Elem()
	ec.srf.calls = append(ec.srf.calls, SRFCall{Func: "unnest", Args: []expr.Expr{arg}, T: elem, Ordinality: true})
	return []expr.Expr{
		&expr.ColumnRef{Index: srfPlaceholder + idx, T: elem, Name: "x"},
		&expr.ColumnRef{Index: srfPlaceholder + idx + 1, T: types.Int4, Name: "n"},
	}, nil
}

// bindACLExplodeField binds (aclexplode(acl)).field in a select list: a
// set-returning call that yields that one field of aclexplode's records.
// Several fields of calls over the same ACL run in step, as PostgreSQL's.
func (b *binder) bindACLExplodeField(f *pg_query.FuncCall, field string, ec *exprCtx) (expr.Expr, error) {
	if ec.srf == nil {
		return nil, sqlerr.At(sqlerr.FeatureNotSupported, int(f.Location)+1, "set-returning functions are not allowed in %s", clause(ec))
	}
	inner := &exprCtx{sc: ec.sc, agg: ec.agg, what: "arguments of set-returning functions"}
	var args []expr.Expr
	for _, a := range f.Args {
		e, err := b.bindExpr(a, inner)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	fs, err := b.bindSetReturning("aclexplode", args, int(f.Location))
	if err != nil {
		return nil, err
	}
	for _, c := range fs.Cols {
		if c.Name == field {
			idx := ec.srf.width()
			ec.srf.calls = append(ec.srf.calls, SRFCall{Func: fs.Func, Args: fs.Args, T: c.T, Field: field})
			return &expr.ColumnRef{Index: srfPlaceholder + idx, T: c.T, Name: field}, nil
		}
	}
	// PostgreSQL points at the parenthesis before the call.
	return nil, sqlerr.At(sqlerr.UndefinedColumn, int(f.Location), "could not identify column \"%s\" in record data type", field)
}
