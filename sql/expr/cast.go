package expr

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// CastImpl converts arr (of type from) to type to.
type CastImpl func(ctx *Ctx, arr arrow.Array, from, to types.T) (arrow.Array, error)

type castKey struct{ from, to uint32 }

var casts = map[castKey]CastImpl{}

// RegisterCast adds a direct conversion between two types.
func RegisterCast(from, to uint32, impl CastImpl) { casts[castKey{from, to}] = impl }

// LookupCast finds how to convert from into to: a registered direct cast,
// the identity (same OID, re-applying a modifier), or PostgreSQL's I/O
// conversion (output as text, then the input function of the target type),
// which every pair of types supports when written explicitly.
func LookupCast(from, to types.T) (CastImpl, error) {
	if impl, ok := casts[castKey{from.OID, to.OID}]; ok {
		return impl, nil
	}
	if from.OID == to.OID && to.Typmod < 0 {
		return identityCast, nil
	}
	if impl, ok := casts[castKey{types.OidAny, to.OID}]; ok {
		return impl, nil
	}
	if impl, ok := casts[castKey{from.OID, types.OidAny}]; ok {
		return impl, nil
	}
	if from.Info() == nil || to.Info() == nil {
		return nil, sqlerr.New(sqlerr.CannotCoerce, "cannot cast type %s to %s", from, to)
	}
	return ioCast, nil
}

func identityCast(ctx *Ctx, arr arrow.Array, from, to types.T) (arrow.Array, error) {
	arr.Retain()
	return arr, nil
}

// ioCast converts through text, as PostgreSQL's CoerceViaIO does.
func ioCast(ctx *Ctx, arr arrow.Array, from, to types.T) (arrow.Array, error) {
	fs := ctx.textFormat()
	b := NewBuilder(ctx.Allocator(), to)
	defer b.Release()
	var buf []byte
	n := arr.Len()
	for i := 0; i < n; i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		buf = types.AppendText(buf[:0], from, arr, i, &fs)
		if err := types.AppendParsedText(b, to, buf, &fs); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

func (c *Ctx) location() *time.Location {
	if c == nil || c.Location == nil {
		return time.UTC
	}
	return c.Location
}
