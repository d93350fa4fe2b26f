package planner

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/weir-sql/weir/sql/expr"
)

// containsAggregate reports whether a parse tree has an aggregate call at
// this query level (not inside a subquery, not a window call).
func containsAggregate(n *pg_query.Node) bool {
	found := false
	walkParse(n.ProtoReflect(), func(m protoreflect.Message) bool {
		switch v := m.Interface().(type) {
		case *pg_query.SubLink, *pg_query.SelectStmt:
			return false
		case *pg_query.FuncCall:
			if isAggregateCall(v) {
				found = true
				return false
			}
		}
		return !found
	})
	return found
}

// walkParse visits every message of a parse tree depth-first; visit returns
// false to skip a message's children.
func walkParse(m protoreflect.Message, visit func(protoreflect.Message) bool) {
	if !m.IsValid() || !visit(m) {
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walkParse(l.Get(i).Message(), visit)
			}
		case fd.Message() != nil && !fd.IsMap():
			walkParse(v.Message(), visit)
		}
		return true
	})
}

// walkExpr visits every node of a bound expression.
func walkExpr(e expr.Expr, visit func(expr.Expr)) {
	if e == nil {
		return
	}
	visit(e)
	for _, c := range exprChildren(e) {
		walkExpr(c, visit)
	}
}

func exprChildren(e expr.Expr) []expr.Expr {
	switch x := e.(type) {
	case *expr.FuncCall:
		return x.Args
	case *expr.Cast:
		return []expr.Expr{x.Arg}
	case *expr.BoolOp:
		return x.Args
	case *expr.Not:
		return []expr.Expr{x.Arg}
	case *expr.IsNull:
		return []expr.Expr{x.Arg}
	case *expr.BoolTest:
		return []expr.Expr{x.Arg}
	case *expr.Case:
		out := append(append([]expr.Expr{}, x.Whens...), x.Thens...)
		if x.Else != nil {
			out = append(out, x.Else)
		}
		return out
	case *expr.InList:
		return append([]expr.Expr{x.Arg}, x.List...)
	case *expr.Coalesce:
		return x.Args
	case *expr.DistinctFrom:
		return []expr.Expr{x.Left, x.Right}
	case *expr.ArrayCompare:
		return []expr.Expr{x.Left, x.Array}
	case *expr.ArrayConstructor:
		return x.Elems
	case *expr.ArraySubscript:
		return []expr.Expr{x.Array, x.Index}
	case *expr.MakeStruct:
		return x.Fields
	case *expr.FieldSelect:
		return []expr.Expr{x.Arg}
	case *expr.Subquery:
		if x.Left != nil {
			return []expr.Expr{x.Left}
		}
	}
	return nil
}

// exprKey is a structural identity of a bound expression, used to match
// GROUP BY expressions and repeated aggregates.
func exprKey(e expr.Expr) string {
	var sb strings.Builder
	writeKey(&sb, e)
	return sb.String()
}

func writeKey(sb *strings.Builder, e expr.Expr) {
	switch x := e.(type) {
	case *expr.ColumnRef:
		fmt.Fprintf(sb, "$col%d", x.Index)
		return
	case *expr.OuterRef:
		fmt.Fprintf(sb, "$outer%d.%d", x.Depth, x.Index)
		return
	case *expr.Const:
		fmt.Fprintf(sb, "%v::%d", x.Val, x.T.OID)
		return
	case *expr.Param:
		fmt.Fprintf(sb, "$%d", x.Index)
		return
	case *expr.Subquery:
		fmt.Fprintf(sb, "subquery%p", x)
		return
	}
	fmt.Fprintf(sb, "%T{", e)
	switch x := e.(type) {
	case *expr.FuncCall:
		sb.WriteString(x.Name)
	case *expr.Cast:
		fmt.Fprintf(sb, "%d/%d", x.T.OID, x.T.Typmod)
	case *expr.BoolOp:
		fmt.Fprintf(sb, "%v", x.And)
	case *expr.IsNull:
		fmt.Fprintf(sb, "%v", x.Negate)
	case *expr.BoolTest:
		fmt.Fprintf(sb, "%d%v", x.Want, x.Negate)
	case *expr.InList:
		fmt.Fprintf(sb, "%v", x.Negate)
	case *expr.DistinctFrom:
		fmt.Fprintf(sb, "%v", x.Negate)
	case *expr.ArrayCompare:
		fmt.Fprintf(sb, "%s%v", x.Op, x.All)
	case *expr.MakeStruct:
		fmt.Fprintf(sb, "%d/%d", x.T.OID, x.T.Typmod)
	case *expr.FieldSelect:
		fmt.Fprintf(sb, "%d", x.Index)
	}
	for _, c := range exprChildren(e) {
		sb.WriteString(",")
		writeKey(sb, c)
	}
	sb.WriteString("}")
}
