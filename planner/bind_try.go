package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Databricks' try_ functions: the same value as the operation, or NULL
// where it fails on a bad value (expr.Try), so one bad row need not stop a
// streaming table. try_to_timestamp and try_element_at are functions of
// their own (sql/expr); these are built from the operation they try:
//
//	try_cast(x AS t)                  CAST(x AS t)
//	try_add, try_subtract, try_multiply  +, -, *
//	try_divide(a, b)                  a / b: DECIMAL for two decimals, an interval for an interval, DOUBLE otherwise (Databricks' / is never integer division)
//	try_mod(a, b)                     a % b

// tryOperators maps a try_ function to its operator.
var tryOperators = map[string]string{"try_add": "+", "try_subtract": "-", "try_multiply": "*", "try_divide": "/", "try_mod": "%"}

// bindTryFunc binds a try_ function; ok is false for any other name.
func (b *binder) bindTryFunc(name string, f *pg_query.FuncCall, ec *exprCtx) (e expr.Expr, ok bool, err error) {
	pos := int(f.Location)
	if name == parse.TryCastFunc {
		tc := (*pg_query.TypeCast)(nil)
		if len(f.Args) == 1 {
			tc = f.Args[0].GetTypeCast()
		}
		if tc == nil {
			return nil, true, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function trycast does not exist").
				WithHint("Write try_cast(expression AS type).")
		}
		t, err := ResolveTypeName(tc.TypeName)
		if err != nil {
			return nil, true, err
		}
		arg, err := b.bindExpr(tc.Arg, ec)
		if err != nil {
			return nil, true, err
		}
		cast, err := b.coerce(arg, t, true, int(tc.Location))
		if err != nil {
			if expr.IsDataException(err) {
				return &expr.Const{Val: nil, T: t}, true, nil // a constant that does not convert
			}
			return nil, true, err
		}
		return &expr.Try{Inner: cast, Name: "try_cast"}, true, nil
	}
	op, isTry := tryOperators[name]
	if !isTry {
		return nil, false, nil
	}
	if len(f.Args) != 2 || f.AggStar || f.AggDistinct || len(f.AggOrder) > 0 {
		return nil, true, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function %s with %d arguments does not exist", name, len(f.Args)).
			WithHint(name + " takes two arguments.")
	}
	args := make([]expr.Expr, 2)
	for i, a := range f.Args {
		if args[i], err = b.bindExpr(a, ec); err != nil {
			return nil, true, err
		}
	}
	if op == "/" && !bothNumeric(args) && args[0].Type().OID != types.OidInterval {
		// Databricks: DECIMAL for two decimals, an interval for an
		// interval, DOUBLE otherwise.
		for i := range args {
			if args[i], err = b.coerce(args[i], types.Float8, true, -1); err != nil {
				return nil, true, err
			}
		}
	}
	e, err = b.opOver(op, args, pos)
	if err != nil {
		if expr.IsDataException(err) {
			return &expr.Const{Val: nil, T: types.Unknown}, true, nil
		}
		return nil, true, err
	}
	return &expr.Try{Inner: e, Name: name}, true, nil
}

func bothNumeric(args []expr.Expr) bool {
	return args[0].Type().OID == types.OidNumeric && args[1].Type().OID == types.OidNumeric
}
