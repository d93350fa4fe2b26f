package expr

import (
	"github.com/weir-sql/weir/sql/types"
)

// Equality of the catalog types int2vector, oidvector and aclitem, which
// drivers compare in their catalog queries (pg_index.indkey = ...,
// aclitem = ANY (relacl)). weir carries all three in their canonical text
// form ("1 2", "weir=arwdDxt/weir"), so equal values have equal text.
// int2vector and oidvector ANY/ALL and subscripts go through their casts
// to int2[] / oid[] (casts_vector.go).
func init() {
	for _, t := range []types.T{
		{OID: types.OidInt2Vector, Typmod: -1},
		{OID: types.OidOidVector, Typmod: -1},
		{OID: types.OidACLItem, Typmod: -1},
	} {
		RegisterScalar("=", Overload{Args: []types.T{t, t}, Ret: types.Bool, Impl: compareRowsKernel(opEq, cmpStringRow)})
		RegisterScalar("<>", Overload{Args: []types.T{t, t}, Ret: types.Bool, Impl: compareRowsKernel(opNe, cmpStringRow)})
	}
}
