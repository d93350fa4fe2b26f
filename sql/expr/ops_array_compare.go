package expr

import (
	"reflect"

	"github.com/weir-sql/weir/sql/types"
)

// Array equality compares element by element; elements share one type, so
// their datums compare with deep equality (NULL elements equal each other,
// as in PostgreSQL's array_eq).
func init() {
	eq := func(want bool) ScalarImpl {
		return Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) {
			return reflect.DeepEqual(a[0], a[1]) == want, nil
		})
	}
	RegisterScalar("=", Overload{Args: []types.T{AnyArray, AnyArray}, Ret: types.Bool, Impl: eq(true)})
	RegisterScalar("<>", Overload{Args: []types.T{AnyArray, AnyArray}, Ret: types.Bool, Impl: eq(false)})
}
