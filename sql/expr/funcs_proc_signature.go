package expr

import (
	"strings"

	"github.com/weir-sql/weir/sql/types"
)

// pg_get_function_arguments, pg_get_function_identity_arguments and
// pg_get_function_result print a function's signature from pg_proc, as
// DBeaver's and DataGrip's function browsers and pgjdbc's getFunctions
// (SETOF/TABLE detection) read it. weir's functions have no argument
// names, defaults or OUT parameters, so both argument forms are the list
// of types. An OID that is no function gives NULL, as in PostgreSQL.
func init() {
	sig := func(fn func(args []types.T, ret types.T, variadic bool) string, withNames bool) ScalarImpl {
		return Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
			if ctx.Catalog == nil {
				return nil, nil
			}
			oid := uint32(a[0].(int64))
			args, ret, variadic, ok := ctx.Catalog.ProcSignature(oid)
			if !ok {
				return nil, nil
			}
			text := fn(args, ret, variadic)
			if ut, ok := ctx.Catalog.(UserFunctionText); ok && withNames { // funcs_user_proc.go
				text = namedArgList(ut.ProcArgNames(oid), args, text)
			}
			return text, nil
		})
	}
	// A variadic last argument shows as PostgreSQL declares it: VARIADIC
	// "any", or VARIADIC over the array of the repeated type.
	argList := func(args []types.T, _ types.T, variadic bool) string {
		parts := make([]string, len(args))
		for i, t := range args {
			if variadic && i == len(args)-1 {
				switch {
				case t.OID == types.OidAnyElement:
					t = AnyArray
				case t.OID != types.OidAny && !t.IsArray():
					t = types.ArrayOf(t)
				}
				parts[i] = "VARIADIC " + typeDisplayName(t)
				continue
			}
			parts[i] = typeDisplayName(t)
		}
		return strings.Join(parts, ", ")
	}
	RegisterScalar("pg_get_function_arguments", Overload{Args: []types.T{types.Oid}, Ret: types.Text, Impl: sig(argList, true)})
	RegisterScalar("pg_get_function_identity_arguments", Overload{Args: []types.T{types.Oid}, Ret: types.Text, Impl: sig(argList, true)})
	RegisterScalar("pg_get_function_result", Overload{Args: []types.T{types.Oid}, Ret: types.Text, Impl: sig(func(_ []types.T, ret types.T, _ bool) string {
		return typeDisplayName(ret)
	}, false)})
}

// typeDisplayName is format_type's text; PostgreSQL quotes the pseudo-type
// "any" because ANY is a reserved word.
func typeDisplayName(t types.T) string {
	if t.OID == types.OidAny {
		return `"any"`
	}
	if _, ok := types.Lookup(t.OID); !ok {
		return "???"
	}
	return types.FormatType(t.OID, -1)
}
