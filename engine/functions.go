package engine

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// User-defined SQL scalar functions: CREATE [OR REPLACE] FUNCTION in
// PostgreSQL's two body forms (AS $$ SELECT expr $$, and the SQL-standard
// RETURN expr of PostgreSQL 14+) and Databricks' (RETURNS optional, its
// type names), DROP FUNCTION. The body is checked when the function is
// created, as PostgreSQL's check_function_bodies does, and inlined where
// it is called (planner/bind_sql_function.go).

// SQLSTATEs of functions sqlerr does not name.
const (
	codeInvalidFunctionDefinition = "42P13"
	codeDependentObjects          = "2BP01"
)

func (s *Session) createFunction(c *pg_query.CreateFunctionStmt) (wire.Result, error) {
	if c.IsProcedure {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "CREATE PROCEDURE is not supported").
			WithHint("weir has SQL scalar functions only (CREATE FUNCTION … RETURN expr).")
	}
	names := stringNames(c.Funcname)
	fn := &catalog.Function{Name: names[len(names)-1], Owner: s.currentRoleOID(), Volatility: 'v'}
	if len(names) > 1 {
		fn.Schema = names[len(names)-2]
	}
	language := "sql"
	var src string
	haveSrc := false
	for _, o := range c.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "language":
			language = strings.ToLower(d.Arg.GetString_().GetSval())
		case "volatility":
			fn.Volatility = d.Arg.GetString_().GetSval()[0]
		case "as":
			items := d.Arg.GetList().GetItems()
			if len(items) != 1 {
				return nil, sqlerr.New(codeInvalidFunctionDefinition, "only one AS item needed for language \"%s\"", language)
			}
			src, haveSrc = items[0].GetString_().GetSval(), true
		case "strict", "security", "leakproof", "parallel", "cost", "set":
			// Accepted as PostgreSQL does; an inlined expression has no
			// use for them (strictness: every built-in is strict already).
		default:
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "function option %s is not supported", strings.ToUpper(d.Defname))
		}
	}
	if language != "sql" {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "functions in language \"%s\" are not supported", language).
			WithHint("weir runs SQL scalar functions only: LANGUAGE sql with a RETURN expression or AS $$ SELECT expression $$.")
	}
	for _, p := range c.Parameters {
		fp := p.GetFunctionParameter()
		if fp == nil {
			continue
		}
		switch fp.Mode {
		case pg_query.FunctionParameterMode_FUNC_PARAM_DEFAULT, pg_query.FunctionParameterMode_FUNC_PARAM_IN:
		case pg_query.FunctionParameterMode_FUNC_PARAM_TABLE:
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "SQL table functions (RETURNS TABLE) are not supported").
				WithHint("Use a view, or a function returning one value.")
		default:
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "only IN parameters are supported in SQL functions")
		}
		if fp.Defexpr != nil {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "parameter defaults are not supported in SQL functions")
		}
		t, err := planner.ResolveTypeName(fp.ArgType)
		if err != nil {
			return nil, err
		}
		fn.Args = append(fn.Args, catalog.FunctionArg{Name: fp.Name, Type: t})
	}
	if c.ReturnType != nil {
		if c.ReturnType.Setof {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "set-returning SQL functions are not supported")
		}
		t, err := planner.ResolveTypeName(c.ReturnType)
		if err != nil {
			return nil, err
		}
		fn.Ret = t
	}
	var body *pg_query.Node
	switch {
	case c.SqlBody != nil && c.SqlBody.GetReturnStmt() != nil:
		body = c.SqlBody.GetReturnStmt().Returnval
	case c.SqlBody != nil:
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "BEGIN ATOMIC function bodies are not supported").
			WithHint("Write RETURN expression.")
	case haveSrc:
		fn.Src = src
		b, err := functionSrcExpr(src)
		if err != nil {
			return nil, err
		}
		body = b
	default:
		return nil, sqlerr.New(codeInvalidFunctionDefinition, "no function body specified")
	}
	text, err := deparseExpr(body)
	if err != nil {
		return nil, err
	}
	fn.Body = text
	if fn.Schema == "" {
		sp := s.searchPath()
		if len(sp) == 0 {
			return nil, sqlerr.New(sqlerr.InvalidSchemaName, "no schema has been selected to create in")
		}
		fn.Schema = sp[0]
	}
	if sc, ok := s.eng.cat.Schema(fn.Schema); ok {
		if err := s.requireSchemaPrivilege(sc, catalog.PrivCreate); err != nil {
			return nil, err
		}
	}
	got, err := planner.CheckSQLFunction(s.catalogView(), sqlFunction(fn))
	if err != nil {
		return nil, err
	}
	if fn.Ret.OID == 0 {
		// Databricks: without RETURNS the body's type is the result's.
		if got.OID == types.OidUnknown {
			got = types.Text
		}
		fn.Ret = got
	}
	if c.Replace {
		for _, old := range s.eng.cat.FunctionsNamed(fn.Schema, fn.Name) {
			if sameArgTypes(old.ArgTypes(), fn.ArgTypes()) && !s.superuser && !s.eng.cat.HasPrivsOfRole(s.currentRoleOID(), old.Owner) {
				return nil, sqlerr.New(sqlerr.InsufficientPrivilege, "must be owner of function %s", fn.Name)
			}
		}
	}
	if _, err := s.eng.cat.CreateFunction(fn, c.Replace); err != nil {
		return nil, err
	}
	return commandResult("CREATE FUNCTION"), nil
}

func sameArgTypes(a, b []types.T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].OID != b[i].OID {
			return false
		}
	}
	return true
}

// functionSrcExpr reads an AS $$ … $$ body: one SELECT of one expression,
// without FROM or any other clause (a query body is not supported).
func functionSrcExpr(src string) (*pg_query.Node, error) {
	res, err := pg_query.Parse(src)
	if err != nil {
		return nil, sqlerr.New(sqlerr.SyntaxError, "%s", err.Error())
	}
	if len(res.Stmts) != 1 {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "SQL functions of more than one statement are not supported")
	}
	sel := res.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 || len(sel.FromClause) > 0 || sel.WhereClause != nil ||
		len(sel.GroupClause) > 0 || sel.HavingClause != nil || len(sel.SortClause) > 0 || sel.LimitCount != nil ||
		sel.WithClause != nil || len(sel.ValuesLists) > 0 || sel.Op != pg_query.SetOperation_SETOP_NONE {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "SQL function bodies must be SELECT of one expression").
			WithHint("Write the function as RETURN expression; a function that runs a query is not supported.")
	}
	return sel.TargetList[0].GetResTarget().Val, nil
}

// sqlFunction is fn as the binder inlines it.
func sqlFunction(fn *catalog.Function) *planner.SQLFunction {
	out := &planner.SQLFunction{Schema: fn.Schema, Name: fn.Name, Ret: fn.Ret, Body: fn.Body}
	for _, a := range fn.Args {
		out.ArgNames = append(out.ArgNames, a.Name)
		out.ArgTypes = append(out.ArgTypes, a.Type)
	}
	return out
}

// LookupFunctions implements planner.FunctionCatalog over the search path.
func (v *catalogView) LookupFunctions(schema, name string) ([]*planner.SQLFunction, error) {
	var fns []*catalog.Function
	if schema != "" {
		fns = v.s.eng.cat.FunctionsNamed(schema, name)
	} else {
		for _, sc := range v.s.searchPath() {
			if fns = v.s.eng.cat.FunctionsNamed(sc, name); len(fns) > 0 {
				break
			}
		}
	}
	out := make([]*planner.SQLFunction, len(fns))
	for i, f := range fns {
		out[i] = sqlFunction(f)
	}
	return out, nil
}

var _ planner.FunctionCatalog = (*catalogView)(nil)

// dropFunctions is DROP FUNCTION [IF EXISTS] name[(types)] [, …].
func (s *Session) dropFunctions(d *pg_query.DropStmt, io wire.ExecIO) (wire.Result, error) {
	for _, o := range d.Objects {
		owa := o.GetObjectWithArgs()
		if owa == nil {
			continue
		}
		names := stringNames(owa.Objname)
		schema, name := "", names[len(names)-1]
		if len(names) > 1 {
			schema = names[len(names)-2]
		}
		var cands []*catalog.Function
		if schema != "" {
			cands = s.eng.cat.FunctionsNamed(schema, name)
		} else {
			for _, sc := range s.searchPath() {
				if cands = s.eng.cat.FunctionsNamed(sc, name); len(cands) > 0 {
					break
				}
			}
		}
		var want []types.T
		if !owa.ArgsUnspecified {
			for _, a := range owa.Objargs {
				t, err := planner.ResolveTypeName(a.GetTypeName())
				if err != nil {
					return nil, err
				}
				want = append(want, t)
			}
			var match []*catalog.Function
			for _, f := range cands {
				if sameArgTypes(f.ArgTypes(), want) {
					match = append(match, f)
				}
			}
			cands = match
		}
		sig := name
		if !owa.ArgsUnspecified {
			ts := make([]string, len(want))
			for i, t := range want {
				ts[i] = t.String()
			}
			sig = name + "(" + strings.Join(ts, ", ") + ")"
		}
		switch {
		case len(cands) == 0 && d.MissingOk:
			io.Notice("NOTICE", sqlerr.SuccessfulCompletion, "function "+sig+" does not exist, skipping")
			continue
		case len(cands) == 0:
			return nil, sqlerr.New(sqlerr.UndefinedFunction, "function %s does not exist", sig)
		case len(cands) > 1:
			return nil, sqlerr.New(sqlerr.AmbiguousFunction, "function name \"%s\" is not unique", name).
				WithHint("Specify the argument list to select the function unambiguously.")
		}
		f := cands[0]
		if !s.superuser && !s.eng.cat.HasPrivsOfRole(s.currentRoleOID(), f.Owner) {
			return nil, sqlerr.New(sqlerr.InsufficientPrivilege, "must be owner of function %s", f.Name)
		}
		if err := s.eng.refuseDropMaskFunction(f); err != nil { // column_masks.go
			return nil, err
		}
		if err := s.eng.cat.DropFunction(f.OID); err != nil {
			return nil, err
		}
	}
	return commandResult("DROP FUNCTION"), nil
}

var _ expr.UserFunctionText = (*catalogView)(nil)

// ProcArgNames implements expr.UserFunctionText.
func (v *catalogView) ProcArgNames(oid uint32) []string {
	f, ok := v.s.eng.cat.FunctionByOID(oid)
	if !ok {
		return nil
	}
	names := make([]string, len(f.Args))
	for i, a := range f.Args {
		names[i] = a.Name
	}
	return names
}

// FunctionDef implements expr.UserFunctionText: pg_get_functiondef's
// layout in PostgreSQL 15.
func (v *catalogView) FunctionDef(oid uint32) (string, bool) {
	f, ok := v.s.eng.cat.FunctionByOID(oid)
	if !ok {
		return "", false
	}
	var b strings.Builder
	b.WriteString("CREATE OR REPLACE FUNCTION " + quoteIdentIfNeeded(f.Schema) + "." + quoteIdentIfNeeded(f.Name) + "(")
	for i, a := range f.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		if a.Name != "" {
			b.WriteString(quoteIdentIfNeeded(a.Name) + " ")
		}
		b.WriteString(types.FormatType(a.Type.OID, a.Type.Typmod))
	}
	b.WriteString(")\n RETURNS " + types.FormatType(f.Ret.OID, f.Ret.Typmod) + "\n LANGUAGE sql\n")
	switch f.Volatility {
	case 'i':
		b.WriteString(" IMMUTABLE\n")
	case 's':
		b.WriteString(" STABLE\n")
	}
	if f.Src != "" {
		b.WriteString("AS $function$" + f.Src + "$function$\n")
	} else {
		b.WriteString("RETURN " + f.Body + "\n")
	}
	return b.String(), true
}

// userProcOID resolves regproc input naming a user function: name or
// schema.name (on the search path), unquoted names folded.
func (v *catalogView) userProcOID(text string) (uint32, bool) {
	parts := strings.Split(text, ".")
	for i, p := range parts {
		if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
			parts[i] = strings.ReplaceAll(p[1:len(p)-1], `""`, `"`)
		} else {
			parts[i] = strings.ToLower(p)
		}
	}
	name, schema := parts[len(parts)-1], ""
	if len(parts) > 1 {
		schema = parts[len(parts)-2]
	}
	fns, _ := v.LookupFunctions(schema, name)
	if len(fns) == 0 {
		return 0, false
	}
	for _, f := range v.s.eng.cat.FunctionsNamed(fns[0].Schema, name) {
		return f.OID, true
	}
	return 0, false
}
