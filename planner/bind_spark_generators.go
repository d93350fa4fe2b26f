package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// sparkGeneratorTargets expands Spark's multi-column generators in a
// select list, as Databricks does, into one target per column:
//
//   - posexplode(arr): pos (from 0) and col, one row per element; as two
//     set-returning calls, unnest(_posexplode_positions(arr)) and
//     unnest(arr), which a select list runs in step (the same number of
//     rows, the positions beside their elements);
//   - json_tuple(json, k1, …, kn): c0 … c(n-1), the keys' values as text.
//
// ok is false for any other target.
func (b *binder) sparkGeneratorTargets(rt *pg_query.ResTarget, ec *exprCtx) ([]target, bool, error) {
	fc := rt.Val.GetFuncCall()
	if fc == nil || len(fc.Funcname) != 1 || fc.AggStar || fc.Over != nil {
		return nil, false, nil
	}
	call := func(name string, args ...*pg_query.Node) *pg_query.Node {
		return pg_query.MakeFuncCallNode([]*pg_query.Node{pg_query.MakeStrNode(name)}, args, fc.Location)
	}
	var cols []string
	var exprs []*pg_query.Node
	switch funcName(fc.Funcname) {
	case "posexplode":
		if len(fc.Args) != 1 {
			return nil, true, sqlerr.At(sqlerr.UndefinedFunction, int(fc.Location)+1, "function posexplode with %d arguments does not exist", len(fc.Args))
		}
		cols = []string{"pos", "col"}
		exprs = []*pg_query.Node{call("unnest", call("_posexplode_positions", fc.Args[0])), call("unnest", fc.Args[0])}
	case "json_tuple":
		if len(fc.Args) < 2 {
			return nil, true, sqlerr.At(sqlerr.UndefinedFunction, int(fc.Location)+1, "function json_tuple with %d arguments does not exist", len(fc.Args)).
				WithHint("json_tuple takes a JSON string and one or more keys.")
		}
		for i, k := range fc.Args[1:] {
			cols = append(cols, "c"+itoa(i))
			exprs = append(exprs, call("_json_tuple_field", fc.Args[0], k))
		}
	default:
		return nil, false, nil
	}
	out := make([]target, len(exprs))
	for i, x := range exprs {
		e, err := b.bindExpr(x, ec)
		if err != nil {
			return nil, true, err
		}
		out[i] = target{e: e, name: cols[i], col: Column{Name: cols[i], T: e.Type()}}
	}
	return out, true, nil
}
