package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// bindWithinGroup binds an ordered-set aggregate call,
// f(direct...) WITHIN GROUP (ORDER BY x), as PostgreSQL resolves it: the
// function is looked up over the direct arguments' types followed by the
// ordered argument's. The call becomes an AggCall whose Args are the direct
// arguments then the ordered one, and whose OrderBy is the ordered one:
// the aggregation sorts each group's input by it (spilling past work_mem)
// and the accumulator reads the sorted rows.
//
// The direct arguments are evaluated per input row but must use only
// grouped columns (so they are constant within a group, as PostgreSQL
// evaluates them once per group); the accumulator reads a group's first.
func (b *binder) bindWithinGroup(f *pg_query.FuncCall, ec *exprCtx, in *exprCtx) (expr.Expr, error) {
	st := ec.agg
	name := funcName(f.Funcname)
	pos := int(f.Location) + 1
	at := func(err error) error { return sqlerr.PositionIfNone(err, pos) }
	var args []expr.Expr
	for _, a := range f.Args {
		if containsAggregate(a) {
			return nil, sqlerr.At(sqlerr.GroupingError, pos, "aggregate function calls cannot be nested")
		}
		e, err := b.bindExpr(a, in)
		if err != nil {
			return nil, err
		}
		args = append(args, b.floatArrayFraction(e))
	}
	ndirect := len(args)
	var keys []SortKey
	for _, o := range f.AggOrder {
		sb := o.GetSortBy()
		if containsAggregate(sb.Node) {
			return nil, sqlerr.At(sqlerr.GroupingError, pos, "aggregate function calls cannot be nested")
		}
		e, err := b.bindExpr(sb.Node, in)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
		keys = append(keys, sortKey(e, sb))
	}
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	if !expr.IsOrderedSetAggregate(name) {
		if _, err := expr.ResolveAggregate(name, ts); err != nil {
			return nil, at(err)
		}
		return nil, sqlerr.At(sqlerr.WrongObjectType, pos, "%s is not an ordered-set aggregate, so it cannot have WITHIN GROUP", name)
	}
	r, err := expr.ResolveOrderedSetAggregate(name, ts)
	if err != nil {
		return nil, at(err)
	}
	for _, a := range f.Args {
		if !containsSubLink(a) {
			// Binding at the aggregate level checks what PostgreSQL does:
			// only grouped columns in a direct argument.
			if _, err := b.bindExpr(a, ec); err != nil {
				return nil, err
			}
		}
	}
	for i := range args {
		if args[i], err = b.coerce(args[i], r.ArgTypes[i], false, -1); err != nil {
			return nil, err
		}
	}
	for k := range keys {
		keys[k].Expr = args[ndirect+k]
	}
	call := AggCall{Name: name, Agg: r, Args: args, OrderBy: keys}
	if f.AggFilter != nil {
		fe, err := b.bindExpr(f.AggFilter, in)
		if err != nil {
			return nil, err
		}
		if call.Filter, err = b.coerceBool(fe, "FILTER"); err != nil {
			return nil, err
		}
	}
	key := aggCallKey(&call) + " WITHIN GROUP"
	for i, k := range st.aggKey {
		if k == key {
			return &expr.ColumnRef{Index: len(st.groups) + i, T: r.Ret, Name: name}, nil
		}
	}
	st.aggs = append(st.aggs, call)
	st.aggKey = append(st.aggKey, key)
	return &expr.ColumnRef{Index: len(st.groups) + len(st.aggs) - 1, T: r.Ret, Name: name}, nil
}

// overOrderedSet refuses an ordered-set aggregate used as a window
// function, as PostgreSQL does.
func overOrderedSet(f *pg_query.FuncCall) error {
	name := funcName(f.Funcname)
	if !f.AggWithinGroup {
		if expr.IsHypotheticalSetAggregate(name) && len(f.Args) > 0 {
			// rank(v) is the hypothetical-set aggregate, not the window
			// function (which has no arguments).
			return sqlerr.At(sqlerr.WrongObjectType, int(f.Location)+1, "WITHIN GROUP is required for ordered-set aggregate %s", name)
		}
		return nil
	}
	if expr.IsOrderedSetAggregate(name) {
		return sqlerr.At(sqlerr.FeatureNotSupported, int(f.Location)+1, "OVER is not supported for ordered-set aggregate %s", name)
	}
	return sqlerr.At(sqlerr.WrongObjectType, int(f.Location)+1, "%s is not an ordered-set aggregate, so it cannot have WITHIN GROUP", name)
}

// withinGroupOnFunction is the error for WITHIN GROUP on a function that
// is no aggregate: PostgreSQL looks it up over the direct and ordered
// arguments' types together, and finds nothing.
func (b *binder) withinGroupOnFunction(f *pg_query.FuncCall, ec *exprCtx) error {
	var ts []types.T
	for _, a := range f.Args {
		e, err := b.bindExpr(a, ec)
		if err != nil {
			return err
		}
		ts = append(ts, e.Type())
	}
	for _, o := range f.AggOrder {
		e, err := b.bindExpr(o.GetSortBy().Node, ec)
		if err != nil {
			return err
		}
		ts = append(ts, e.Type())
	}
	_, err := expr.ResolveAggregate(funcName(f.Funcname), ts)
	if se, ok := err.(*sqlerr.Error); ok {
		cp := *se
		cp.Position = int(f.Location) + 1
		return &cp
	}
	return sqlerr.At(sqlerr.UndefinedFunction, int(f.Location)+1, "function %s does not exist", funcName(f.Funcname))
}

// floatArrayFraction casts an array of numbers (ARRAY[0.25, 0.5] is
// numeric[]) to float8[], the array forms' fraction type: PostgreSQL's
// implicit numeric-to-float8 cast applies to arrays element by element.
func (b *binder) floatArrayFraction(e expr.Expr) expr.Expr {
	t := e.Type()
	if !t.IsArray() {
		return e
	}
	switch t.Elem().OID {
	case types.OidNumeric, types.OidInt2, types.OidInt4, types.OidInt8, types.OidFloat4:
		if c, err := b.coerce(e, types.ArrayOf(types.Float8), true, -1); err == nil {
			return c
		}
	}
	return e
}

// isAggregateCall reports whether f calls an aggregate (not as a window
// function): rank, dense_rank, percent_rank and cume_dist are aggregates
// only with WITHIN GROUP.
func isAggregateCall(f *pg_query.FuncCall) bool {
	if f.Over != nil {
		return false
	}
	name := funcName(f.Funcname)
	return expr.IsAggregate(name) || f.AggWithinGroup && expr.IsOrderedSetAggregate(name)
}
