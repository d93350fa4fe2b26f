package expr

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/types"
)

// Bitwise operators on integers: & | # (and, or, xor) between two values
// of one integer type, ~ (not), and << >> by an int4 count, as PostgreSQL's
// int2and, int4or, int8shl... pgjdbc's getIndexInfo tests index option
// bits with `indoption & 1`.

// bitwiseKernel is a typed loop over the columns, widened to int64 and
// stored back in the width of ret (the result of & | # always fits).
func bitwiseKernel(op byte, ret uint32) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		mem := ctx.Allocator()
		a := intValues(args[0], nil)
		var b []int64
		if len(args) > 1 {
			b = intValues(args[1], nil)
		}
		valid := unionValidity(mem, n, args...)
		res := make([]int64, n)
		bits := int64(16)
		switch ret {
		case types.OidInt4:
			bits = 32
		case types.OidInt8:
			bits = 64
		}
		for i := 0; i < n; i++ {
			switch op {
			case '&':
				res[i] = a[i] & b[i]
			case '|':
				res[i] = a[i] | b[i]
			case '#':
				res[i] = a[i] ^ b[i]
			case '~':
				res[i] = ^a[i]
			case '<', '>':
				// PostgreSQL shifts by the count modulo the width (C's
				// behaviour on x86), and the result wraps to the width.
				s := uint(b[i] & (bits - 1))
				if op == '<' {
					res[i] = a[i] << s
				} else {
					res[i] = a[i] >> s
				}
				switch ret {
				case types.OidInt2:
					res[i] = int64(int16(res[i]))
				case types.OidInt4:
					res[i] = int64(int32(res[i]))
				}
			}
		}
		return intResult(mem, ret, res, valid), nil
	}
}

func init() {
	for _, t := range []types.T{types.Int2, types.Int4, types.Int8} {
		for _, op := range []byte{'&', '|', '#'} {
			RegisterScalar(string(op), Overload{Args: []types.T{t, t}, Ret: t, Impl: bitwiseKernel(op, t.OID)})
		}
		RegisterScalar("~", Overload{Args: []types.T{t}, Ret: t, Impl: bitwiseKernel('~', t.OID)})
		RegisterScalar("<<", Overload{Args: []types.T{t, types.Int4}, Ret: t, Impl: bitwiseKernel('<', t.OID)})
		RegisterScalar(">>", Overload{Args: []types.T{t, types.Int4}, Ret: t, Impl: bitwiseKernel('>', t.OID)})
	}
}
