package expr

import (
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// weir's arrays have one dimension: an Arrow list of scalars. PostgreSQL
// builds a multidimensional array from ARRAY[ARRAY[...]], ARRAY(SELECT
// array) or array_agg over arrays; weir refuses those with 0A000 when the
// statement is bound, instead of building a list of an unknown element
// type that no kernel can read.

// ArrayTypeOf returns the one-dimensional array type of elem, or 0A000
// when elem is itself an array (or has no array type).
func ArrayTypeOf(elem types.T) (types.T, error) {
	at := types.ArrayOf(elem)
	if elem.IsArray() || at.OID == 0 {
		return types.T{}, NoArrayTypeFor([]types.T{elem})
	}
	return at, nil
}

// NoArrayTypeFor is the error for a polymorphic result that would need an
// array of one of args (an array itself, or a type without an array type).
func NoArrayTypeFor(args []types.T) error {
	for _, a := range args {
		if a.IsArray() {
			return sqlerr.New(sqlerr.FeatureNotSupported, "multidimensional arrays are not supported")
		}
	}
	name := "unknown"
	if len(args) > 0 {
		name = args[0].String()
	}
	return sqlerr.New(sqlerr.UndefinedObject, "could not find array type for data type %s", name)
}
