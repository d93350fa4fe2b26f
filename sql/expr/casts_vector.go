package expr

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/types"
)

// int2vector and oidvector are carried as their text form ("1 2"); these
// casts turn them into real arrays so that subscripts and ANY work on them.
func init() {
	vecToArray := func(ctx *Ctx, arr arrow.Array, from, to types.T) (arrow.Array, error) {
		impl := Strict(to, func(ctx *Ctx, a []Datum) (Datum, error) {
			fields := strings.Fields(a[0].(string))
			out := make([]Datum, 0, len(fields))
			for _, f := range fields {
				n, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					return nil, err
				}
				out = append(out, n)
			}
			return out, nil
		})
		return impl(ctx, []arrow.Array{arr}, arr.Len())
	}
	RegisterCast(types.OidInt2Vector, types.ArrayOf(types.Int2).OID, vecToArray)
	RegisterCast(types.OidOidVector, types.ArrayOf(types.Oid).OID, vecToArray)
}
