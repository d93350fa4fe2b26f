package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Spark's window(...) and session_window(...) as values: the struct
// {start, end} of the window a row was grouped into. GROUP BY window(...)
// is bound as the window_start / window_end grouping columns of a
// WindowAssign (bindSparkWindow); in the select list (and ORDER BY,
// HAVING) the call, or the bare name window / session_window as Spark
// writes it, is that pair of columns as one struct.

// hasSparkWindow tells whether the scope sees the bounds of a window
// GROUP BY assigned.
func hasSparkWindow(sc *scope) bool {
	if sc == nil {
		return false
	}
	_, _, d1, err1 := sc.resolve("", "window_start", 0)
	_, _, d2, err2 := sc.resolve("", "window_end", 0)
	return err1 == nil && err2 == nil && d1 == 0 && d2 == 0
}

// sparkWindowStruct binds the {start, end} struct over window_start and
// window_end; above the aggregation they are its grouping columns.
func (b *binder) sparkWindowStruct(loc int32, ec *exprCtx) (expr.Expr, error) {
	start, err := b.bindExpr(columnRefNode("window_start", loc), ec)
	if err != nil {
		return nil, err
	}
	end, err := b.bindExpr(columnRefNode("window_end", loc), ec)
	if err != nil {
		return nil, err
	}
	return b.makeStruct([]string{"start", "end"}, []expr.Expr{start, end})
}

// bindSparkWindowCall is window(...) / session_window(...) outside GROUP BY.
func (b *binder) bindSparkWindowCall(name string, f *pg_query.FuncCall, ec *exprCtx) (expr.Expr, error) {
	if !hasSparkWindow(ec.sc) {
		return nil, sqlerr.At(sqlerr.GroupingError, int(f.Location)+1,
			"%s() in the select list needs the same %s() in GROUP BY", name, name).
			WithHint("Group by the window: GROUP BY " + name + "(ts, '10 seconds'), or by its alias.")
	}
	if g, ok := b.sparkWindows[ec.sc]; ok && !sameCall(g, f) {
		return nil, sqlerr.At(sqlerr.GroupingError, int(f.Location)+1,
			"%s() in the select list must be the %s() of GROUP BY", name, funcName(g.Funcname)).
			WithHint("Write the same call as in GROUP BY, or its alias.")
	}
	return b.sparkWindowStruct(f.Location, ec)
}

func (b *binder) noteSparkWindow(sc *scope, fc *pg_query.FuncCall) {
	if b.sparkWindows == nil {
		b.sparkWindows = map[*scope]*pg_query.FuncCall{}
	}
	b.sparkWindows[sc] = fc
}

// sameCall tells whether two calls are written alike, positions aside.
func sameCall(a, b *pg_query.FuncCall) bool {
	ca, cb := proto.Clone(a), proto.Clone(b)
	clearLocations(ca.ProtoReflect())
	clearLocations(cb.ProtoReflect())
	return proto.Equal(ca, cb)
}

func clearLocations(m protoreflect.Message) {
	walkParse(m, func(m protoreflect.Message) bool {
		if fd := m.Descriptor().Fields().ByName("location"); fd != nil {
			m.Clear(fd)
		}
		return true
	})
}

// sparkWindowColumn resolves the column names Spark gives a window:
// window and session_window for the struct, and window.start / window.end
// (which the parser spells window_start / window_end) of a column named
// window that a subquery returned. ok is false for other names.
func (b *binder) sparkWindowColumn(qual, name string, c *pg_query.ColumnRef, ec *exprCtx) (expr.Expr, bool, error) {
	if ec.sc == nil {
		return nil, false, nil
	}
	if qual == "session_window" && (name == "start" || name == "end") {
		qual, name = "", "window_"+name
		if hasSparkWindow(ec.sc) {
			e, err := b.bindExpr(columnRefNode(name, c.Location), ec)
			return e, true, err
		}
	}
	if qual != "" {
		return nil, false, nil
	}
	switch name {
	case "window", "session_window":
		if !hasSparkWindow(ec.sc) {
			return nil, false, nil
		}
		e, err := b.sparkWindowStruct(c.Location, ec)
		return e, true, err
	case "window_start", "window_end":
		field := name[len("window_"):]
		for _, w := range []string{"window", "session_window"} {
			fields := []string{w, field}
			if e, ok, err := b.structColumnRef(fields, c, ec); ok {
				return e, true, err
			}
		}
	}
	return nil, false, nil
}

// sparkWindowGroupIn is sparkWindowGroup that also finds the window by
// its select-list alias (GROUP BY w) or position (GROUP BY 1), when the
// name is not an input column, as PostgreSQL resolves GROUP BY names.
func sparkWindowGroupIn(groups, targets []*pg_query.Node, sc *scope) (int, *pg_query.FuncCall) {
	if i, fc := sparkWindowGroup(groups); fc != nil {
		return i, fc
	}
	isWindow := func(n *pg_query.Node) *pg_query.FuncCall {
		if fc := n.GetFuncCall(); fc != nil {
			if _, f := sparkWindowGroup([]*pg_query.Node{n}); f != nil {
				return fc
			}
		}
		return nil
	}
	for i, g := range groups {
		if k, ok := ordinal(g); ok {
			if k >= 1 && k <= len(targets) {
				if fc := isWindow(targets[k-1].GetResTarget().Val); fc != nil {
					return i, fc
				}
			}
			continue
		}
		cr := g.GetColumnRef()
		if cr == nil || len(cr.Fields) != 1 || cr.Fields[0].GetString_() == nil {
			continue
		}
		name := cr.Fields[0].GetString_().Sval
		if _, _, _, err := sc.resolve("", name, 0); err == nil {
			continue
		}
		for _, t := range targets {
			if rt := t.GetResTarget(); rt != nil && rt.Name == name {
				if fc := isWindow(rt.Val); fc != nil {
					return i, fc
				}
			}
		}
	}
	return -1, nil
}
