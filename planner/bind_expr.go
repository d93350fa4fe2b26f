package planner

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// exprCtx says what an expression may refer to.
type exprCtx struct {
	sc *scope
	// agg is non-nil when binding above an aggregation: column references
	// must match GROUP BY expressions and aggregate calls become columns.
	agg *aggState
	// win is non-nil where window functions are allowed (target list, ORDER BY).
	win *winState
	// srf is non-nil where set-returning functions are allowed (the select list).
	srf *srfState
	// what names the clause for error messages ("WHERE", "JOIN conditions").
	what string
	// fn is set while a SQL function's body is bound: its parameter
	// references stand for the call's arguments (bind_sql_function.go).
	fn *sqlFunctionArgs
}

func (b *binder) bindExpr(n *pg_query.Node, ec *exprCtx) (expr.Expr, error) {
	if err := b.enter(); err != nil {
		return nil, err
	}
	defer b.leave()
	if ec.agg != nil {
		if e, ok, err := b.bindAggregateLevel(n, ec); ok || err != nil {
			return e, err
		}
	}
	switch x := n.GetNode().(type) {
	case *pg_query.Node_AConst:
		return bindConst(x.AConst)
	case *pg_query.Node_ColumnRef:
		if ec.fn != nil {
			return ec.functionParamRef(x.ColumnRef)
		}
		return b.bindColumnRef(x.ColumnRef, ec)
	case *pg_query.Node_ParamRef:
		if ec.fn != nil {
			return ec.functionParam(int(x.ParamRef.Number), x.ParamRef.Location)
		}
		i := int(x.ParamRef.Number) - 1
		if i < 0 {
			return nil, sqlerr.At(sqlerr.UndefinedParameter, int(x.ParamRef.Location)+1, "there is no parameter $%d", i+1)
		}
		if i >= len(b.params) {
			b.setParamType(i, types.T{})
			b.params[i] = types.T{}
		}
		return &expr.Param{Index: i, T: b.paramType(i)}, nil
	case *pg_query.Node_AExpr:
		return b.bindAExpr(x.AExpr, ec)
	case *pg_query.Node_BoolExpr:
		args := make([]expr.Expr, len(x.BoolExpr.Args))
		for i, a := range x.BoolExpr.Args {
			e, err := b.bindExpr(a, ec)
			if err != nil {
				return nil, err
			}
			if e, err = b.coerceBool(e, boolOpName(x.BoolExpr.Boolop)); err != nil {
				return nil, err
			}
			args[i] = e
		}
		switch x.BoolExpr.Boolop {
		case pg_query.BoolExprType_AND_EXPR:
			return &expr.BoolOp{And: true, Args: args}, nil
		case pg_query.BoolExprType_OR_EXPR:
			return &expr.BoolOp{And: false, Args: args}, nil
		default:
			return &expr.Not{Arg: args[0]}, nil
		}
	case *pg_query.Node_NullTest:
		e, err := b.bindExpr(x.NullTest.Arg, ec)
		if err != nil {
			return nil, err
		}
		return &expr.IsNull{Arg: e, Negate: x.NullTest.Nulltesttype == pg_query.NullTestType_IS_NOT_NULL}, nil
	case *pg_query.Node_BooleanTest:
		e, err := b.bindExpr(x.BooleanTest.Arg, ec)
		if err != nil {
			return nil, err
		}
		if e, err = b.coerceBool(e, "IS TRUE"); err != nil {
			return nil, err
		}
		bt := &expr.BoolTest{Arg: e}
		switch x.BooleanTest.Booltesttype {
		case pg_query.BoolTestType_IS_TRUE:
			bt.Want = 1
		case pg_query.BoolTestType_IS_NOT_TRUE:
			bt.Want, bt.Negate = 1, true
		case pg_query.BoolTestType_IS_FALSE:
			bt.Want = 0
		case pg_query.BoolTestType_IS_NOT_FALSE:
			bt.Want, bt.Negate = 0, true
		case pg_query.BoolTestType_IS_UNKNOWN:
			bt.Want = -1
		default:
			bt.Want, bt.Negate = -1, true
		}
		return bt, nil
	case *pg_query.Node_TypeCast:
		t, err := ResolveTypeName(x.TypeCast.TypeName)
		if err != nil && isSparkRawLiteral(x.TypeCast) {
			t, err = types.Text, nil // bind_spark_raw.go
		}
		if err != nil {
			return nil, err
		}
		e, err := b.bindExpr(x.TypeCast.Arg, ec)
		if err != nil {
			return nil, err
		}
		return b.coerce(e, t, true, int(x.TypeCast.Location))
	case *pg_query.Node_CollateClause:
		// Collations are accepted and ignored: weir compares text by bytes,
		// which is what PostgreSQL's "C" collation and pg_catalog.default
		// (in a C-locale database) do.
		return b.bindExpr(x.CollateClause.Arg, ec)
	case *pg_query.Node_CaseExpr:
		return b.bindCase(x.CaseExpr, ec)
	case *pg_query.Node_CoalesceExpr:
		args, t, err := b.bindCommon(x.CoalesceExpr.Args, ec, "COALESCE")
		if err != nil {
			return nil, err
		}
		return &expr.Coalesce{Args: args, T: t}, nil
	case *pg_query.Node_MinMaxExpr:
		args, t, err := b.bindCommon(x.MinMaxExpr.Args, ec, "GREATEST")
		if err != nil {
			return nil, err
		}
		name := "greatest"
		if x.MinMaxExpr.Op == pg_query.MinMaxOp_IS_LEAST {
			name = "least"
		}
		return b.callResolved(name, args, t, int(x.MinMaxExpr.Location))
	case *pg_query.Node_FuncCall:
		return b.bindFuncCall(x.FuncCall, ec)
	case *pg_query.Node_SqlvalueFunction:
		return b.bindSQLValueFunction(x.SqlvalueFunction)
	case *pg_query.Node_SubLink:
		return b.bindSubLink(x.SubLink, ec)
	case *pg_query.Node_AArrayExpr:
		return b.bindArrayExpr(x.AArrayExpr, ec)
	case *pg_query.Node_AIndirection:
		return b.bindIndirection(x.AIndirection, ec)
	case *pg_query.Node_RowExpr:
		return b.bindRowExpr(x.RowExpr, ec)
	}
	return nil, notSupported(nodeLocation(n), NodeName(n))
}

func boolOpName(op pg_query.BoolExprType) string {
	switch op {
	case pg_query.BoolExprType_AND_EXPR:
		return "AND"
	case pg_query.BoolExprType_OR_EXPR:
		return "OR"
	}
	return "NOT"
}

// coerceBool checks that an argument of a boolean construct is boolean.
func (b *binder) coerceBool(e expr.Expr, what string) (expr.Expr, error) {
	t := e.Type()
	if t.OID == types.OidBool {
		return e, nil
	}
	if t.OID == types.OidUnknown {
		return b.coerce(e, types.Bool, false, -1)
	}
	return nil, sqlerr.New(sqlerr.DatatypeMismatch, "argument of %s must be type boolean, not type %s", what, t)
}

func bindConst(c *pg_query.A_Const) (expr.Expr, error) {
	if c.Isnull {
		return &expr.Const{Val: nil, T: types.Unknown}, nil
	}
	switch v := c.Val.(type) {
	case *pg_query.A_Const_Ival:
		return &expr.Const{Val: int64(v.Ival.Ival), T: types.Int4}, nil
	case *pg_query.A_Const_Fval:
		s := v.Fval.Fval
		// The grammar gives integers too large for int4 as Float.
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return &expr.Const{Val: i, T: types.Int8}, nil
		}
		return numericConst(s)
	case *pg_query.A_Const_Sval:
		return &expr.Const{Val: v.Sval.Sval, T: types.Unknown}, nil
	case *pg_query.A_Const_Boolval:
		return &expr.Const{Val: v.Boolval.Boolval, T: types.Bool}, nil
	case *pg_query.A_Const_Bsval:
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "bit string literals are not supported")
	}
	return &expr.Const{Val: nil, T: types.Unknown}, nil
}

func numericConst(s string) (expr.Expr, error) {
	d, err := parseConst(types.Numeric, s)
	if err != nil {
		return nil, err
	}
	return &expr.Const{Val: d, T: types.Numeric}, nil
}

// parseConst converts literal text into a Datum of t with t's input function.
func parseConst(t types.T, s string) (expr.Datum, error) {
	bld := expr.NewBuilder(nil, t)
	defer bld.Release()
	fs := types.DefaultFormat
	if err := types.AppendParsedText(bld, t, []byte(s), &fs); err != nil {
		return nil, err
	}
	arr := bld.NewArray()
	defer arr.Release()
	return expr.DatumAt(arr, 0), nil
}

// checkDatetimeLiteral returns the error of a date or timestamp literal
// that no DateStyle field order (MDY, DMY, YMD) reads; the session's own
// order reads it at run time.
func checkDatetimeLiteral(t types.T, s string) error {
	var first error
	for _, order := range []types.DateOrder{types.OrderMDY, types.OrderDMY, types.OrderYMD} {
		bld := expr.NewBuilder(nil, t)
		fs := types.DefaultFormat
		fs.DateOrder = order
		err := types.AppendParsedText(bld, t, []byte(s), &fs)
		bld.Release()
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return first
}

func (b *binder) bindColumnRef(c *pg_query.ColumnRef, ec *exprCtx) (expr.Expr, error) {
	fields := make([]string, 0, len(c.Fields))
	for _, f := range c.Fields {
		if f.GetAStar() != nil {
			return nil, sqlerr.At(sqlerr.FeatureNotSupported, int(c.Location)+1, "* is not allowed here")
		}
		fields = append(fields, f.GetString_().Sval)
	}
	qual, name := splitColumnRef(fields)
	if qual == "window" && (name == "start" || name == "end") {
		// Spark's window.start / window.end: the bounds of window().
		qual, name = "", "window_"+name
	}
	if ec.sc == nil {
		return nil, sqlerr.At(sqlerr.UndefinedColumn, int(c.Location)+1, "column \"%s\" does not exist", name)
	}
	idx, col, depth, err := ec.sc.resolve(qual, name, int(c.Location)+1)
	if err != nil {
		// w.start where w is a struct column (no table w has a column start).
		if len(fields) > 1 {
			if e, ok, serr := b.structColumnRef(fields, c, ec); ok {
				return e, serr
			}
		}
		// Spark's bare window / session_window: the struct of the window
		// GROUP BY window(...) assigned; window.start read from a column
		// window (a subquery's) after the parser's window_start rewrite.
		if e, ok, serr := b.sparkWindowColumn(qual, name, c, ec); ok {
			return e, serr
		}
		// A whole-row reference to a table (SELECT t FROM t) is not supported;
		// say what was not found.
		return nil, err
	}
	col.markRef() // accesses.go
	if depth > 0 {
		b.outerRefs++
		return outerColumn(ec.sc, depth, idx, col, name, int(c.Location)+1)
	}
	if ec.sc.usingCols != nil && qual == "" {
		if u, ok := ec.sc.usingCols[name]; ok {
			idx = u
		}
	}
	return &expr.ColumnRef{Index: idx, T: col.T, Name: name}, nil
}

// coerce converts e to type t: a no-op when it already is, a constant parsed
// at bind time for untyped literals, a parameter whose type is inferred, or
// a cast. explicit is true for CAST/::, which allows any I/O conversion.
func (b *binder) coerce(e expr.Expr, t types.T, explicit bool, pos int) (expr.Expr, error) {
	from := e.Type()
	if from.OID == t.OID && (t.Typmod < 0 || from.Typmod == t.Typmod) {
		return e, nil
	}
	if p, ok := e.(*expr.Param); ok && from.OID == types.OidUnknown {
		b.setParamType(p.Index, t)
		pe := &expr.Param{Index: p.Index, T: types.T{OID: t.OID, Typmod: -1}}
		if t.Typmod < 0 {
			return pe, nil
		}
		e, from = pe, pe.T
	}
	if c, ok := e.(*expr.Const); ok && from.OID == types.OidUnknown {
		if c.Val == nil {
			return &expr.Const{Val: nil, T: t}, nil
		}
		if !needsCatalog(t.OID) && !sessionDependentInput(t) {
			d, err := parseConst(t, c.Val.(string))
			if err != nil {
				if se, ok := err.(*sqlerr.Error); ok && pos >= 0 && se.Position == 0 {
					cp := *se
					cp.Position = pos + 1
					return nil, &cp
				}
				return nil, err
			}
			return &expr.Const{Val: d, T: t}, nil
		}
		// Timestamps and dates are read at run time, in the session's
		// TimeZone and DateStyle field order. A literal no field order
		// can read is refused now, as PostgreSQL refuses it while parsing
		// (a query that reads no rows must still fail).
		if sessionDependentInput(t) {
			if err := checkDatetimeLiteral(t, c.Val.(string)); err != nil {
				if se, ok := err.(*sqlerr.Error); ok && pos >= 0 && se.Position == 0 {
					cp := *se
					cp.Position = pos + 1
					return nil, &cp
				}
				return nil, err
			}
		}
		e = &expr.Const{Val: c.Val, T: types.Text}
		from = types.Text
		explicit = true
	}
	if !explicit {
		if _, ok := expr.ImplicitCastCost(from, t); !ok && !assignable(from, t) {
			return nil, sqlerr.New(sqlerr.DatatypeMismatch, "cannot cast type %s to %s", from, t)
		}
	}
	impl, err := expr.LookupCast(from, t)
	if err != nil {
		return nil, err
	}
	cast := &expr.Cast{Arg: e, T: t, Impl: impl}
	if c, ok := e.(*expr.Const); ok && !needsCatalog(t.OID) && !needsCatalog(from.OID) && !sessionDependentCast(from, t) {
		return foldConst(cast, c)
	}
	return cast, nil
}

// assignable covers the assignment casts PostgreSQL allows implicitly in
// INSERT (numeric to integer, anything to text, timestamptz to timestamp).
func assignable(from, to types.T) bool {
	return true
}

func needsCatalog(oid uint32) bool {
	switch oid {
	case types.OidRegclass, types.OidRegtype, types.OidRegproc, types.OidRegnamespace, types.OidRegrole:
		return true
	}
	return false
}

// sessionDependentInput tells whether reading a literal of type t
// depends on session settings (TimeZone, DateStyle's field order).
func sessionDependentInput(t types.T) bool {
	if t.IsArray() {
		t = t.Elem()
	}
	switch t.OID {
	case types.OidTimestampTZ, types.OidDate, types.OidTimestamp:
		return true
	}
	return false
}

// sessionDependentCast tells whether a cast's result depends on session
// settings (TimeZone, IntervalStyle, bytea_output, extra_float_digits):
// such a cast of a constant is left to run time, in the session.
func sessionDependentCast(from, to types.T) bool {
	text := func(t types.T) bool {
		switch t.OID {
		case types.OidText, types.OidVarchar, types.OidBpchar, types.OidName, types.OidChar, types.OidJSON, types.OidJSONB:
			return true
		}
		return false
	}
	dependent := func(t types.T) bool {
		if t.IsArray() {
			t = t.Elem()
		}
		switch t.OID {
		case types.OidTimestampTZ, types.OidInterval, types.OidBytea, types.OidFloat4, types.OidFloat8, types.OidDate, types.OidTimestamp:
			return true
		}
		return false
	}
	return (text(to) && dependent(from)) || (text(from) && (to.OID == types.OidTimestampTZ || to.OID == types.OidDate || to.OID == types.OidTimestamp)) ||
		(from.OID == types.OidTimestampTZ) != (to.OID == types.OidTimestampTZ) && (from.OID == types.OidDate || from.OID == types.OidTimestamp || to.OID == types.OidDate || to.OID == types.OidTimestamp)
}

// foldConst evaluates a cast of a constant once, at bind time.
func foldConst(e expr.Expr, c *expr.Const) (expr.Expr, error) {
	one := oneRowBatch()
	arr, err := e.Eval(&expr.Ctx{}, one)
	if err != nil {
		return nil, err
	}
	return &expr.Const{Val: expr.DatumAt(arr, 0), T: e.Type()}, nil
}

func oneRowBatch() arrow.RecordBatch {
	return array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
}

// callResolved resolves name over already-bound arguments and coerces them.
func (b *binder) callResolved(name string, args []expr.Expr, _ types.T, pos int) (expr.Expr, error) {
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	r, err := expr.ResolveScalar(name, ts)
	if err != nil {
		if se, ok := err.(*sqlerr.Error); ok && pos >= 0 {
			cp := *se
			cp.Position = pos + 1
			return nil, &cp
		}
		return nil, err
	}
	for i := range args {
		if args[i], err = b.coerce(args[i], r.ArgTypes[i], false, -1); err != nil {
			return nil, err
		}
	}
	ret := r.Ret
	if r.Overload.RetFn != nil {
		ret = r.Overload.RetFn(r.ArgTypes)
		if ret.OID == 0 {
			return nil, expr.NoArrayTypeFor(r.ArgTypes)
		}
	}
	return &expr.FuncCall{Name: name, Args: args, Impl: r.Overload.Impl, T: ret, Op: isOperatorName(name)}, nil
}

func isOperatorName(name string) bool {
	return name != "" && strings.IndexAny(name[:1], "+-*/<>=~!@#%^&|`?") == 0
}

// bindOp binds a binary (or prefix unary when l is nil) operator.
func (b *binder) bindOp(op string, l, r *pg_query.Node, ec *exprCtx, pos int) (expr.Expr, error) {
	var args []expr.Expr
	if l != nil {
		le, err := b.bindExpr(l, ec)
		if err != nil {
			return nil, err
		}
		args = append(args, le)
	}
	re, err := b.bindExpr(r, ec)
	if err != nil {
		return nil, err
	}
	args = append(args, re)
	if len(args) == 2 {
		if e, ok, err := b.bindStructCompare(op, l, r, args[0], args[1], pos); ok {
			return e, err
		}
	}
	if len(args) == 1 && op == "-" {
		if c, ok := re.(*expr.Const); ok {
			switch v := c.Val.(type) {
			case int64:
				return &expr.Const{Val: -v, T: c.T}, nil
			}
		}
	}
	return b.opOver(op, args, pos)
}

// opOver resolves an operator over bound arguments. When one side is an
// untyped literal or parameter, it takes the other side's type first, as
// PostgreSQL's operator resolution prefers.
func (b *binder) opOver(op string, args []expr.Expr, pos int) (expr.Expr, error) {
	if len(args) == 2 {
		lt, rt := args[0].Type(), args[1].Type()
		if lt.OID == types.OidUnknown && rt.OID != types.OidUnknown {
			if cand, err := b.coerceUnknownTo(args[0], rt, op, args[1], true); err == nil && cand != nil {
				return cand, nil
			}
		} else if rt.OID == types.OidUnknown && lt.OID != types.OidUnknown {
			if cand, err := b.coerceUnknownTo(args[1], lt, op, args[0], false); err == nil && cand != nil {
				return cand, nil
			} else if err != nil {
				return nil, err
			}
		}
	}
	return b.callResolved(op, args, types.T{}, pos)
}

// coerceUnknownTo tries op(other, unknown::t) with an exact overload.
func (b *binder) coerceUnknownTo(unk expr.Expr, t types.T, op string, other expr.Expr, unkLeft bool) (expr.Expr, error) {
	ts := []types.T{t, t}
	r, err := expr.ResolveScalar(op, ts)
	if err != nil || r.ArgTypes[0].OID != t.OID || r.ArgTypes[1].OID != t.OID {
		// e.g. jsonb -> 'key' takes text on the right: let normal resolution run.
		return nil, nil
	}
	ce, err := b.coerce(unk, t, false, -1)
	if err != nil {
		return nil, err
	}
	args := []expr.Expr{other, ce}
	if unkLeft {
		args = []expr.Expr{ce, other}
	}
	return b.callResolved(op, args, types.T{}, -1)
}

func opName(names []*pg_query.Node) string {
	s := stringList(names)
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

func (b *binder) bindAExpr(a *pg_query.A_Expr, ec *exprCtx) (expr.Expr, error) {
	pos := int(a.Location)
	op := opName(a.Name)
	switch a.Kind {
	case pg_query.A_Expr_Kind_AEXPR_OP, pg_query.A_Expr_Kind_AEXPR_LIKE, pg_query.A_Expr_Kind_AEXPR_ILIKE:
		return b.bindOp(op, a.Lexpr, a.Rexpr, ec, pos)
	case pg_query.A_Expr_Kind_AEXPR_DISTINCT, pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		l, err := b.bindExpr(a.Lexpr, ec)
		if err != nil {
			return nil, err
		}
		r, err := b.bindExpr(a.Rexpr, ec)
		if err != nil {
			return nil, err
		}
		l, r = structNullOperands(l, r)
		if l.Type().IsStruct() && r.Type().IsStruct() {
			return b.structNotDistinct(l, r, a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT, pos)
		}
		eq, err := b.opOver("=", []expr.Expr{l, r}, pos)
		if err != nil {
			return nil, err
		}
		f, ok := eq.(*expr.FuncCall)
		if !ok {
			return nil, sqlerr.At(sqlerr.FeatureNotSupported, pos+1, "IS DISTINCT FROM is not supported for these types")
		}
		return &expr.DistinctFrom{Left: f.Args[0], Right: f.Args[1], Eq: f.Impl, Negate: a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT}, nil
	case pg_query.A_Expr_Kind_AEXPR_NULLIF:
		eq, err := b.bindOp("=", a.Lexpr, a.Rexpr, ec, pos)
		if err != nil {
			return nil, err
		}
		f, ok := eq.(*expr.FuncCall)
		if !ok {
			return nil, sqlerr.At(sqlerr.FeatureNotSupported, pos+1, "NULLIF is not supported for struct values")
		}
		return &expr.Case{Whens: []expr.Expr{eq}, Thens: []expr.Expr{&expr.Const{T: f.Args[0].Type()}}, Else: f.Args[0], T: f.Args[0].Type()}, nil
	case pg_query.A_Expr_Kind_AEXPR_IN:
		return b.bindInList(a, ec)
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN,
		pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		bounds := a.Rexpr.GetList().GetItems()
		if len(bounds) != 2 {
			return nil, sqlerr.At(sqlerr.SyntaxError, pos+1, "malformed BETWEEN")
		}
		not := a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN || a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM
		lo, hi := ">=", "<="
		if not {
			lo, hi = "<", ">"
		}
		ge, err := b.bindOp(lo, a.Lexpr, bounds[0], ec, pos)
		if err != nil {
			return nil, err
		}
		le, err := b.bindOp(hi, a.Lexpr, bounds[1], ec, pos)
		if err != nil {
			return nil, err
		}
		e := expr.Expr(&expr.BoolOp{And: !not, Args: []expr.Expr{ge, le}})
		if a.Kind == pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM || a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM {
			ge2, err := b.bindOp(lo, a.Lexpr, bounds[1], ec, pos)
			if err != nil {
				return nil, err
			}
			le2, err := b.bindOp(hi, a.Lexpr, bounds[0], ec, pos)
			if err != nil {
				return nil, err
			}
			e = &expr.BoolOp{And: not, Args: []expr.Expr{e, &expr.BoolOp{And: !not, Args: []expr.Expr{ge2, le2}}}}
		}
		return e, nil
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL:
		left, err := b.bindExpr(a.Lexpr, ec)
		if err != nil {
			return nil, err
		}
		arr, err := b.bindExpr(a.Rexpr, ec)
		if err != nil {
			return nil, err
		}
		if arr.Type().OID == types.OidUnknown {
			at := types.ArrayOf(left.Type())
			if left.Type().OID == types.OidUnknown {
				at = types.ArrayOf(types.Text)
			}
			if arr, err = b.coerce(arr, at, false, -1); err != nil {
				return nil, err
			}
		}
		// int2vector and oidvector are arrays to ANY/ALL, as in PostgreSQL.
		if arr, err = b.vectorAsArray(arr); err != nil {
			return nil, err
		}
		if !arr.Type().IsArray() {
			return nil, sqlerr.At(sqlerr.WrongObjectType, pos+1, "op ANY/ALL (array) requires array on right side")
		}
		cmp, err := b.opOver(op, []expr.Expr{left, &expr.Const{T: arr.Type().Elem()}}, pos)
		if err != nil {
			return nil, err
		}
		f := cmp.(*expr.FuncCall)
		// The operator may want another element type than the array has
		// (33.4 = ANY (ARRAY[1,2]) compares as numeric): cast the array.
		if want := f.Args[1].Type(); want.OID != arr.Type().Elem().OID {
			at, err := expr.ArrayTypeOf(want)
			if err != nil {
				return nil, err
			}
			if arr, err = b.coerce(arr, at, false, -1); err != nil {
				return nil, err
			}
		}
		return &expr.ArrayCompare{Left: f.Args[0], Array: arr, Cmp: f.Impl, Op: op, All: a.Kind == pg_query.A_Expr_Kind_AEXPR_OP_ALL}, nil
	case pg_query.A_Expr_Kind_AEXPR_SIMILAR:
		return nil, notSupported(a.Location, "SIMILAR TO")
	}
	return nil, notSupported(a.Location, "this operator form")
}

func (b *binder) bindInList(a *pg_query.A_Expr, ec *exprCtx) (expr.Expr, error) {
	left, err := b.bindExpr(a.Lexpr, ec)
	if err != nil {
		return nil, err
	}
	items := a.Rexpr.GetList().GetItems()
	list := make([]expr.Expr, len(items))
	ts := []types.T{left.Type()}
	for i, it := range items {
		if list[i], err = b.bindExpr(it, ec); err != nil {
			return nil, err
		}
		ts = append(ts, list[i].Type())
	}
	if left.Type().IsStruct() {
		// w IN (ROW(...), ...): each item compared as a row (bind_struct_compare.go).
		return b.structInList(a, left, list)
	}
	t, err := expr.CommonType(ts)
	if err != nil {
		return nil, sqlerr.At(sqlerr.DatatypeMismatch, int(a.Location)+1, "%s", err.Error())
	}
	if left, err = b.coerce(left, t, false, -1); err != nil {
		return nil, err
	}
	for i := range list {
		if list[i], err = b.coerce(list[i], t, false, -1); err != nil {
			return nil, err
		}
	}
	eq, err := b.callResolved("=", []expr.Expr{&expr.Const{T: t}, &expr.Const{T: t}}, types.T{}, int(a.Location))
	if err != nil {
		return nil, err
	}
	return &expr.InList{Arg: left, List: list, Negate: opName(a.Name) == "<>", Eq: eq.(*expr.FuncCall).Impl}, nil
}

// bindCommon binds arguments that must share one type.
func (b *binder) bindCommon(nodes []*pg_query.Node, ec *exprCtx, what string) ([]expr.Expr, types.T, error) {
	args := make([]expr.Expr, len(nodes))
	ts := make([]types.T, len(nodes))
	for i, n := range nodes {
		e, err := b.bindExpr(n, ec)
		if err != nil {
			return nil, types.T{}, err
		}
		args[i], ts[i] = e, e.Type()
	}
	t, err := expr.CommonType(ts)
	if err != nil {
		return nil, types.T{}, sqlerr.New(sqlerr.DatatypeMismatch, "%s types %s", what, strings.TrimPrefix(err.Error(), "types "))
	}
	for i := range args {
		if args[i], err = b.coerce(args[i], t, false, -1); err != nil {
			return nil, types.T{}, err
		}
	}
	return args, t, nil
}

func (b *binder) bindCase(c *pg_query.CaseExpr, ec *exprCtx) (expr.Expr, error) {
	var arg expr.Expr
	var err error
	if c.Arg != nil {
		if arg, err = b.bindExpr(c.Arg, ec); err != nil {
			return nil, err
		}
	}
	out := &expr.Case{}
	var results []*pg_query.Node
	for _, w := range c.Args {
		cw := w.GetCaseWhen()
		var cond expr.Expr
		if arg != nil {
			rhs, err := b.bindExpr(cw.Expr, ec)
			if err != nil {
				return nil, err
			}
			if cond, err = b.opOver("=", []expr.Expr{arg, rhs}, int(cw.Location)); err != nil {
				return nil, err
			}
		} else {
			if cond, err = b.bindExpr(cw.Expr, ec); err != nil {
				return nil, err
			}
			if cond, err = b.coerceBool(cond, "CASE/WHEN"); err != nil {
				return nil, err
			}
		}
		out.Whens = append(out.Whens, cond)
		results = append(results, cw.Result)
	}
	if c.Defresult != nil {
		results = append(results, c.Defresult)
	}
	vals, t, err := b.bindCommon(results, ec, "CASE")
	if err != nil {
		return nil, err
	}
	out.Thens = vals[:len(out.Whens)]
	if c.Defresult != nil {
		out.Else = vals[len(vals)-1]
	}
	out.T = t
	return out, nil
}

func (b *binder) bindSQLValueFunction(f *pg_query.SQLValueFunction) (expr.Expr, error) {
	name := ""
	switch f.Op {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		name = "current_date"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		name = "now"
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		name = "localtimestamp"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N,
		pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
		name = "localtime"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg_query.SQLValueFunctionOp_SVFOP_USER:
		name = "current_user"
	case pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER:
		name = "session_user"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		name = "current_database"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		name = "current_schema"
	}
	return b.callResolved(name, nil, types.T{}, int(f.Location))
}

func (b *binder) bindArrayExpr(a *pg_query.A_ArrayExpr, ec *exprCtx) (expr.Expr, error) {
	args, t, err := b.bindCommon(a.Elements, ec, "ARRAY")
	if err != nil {
		return nil, err
	}
	at, err := expr.ArrayTypeOf(t)
	if err != nil {
		return nil, err
	}
	return &expr.ArrayConstructor{Elems: args, T: at}, nil
}

func (b *binder) bindIndirection(ind *pg_query.A_Indirection, ec *exprCtx) (expr.Expr, error) {
	if len(ind.Indirection) == 1 && ind.Indirection[0].GetString_() != nil {
		return b.bindFieldSelect(ind.Arg, ind.Indirection[0].GetString_().Sval, ec)
	}
	base, err := b.bindExpr(ind.Arg, ec)
	if err != nil {
		return nil, err
	}
	for _, step := range ind.Indirection {
		zeroBased := false
		idx := step.GetAIndices()
		if bt := base.Type().OID; bt == types.OidInt2Vector || bt == types.OidOidVector {
			// int2vector / oidvector subscripts count from 0.
			elem := types.Int2
			if bt == types.OidOidVector {
				elem = types.Oid
			}
			vec, err := b.coerce(base, types.ArrayOf(elem), true, -1)
			if err != nil {
				return nil, err
			}
			base = vec
			zeroBased = true
		}
		if idx == nil || idx.IsSlice || !base.Type().IsArray() {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "this kind of indirection is not supported")
		}
		i, err := b.bindExpr(idx.Uidx, ec)
		if err != nil {
			return nil, err
		}
		if i, err = b.coerce(i, types.Int4, false, -1); err != nil {
			return nil, err
		}
		if zeroBased {
			if i, err = b.opOver("+", []expr.Expr{i, &expr.Const{Val: int64(1), T: types.Int4}}, -1); err != nil {
				return nil, err
			}
		}
		base = &expr.ArraySubscript{Array: base, Index: i, T: base.Type().Elem()}
	}
	return base, nil
}

// bindFieldSelect binds (record).field for the records weir carries as
// one column per field: a column of a subquery or _pg_expandarray(...).
func (b *binder) bindFieldSelect(arg *pg_query.Node, field string, ec *exprCtx) (expr.Expr, error) {
	if fc := arg.GetFuncCall(); fc != nil && funcName(fc.Funcname) == "_pg_expandarray" {
		fields, err := b.bindExpandArray(fc, ec)
		if err != nil {
			return nil, err
		}
		switch field {
		case "x":
			return fields[0], nil
		case "n":
			return fields[1], nil
		}
		return nil, sqlerr.New(sqlerr.UndefinedColumn, "column \"%s\" not found in data type record", field)
	}
	if fc := arg.GetFuncCall(); fc != nil && funcName(fc.Funcname) == "aclexplode" {
		return b.bindACLExplodeField(fc, field, ec)
	}
	cr := arg.GetColumnRef()
	if cr == nil || ec.sc == nil {
		return b.bindStructFieldSelect(arg, field, ec)
	}
	qual, name := splitColumnRef(stringList(cr.Fields))
	idx, col, depth, err := ec.sc.resolveField(qual, name, field, int(cr.Location)+1)
	if err != nil {
		if e, serr := b.bindStructFieldSelect(arg, field, ec); serr == nil {
			return e, nil
		}
		return nil, err
	}
	col.markRef() // accesses.go
	if depth > 0 {
		b.outerRefs++
		return outerColumn(ec.sc, depth, idx, col, name+"."+field, int(cr.Location)+1)
	}
	return &expr.ColumnRef{Index: idx, T: col.T, Name: name + "." + field}, nil
}
