package planner

import (
	"github.com/apache/arrow-go/v18/arrow"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Event-time windows have one internal form, the WindowAssign node, reached
// from every spelling of dialect.md: the TUMBLE / HOP / SESSION table
// functions in FROM (the WINDOW clause is rewritten into them by the
// streaming front end) and Spark's window() / session_window() in GROUP BY.

var windowFunctions = map[string]WindowKind{"tumble": TumblingWindow, "hop": HoppingWindow, "session": SessionWindow}

// bindWindowFunction binds TUMBLE(rel, time, size), HOP(rel, time, slide,
// size) or SESSION(rel, time, gap) in FROM.
func (b *binder) bindWindowFunction(rf *pg_query.RangeFunction, fc *pg_query.FuncCall, kind WindowKind, parent *scope) (Node, *scope, error) {
	name := funcName(fc.Funcname)
	pos := int(fc.Location) + 1
	want := map[WindowKind]int{TumblingWindow: 3, HoppingWindow: 4, SessionWindow: 3}[kind]
	if len(fc.Args) != want {
		return nil, nil, sqlerr.At(sqlerr.UndefinedFunction, pos, "%s takes %d arguments: the input relation, its event-time column and the window %s", name, want, map[WindowKind]string{TumblingWindow: "size", HoppingWindow: "slide and size", SessionWindow: "gap"}[kind])
	}
	var input Node
	var sc *scope
	alias := ""
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
	}
	switch {
	case fc.Args[0].GetColumnRef() != nil:
		relRef := fc.Args[0].GetColumnRef()
		relNames := stringList(relRef.Fields)
		rv := &pg_query.RangeVar{Relname: relNames[len(relNames)-1], Location: relRef.Location, Inh: true}
		if len(relNames) > 1 {
			rv.Schemaname = relNames[len(relNames)-2]
		}
		if alias == "" {
			alias = rv.Relname
		}
		rv.Alias = &pg_query.Alias{Aliasname: alias}
		var err error
		if input, sc, err = b.bindRangeVar(rv, parent); err != nil {
			return nil, nil, err
		}
	case fc.Args[0].GetSubLink() != nil && fc.Args[0].GetSubLink().SubLinkType == pg_query.SubLinkType_EXPR_SUBLINK:
		// A derived input: TUMBLE((SELECT *, f(x) AS ts FROM t), ts, ...),
		// which the streaming front end writes for WATERMARK f(x) AS ts.
		plan, err := b.bindSelectNode(fc.Args[0].GetSubLink().Subselect, parent)
		if err != nil {
			return nil, nil, err
		}
		input, sc = plan, scopeOf(plan.Columns(), alias, nil, parent)
	case fc.Args[0].GetFuncCall() != nil && IsFilesFunction(funcName(fc.Args[0].GetFuncCall().Funcname)):
		// TUMBLE(read_files(...), ts, size): the files there now.
		inner := &pg_query.RangeFunction{}
		if alias != "" {
			inner.Alias = &pg_query.Alias{Aliasname: alias}
		}
		var err error
		if input, sc, err = b.bindReadFiles(inner, fc.Args[0].GetFuncCall(), parent); err != nil { // bind_read_files.go
			return nil, nil, err
		}
	default:
		return nil, nil, sqlerr.At(sqlerr.SyntaxError, pos, "the first argument of %s must name a table or be a subquery", name)
	}
	ec := &exprCtx{sc: sc, what: "window functions in FROM"}
	timeExpr, err := b.bindExpr(fc.Args[1], ec)
	if err != nil {
		return nil, nil, err
	}
	if err := checkEventTime(timeExpr, name, int(fc.Location)); err != nil {
		return nil, nil, err
	}
	var durs []int64
	for _, a := range fc.Args[2:] {
		d, err := b.constInterval(a, ec, name)
		if err != nil {
			return nil, nil, err
		}
		durs = append(durs, d)
	}
	w := &WindowAssign{Input: input, Kind: kind, Time: timeExpr}
	switch kind {
	case TumblingWindow:
		w.Size = durs[0]
	case HoppingWindow:
		w.Slide, w.Size = durs[0], durs[1]
	case SessionWindow:
		w.Gap = durs[0]
	}
	if err := validateWindow(w, pos); err != nil {
		return nil, nil, err
	}
	w.Cols = append(append([]Column{}, input.Columns()...),
		Column{Name: "window_start", T: timeExpr.Type()}, Column{Name: "window_end", T: timeExpr.Type()})
	out := &scope{parent: parent, cols: append([]scopeCol{}, sc.cols...)}
	out.cols = append(out.cols,
		scopeCol{Table: alias, Name: "window_start", T: timeExpr.Type()},
		scopeCol{Table: alias, Name: "window_end", T: timeExpr.Type()})
	return w, out, nil
}

func checkEventTime(e expr.Expr, what string, loc int) error {
	switch e.Type().OID {
	case types.OidTimestamp, types.OidTimestampTZ:
		return nil
	}
	return sqlerr.At(sqlerr.DatatypeMismatch, loc+1, "the event time of %s must be a timestamp or timestamptz, not %s", what, e.Type())
}

// constInterval evaluates a constant interval argument (an interval literal
// or a string like '5 minutes') to microseconds.
func (b *binder) constInterval(n *pg_query.Node, ec *exprCtx, what string) (int64, error) {
	e, err := b.bindExpr(n, ec)
	if err != nil {
		return 0, err
	}
	if e, err = b.coerce(e, types.Interval, true, -1); err != nil {
		return 0, err
	}
	c, ok := e.(*expr.Const)
	if !ok || c.Val == nil {
		return 0, sqlerr.New(sqlerr.InvalidParameterValue, "the window sizes of %s must be constant intervals", what)
	}
	iv := c.Val.(arrow.MonthDayNanoInterval)
	if iv.Months != 0 {
		return 0, sqlerr.New(sqlerr.InvalidParameterValue, "window sizes in months are not supported (months vary in length); use days")
	}
	return int64(iv.Days)*types.MicrosPerDay + iv.Nanoseconds/1000, nil
}

func validateWindow(w *WindowAssign, pos int) error {
	switch w.Kind {
	case TumblingWindow:
		if w.Size <= 0 {
			return sqlerr.At(sqlerr.InvalidParameterValue, pos, "window size must be positive")
		}
	case HoppingWindow:
		if w.Size <= 0 || w.Slide <= 0 {
			return sqlerr.At(sqlerr.InvalidParameterValue, pos, "window size and slide must be positive")
		}
		if w.Slide > w.Size {
			return sqlerr.At(sqlerr.InvalidParameterValue, pos, "window slide must not exceed the window size")
		}
		if w.Size%w.Slide != 0 {
			return sqlerr.At(sqlerr.InvalidParameterValue, pos, "window slide must divide the window size")
		}
	case SessionWindow:
		if w.Gap <= 0 {
			return sqlerr.At(sqlerr.InvalidParameterValue, pos, "session gap must be positive")
		}
	}
	return nil
}

// sparkWindowGroup finds window(col, width[, slide]) or
// session_window(col, gap) among GROUP BY items.
func sparkWindowGroup(groups []*pg_query.Node) (int, *pg_query.FuncCall) {
	for i, g := range groups {
		if fc := g.GetFuncCall(); fc != nil {
			switch funcName(fc.Funcname) {
			case "window", "session_window":
				return i, fc
			}
		}
	}
	return -1, nil
}

// bindSparkWindow wraps input in a WindowAssign for Spark's grouping
// functions and makes its bounds visible as window.start and window.end
// (and window_start / window_end). partition holds the other GROUP BY
// items, which key session windows.
func (b *binder) bindSparkWindow(fc *pg_query.FuncCall, input Node, sc *scope, others []*pg_query.Node) (Node, *scope, error) {
	name := funcName(fc.Funcname)
	pos := int(fc.Location) + 1
	ec := &exprCtx{sc: sc, what: "GROUP BY"}
	w := &WindowAssign{Input: input}
	if name == "window" {
		if len(fc.Args) < 2 || len(fc.Args) > 4 {
			return nil, nil, sqlerr.At(sqlerr.UndefinedFunction, pos, "window() takes an event-time column, a width and optionally a slide and a start")
		}
		w.Kind = TumblingWindow
	} else {
		if len(fc.Args) != 2 {
			return nil, nil, sqlerr.At(sqlerr.UndefinedFunction, pos, "session_window() takes an event-time column and a gap")
		}
		w.Kind = SessionWindow
	}
	t, err := b.bindExpr(fc.Args[0], ec)
	if err != nil {
		return nil, nil, err
	}
	if err := checkEventTime(t, name+"()", int(fc.Location)); err != nil {
		return nil, nil, err
	}
	w.Time = t
	d, err := b.constInterval(fc.Args[1], ec, name+"()")
	if err != nil {
		return nil, nil, err
	}
	switch {
	case name == "session_window":
		w.Gap = d
		for _, o := range others {
			e, err := b.bindExpr(o, ec)
			if err != nil {
				return nil, nil, err
			}
			w.PartitionBy = append(w.PartitionBy, e)
		}
	case len(fc.Args) >= 3:
		s, err := b.constInterval(fc.Args[2], ec, "window()")
		if err != nil {
			return nil, nil, err
		}
		w.Kind, w.Size, w.Slide = HoppingWindow, d, s
		if len(fc.Args) == 4 {
			off, err := b.constInterval(fc.Args[3], ec, "window()")
			if err != nil {
				return nil, nil, err
			}
			// Spark: windows start at 1970-01-01 00:00:00 UTC + start, and
			// |start| is less than the slide.
			if s > 0 {
				if off >= s || -off >= s {
					return nil, nil, sqlerr.At(sqlerr.InvalidParameterValue, pos, "the start of window() must be less than its slide")
				}
				w.Offset = ((off % s) + s) % s
			}
		}
	default:
		w.Size = d
	}
	if err := validateWindow(w, pos); err != nil {
		return nil, nil, err
	}
	tt := t.Type()
	w.Cols = append(append([]Column{}, input.Columns()...), Column{Name: "window_start", T: tt}, Column{Name: "window_end", T: tt})
	out := &scope{parent: sc.parent, cols: append([]scopeCol{}, sc.cols...), usingCols: sc.usingCols}
	out.cols = append(out.cols, scopeCol{Name: "window_start", T: tt}, scopeCol{Name: "window_end", T: tt})
	b.noteSparkWindow(out, fc)
	return w, out, nil
}
