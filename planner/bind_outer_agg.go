package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// An aggregate belongs to the query level of the lowest-level columns its
// arguments reference (PostgreSQL's agglevelsup): in
// SELECT (SELECT max(x)) FROM o, max(x) is o's aggregate, so o aggregates
// (one row) and the subquery reads the result as an outer reference. An
// aggregate whose arguments reference no column belongs where it is written.
//
// A level learns that it aggregates only when a nested subquery is bound;
// the subquery then marks the level (scope.wantsAgg) and fails, and the
// level is bound again as an aggregating query.

// aggLevelsUp returns how many query levels above sc the aggregate call f
// belongs to.
func aggLevelsUp(f *pg_query.FuncCall, sc *scope) int {
	if sc == nil {
		return 0
	}
	lowest := -1
	visit := func(n *pg_query.Node) {
		if n == nil {
			return
		}
		walkParse(n.ProtoReflect(), func(m protoreflect.Message) bool {
			switch v := m.Interface().(type) {
			case *pg_query.SubLink, *pg_query.SelectStmt:
				return false
			case *pg_query.ColumnRef:
				qual, name := splitColumnRef(stringList(v.Fields))
				if name == "" {
					return false
				}
				if _, _, depth, err := sc.resolve(qual, name, 0); err == nil && (lowest < 0 || depth < lowest) {
					lowest = depth
				}
				return false
			}
			return true
		})
	}
	for _, a := range f.Args {
		visit(a)
	}
	visit(f.AggFilter)
	for _, o := range f.AggOrder {
		visit(o)
	}
	if lowest < 0 {
		return 0
	}
	return lowest
}

// containsLocalAggregate is containsAggregate counting only the aggregates
// that belong to sc's level.
func containsLocalAggregate(n *pg_query.Node, sc *scope) bool {
	found := false
	walkParse(n.ProtoReflect(), func(m protoreflect.Message) bool {
		switch v := m.Interface().(type) {
		case *pg_query.SubLink, *pg_query.SelectStmt:
			return false
		case *pg_query.FuncCall:
			if isAggregateCall(v) && aggLevelsUp(v, sc) == 0 {
				found = true
				return false
			}
		}
		return !found
	})
	return found
}

// bindOuterAggregate binds an aggregate that belongs depth levels up, as
// an outer reference to that level's aggregate output.
func (b *binder) bindOuterAggregate(f *pg_query.FuncCall, ec *exprCtx, depth int) (expr.Expr, error) {
	target := ec.sc
	for i := 0; i < depth && target != nil; i++ {
		target = target.parent
	}
	if target == nil {
		return nil, sqlerr.At(sqlerr.GroupingError, int(f.Location)+1, "aggregate functions are not allowed in %s", clause(ec))
	}
	st := target.aggOut
	if st == nil {
		what := clause(ec)
		if target.clause != "" {
			what = target.clause
		} else {
			target.wantsAgg = true
		}
		return nil, sqlerr.At(sqlerr.GroupingError, int(f.Location)+1, "aggregate functions are not allowed in %s", what)
	}
	e, err := b.bindAggCall(f, &exprCtx{sc: target, agg: st})
	if err != nil {
		return nil, err
	}
	cr, ok := e.(*expr.ColumnRef)
	if !ok {
		return e, nil
	}
	b.outerRefs++
	return &expr.OuterRef{Depth: depth, Index: cr.Index, T: cr.T, Name: cr.Name}, nil
}

// outerColumn is the reference a subquery makes to column idx of the
// query depth levels up. Above that level's aggregation the column is read
// from the aggregate output, so it must be a GROUP BY key there.
func outerColumn(sc *scope, depth, idx int, col scopeCol, name string, pos int) (expr.Expr, error) {
	target := sc
	for i := 0; i < depth && target != nil; i++ {
		target = target.parent
	}
	if target != nil && target.aggOut != nil {
		for i, g := range target.aggOut.groups {
			if cr, ok := g.(*expr.ColumnRef); ok && cr.Index == idx {
				return &expr.OuterRef{Depth: depth, Index: i, T: col.T, Name: name}, nil
			}
		}
		qual := col.Table
		if qual != "" {
			qual += "."
		}
		return nil, sqlerr.At(sqlerr.GroupingError, pos, "subquery uses ungrouped column \"%s%s\" from outer query", qual, col.Name)
	}
	return &expr.OuterRef{Depth: depth, Index: idx, T: col.T, Name: name}, nil
}
