package expr

import (
	"strings"

	"github.com/weir-sql/weir/sql/types"
)

// User-defined SQL functions (CREATE FUNCTION) as pg_get_function_arguments
// and pg_get_functiondef print them: with their parameters' names, and
// the definition PostgreSQL would print.

// UserFunctionText is implemented by catalogs holding user-defined
// functions (beside CatalogFuncs). ProcArgNames gives the parameter
// names of function oid ("" for an unnamed one; nil when oid is no user
// function); FunctionDef its CREATE OR REPLACE FUNCTION text.
type UserFunctionText interface {
	ProcArgNames(oid uint32) []string
	FunctionDef(oid uint32) (string, bool)
}

// namedArgList puts names before the types of an argument list; text is
// the list without names, returned when names do not fit.
func namedArgList(names []string, args []types.T, text string) string {
	if len(names) != len(args) {
		return text
	}
	parts := make([]string, len(args))
	for i, t := range args {
		parts[i] = typeDisplayName(t)
		if names[i] != "" {
			parts[i] = names[i] + " " + parts[i]
		}
	}
	return strings.Join(parts, ", ")
}

// userFunctionDef is pg_get_functiondef of oid: NULL for anything but a
// user function (the built-ins have no SQL definition to show).
func userFunctionDef(ctx *Ctx, oid Datum) Datum {
	if oid == nil || ctx.Catalog == nil {
		return nil
	}
	ut, ok := ctx.Catalog.(UserFunctionText)
	if !ok {
		return nil
	}
	def, ok := ut.FunctionDef(uint32(oid.(int64)))
	if !ok {
		return nil
	}
	return def
}
