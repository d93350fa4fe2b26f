package planner

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// User-defined SQL functions (CREATE FUNCTION … LANGUAGE sql) are inlined
// where they are called: the call's arguments are bound in the caller's
// context, and the body — one expression over the parameters — is bound
// with each parameter reference standing for its argument. What runs is
// the body's expression itself, vectorised like any other (PostgreSQL
// inlines simple SQL functions the same way, inline_function in
// optimizer/util/clauses.c).

// SQLFunction is a user-defined scalar SQL function as the binder sees it.
type SQLFunction struct {
	Schema, Name string
	// ArgNames holds each parameter's name ("" for an unnamed one, which
	// the body reads as $n); ArgTypes their types.
	ArgNames []string
	ArgTypes []types.T
	Ret      types.T
	// Body is the returned expression as SQL text.
	Body string
}

// FunctionCatalog is implemented by catalogs that hold user-defined SQL
// functions. LookupFunctions returns those called name in schema, or on
// the search path when schema is ""; none is (nil, nil). The binder asks
// it only for names PostgreSQL's built-in functions do not take
// (unqualified), or for names qualified by a schema other than
// pg_catalog: built-ins come first on the search path, as in PostgreSQL.
type FunctionCatalog interface {
	LookupFunctions(schema, name string) ([]*SQLFunction, error)
}

// sqlFunctionArgs are what a function body's parameter references stand
// for while it is bound.
type sqlFunctionArgs struct {
	fn   *SQLFunction
	args []expr.Expr
}

// Codes PostgreSQL uses for SQL function bodies that sqlerr does not name.
const (
	codeInvalidFunctionDefinition = "42P13"
)

// bindSQLFunctionCall binds f when it calls a user-defined SQL function;
// ok is false when it does not name one.
func (b *binder) bindSQLFunctionCall(f *pg_query.FuncCall, ec *exprCtx) (_ expr.Expr, ok bool, _ error) {
	cat, isFC := b.cat.(FunctionCatalog)
	if !isFC {
		return nil, false, nil
	}
	names := stringList(f.Funcname)
	var schema, name string
	switch len(names) {
	case 1:
		name = names[0]
		if expr.HasScalar(name) || expr.IsAggregate(name) {
			return nil, false, nil
		}
	case 2:
		schema, name = names[0], names[1]
		if schema == "pg_catalog" {
			return nil, false, nil
		}
	default:
		return nil, false, nil
	}
	fns, err := cat.LookupFunctions(schema, name)
	if err != nil || len(fns) == 0 {
		return nil, err != nil, err
	}
	pos := int(f.Location)
	if f.AggStar || f.AggDistinct || len(f.AggOrder) > 0 || f.AggFilter != nil || f.AggWithinGroup || f.FuncVariadic {
		return nil, true, sqlerr.At(sqlerr.WrongObjectType, pos+1, "%s is not an aggregate function", name)
	}
	args := make([]expr.Expr, len(f.Args))
	var argNames []string // named arguments (Databricks: f(ssn => x)), by position
	for i, a := range f.Args {
		n := a
		if na := a.GetNamedArgExpr(); na != nil {
			if argNames == nil {
				argNames = make([]string, len(f.Args))
			}
			argNames[i], n = na.Name, na.Arg
		}
		e, err := b.bindExpr(n, ec)
		if err != nil {
			return nil, true, err
		}
		args[i] = e
	}
	fn, ordered := chooseSQLFunction(fns, args, argNames)
	if fn == nil {
		ts := make([]string, len(args))
		for i, a := range args {
			ts[i] = a.Type().String()
		}
		return nil, true, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "function %s(%s) does not exist", name, strings.Join(ts, ", ")).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	e, err := b.inlineSQLFunction(fn, ordered)
	return e, true, err
}

// chooseSQLFunction picks the overload the arguments fit with the
// fewest implicit casts, and returns the arguments in its parameter
// order.
func chooseSQLFunction(fns []*SQLFunction, args []expr.Expr, argNames []string) (*SQLFunction, []expr.Expr) {
	var best *SQLFunction
	var bestArgs []expr.Expr
	bestCost := -1
	for _, fn := range fns {
		if len(fn.ArgTypes) != len(args) {
			continue
		}
		ordered := args
		if argNames != nil {
			ordered = make([]expr.Expr, len(args))
			next := 0
			fits := true
			for i, a := range args {
				j := next
				if argNames[i] != "" {
					j = -1
					for k, n := range fn.ArgNames {
						if n == argNames[i] {
							j = k
						}
					}
				} else {
					next++
				}
				if j < 0 || ordered[j] != nil {
					fits = false
					break
				}
				ordered[j] = a
			}
			if !fits {
				continue
			}
		}
		cost := 0
		fits := true
		for i, a := range ordered {
			c, ok := expr.ImplicitCastCost(a.Type(), fn.ArgTypes[i])
			if !ok {
				fits = false
				break
			}
			cost += c
		}
		if fits && (bestCost < 0 || cost < bestCost) {
			best, bestArgs, bestCost = fn, ordered, cost
		}
	}
	return best, bestArgs
}

// inlineSQLFunction binds fn's body with its parameters standing for
// args (already bound, in parameter order) and casts the result to the
// declared return type.
func (b *binder) inlineSQLFunction(fn *SQLFunction, args []expr.Expr) (expr.Expr, error) {
	qualified := fn.Schema + "." + fn.Name
	for _, in := range b.inlining {
		if in == qualified {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "SQL function \"%s\" calls itself: recursive SQL functions are not supported", fn.Name).
				WithHint("Write the recursion as a recursive WITH query.")
		}
	}
	b.inlining = append(b.inlining, qualified)
	defer func() { b.inlining = b.inlining[:len(b.inlining)-1] }()
	coerced := make([]expr.Expr, len(args))
	for i, a := range args {
		c, err := b.coerce(a, fn.ArgTypes[i], false, -1)
		if err != nil {
			return nil, err
		}
		coerced[i] = c
	}
	e, err := b.bindFunctionBody(fn, coerced)
	if err != nil {
		return nil, err
	}
	return b.functionResult(fn, e)
}

// bindFunctionBody binds fn's body over args.
func (b *binder) bindFunctionBody(fn *SQLFunction, args []expr.Expr) (expr.Expr, error) {
	stmts, err := parse.Parse("SELECT " + fn.Body)
	if err != nil || len(stmts) != 1 || stmts[0].Node.GetSelectStmt() == nil || len(stmts[0].Node.GetSelectStmt().TargetList) != 1 {
		return nil, sqlerr.New(sqlerr.InternalError, "unreadable body of function %s: %s", fn.Name, fn.Body)
	}
	rt := stmts[0].Node.GetSelectStmt().TargetList[0].GetResTarget()
	return b.bindExpr(rt.Val, &exprCtx{sc: &scope{}, what: "SQL function body", fn: &sqlFunctionArgs{fn: fn, args: args}})
}

// functionResult casts a body's value to the function's return type (an
// assignment cast, as PostgreSQL's check_sql_fn_retval allows).
func (b *binder) functionResult(fn *SQLFunction, e expr.Expr) (expr.Expr, error) {
	if fn.Ret.OID == 0 || e.Type().OID == fn.Ret.OID && (fn.Ret.Typmod < 0 || e.Type().Typmod == fn.Ret.Typmod) {
		return e, nil
	}
	out, err := b.assign(e, RelColumn{Name: fn.Name, T: fn.Ret})
	if err != nil {
		return nil, sqlerr.New(codeInvalidFunctionDefinition, "return type mismatch in function declared to return %s", fn.Ret).
			WithDetail("Actual return type is " + e.Type().String() + ".")
	}
	return out, nil
}

// functionParamRef binds a column reference inside a function body: it
// names a parameter (name, or function.name), or nothing (42703).
func (ec *exprCtx) functionParamRef(c *pg_query.ColumnRef) (expr.Expr, error) {
	parts := make([]string, 0, len(c.Fields))
	for _, f := range c.Fields {
		s := f.GetString_()
		if s == nil {
			return nil, sqlerr.At(sqlerr.FeatureNotSupported, int(c.Location)+1, "* is not allowed in a SQL function's expression")
		}
		parts = append(parts, s.Sval)
	}
	fa := ec.fn
	if len(parts) == 2 && parts[0] == fa.fn.Name || len(parts) == 1 {
		p := parts[len(parts)-1]
		for i, n := range fa.fn.ArgNames {
			if n != "" && n == p {
				return fa.args[i], nil
			}
		}
	}
	return nil, sqlerr.At(sqlerr.UndefinedColumn, int(c.Location)+1, "column \"%s\" does not exist", strings.Join(parts, "."))
}

// functionParam binds $n inside a function body.
func (ec *exprCtx) functionParam(n int, loc int32) (expr.Expr, error) {
	if n < 1 || n > len(ec.fn.args) {
		return nil, sqlerr.At(sqlerr.UndefinedParameter, int(loc)+1, "there is no parameter $%d", n)
	}
	return ec.fn.args[n-1], nil
}

// CheckSQLFunction binds fn's body over its parameters, as CREATE
// FUNCTION validates it, and returns the type the body gives (before
// the cast to fn.Ret; fn.Ret's zero value asks only for that type).
func CheckSQLFunction(cat Catalog, fn *SQLFunction) (types.T, error) {
	b := &binder{cat: cat}
	args := make([]expr.Expr, len(fn.ArgTypes))
	for i, t := range fn.ArgTypes {
		args[i] = &expr.ColumnRef{Index: i, T: t, Name: fn.ArgNames[i]}
	}
	b.inlining = append(b.inlining, fn.Schema+"."+fn.Name)
	e, err := b.bindFunctionBody(fn, args)
	if err != nil {
		return types.T{}, err
	}
	if _, err := b.functionResult(fn, e); err != nil {
		return types.T{}, err
	}
	if b.outerRefs > 0 || len(b.params) > 0 {
		return types.T{}, sqlerr.New(sqlerr.FeatureNotSupported, "the body of SQL function %s reads outside its parameters", fn.Name)
	}
	return e.Type(), nil
}
