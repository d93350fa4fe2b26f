package expr

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"

	"github.com/weir-sql/weir/sql/types"
)

// RowFunc computes one row's result from its arguments' values.
type RowFunc func(ctx *Ctx, args []Datum) (Datum, error)

// Strict wraps a row-at-a-time function: rows with a NULL argument give
// NULL without calling fn. It is the simple way to write a function that is
// not on a hot path (catalog helpers, string formatting); hot operators are
// written as typed loops over the columns instead.
func Strict(ret types.T, fn RowFunc) ScalarImpl {
	return rowWise(ret, fn, true)
}

// NonStrict is Strict without the NULL short-cut: fn sees nil arguments.
func NonStrict(ret types.T, fn RowFunc) ScalarImpl {
	return rowWise(ret, fn, false)
}

func rowWise(ret types.T, fn RowFunc, strict bool) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		b := NewBuilder(ctx.Allocator(), ret)
		defer b.Release()
		b.Reserve(n)
		vals := make([]Datum, len(args))
	rows:
		for i := 0; i < n; i++ {
			// A row-wise function may be slow per row (numeric power,
			// regex, text over large values): poll for a cancel every
			// few rows rather than once per batch.
			if i&7 == 7 && ctx.Canceled() {
				return nil, errCanceled()
			}
			for j, a := range args {
				if strict && a.IsNull(i) {
					b.AppendNull()
					continue rows
				}
				vals[j] = DatumAt(a, i)
			}
			d, err := fn(ctx, vals)
			if err != nil {
				return nil, err
			}
			AppendDatum(b, d)
		}
		return b.NewArray(), nil
	}
}

// errCanceled is PostgreSQL's error for a statement stopped by a cancel.
func errCanceled() error {
	return sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
}
