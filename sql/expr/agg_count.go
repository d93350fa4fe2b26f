package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/types"
)

// count(*) and count(any).

// growTo extends s so that index g exists.
func growTo[T any](s []T, g uint32) []T {
	if int(g) < len(s) {
		return s
	}
	if int(g) < cap(s) {
		return s[:g+1]
	}
	n := make([]T, int(g)+1, 2*int(g)+8)
	copy(n, s)
	return n
}

type countAcc struct{ counts []int64 }

func (a *countAcc) Update(ctx *Ctx, groups []uint32, args []arrow.Array) error {
	if len(args) == 0 || args[0].NullN() == 0 {
		for _, g := range groups {
			a.counts = growTo(a.counts, g)
			a.counts[g]++
		}
		return nil
	}
	col := args[0]
	for i, g := range groups {
		a.counts = growTo(a.counts, g)
		if col.IsValid(i) {
			a.counts[g]++
		}
	}
	return nil
}

func (a *countAcc) Finish(ctx *Ctx, ngroups int) (arrow.Array, error) {
	res := make([]int64, ngroups)
	copy(res, a.counts)
	return intResult(ctx.Allocator(), types.OidInt8, res, nil), nil
}

// AppendFinal appends group g's count (FinalAppender).
func (a *countAcc) AppendFinal(ctx *Ctx, g int, b array.Builder) error {
	var n int64
	if g < len(a.counts) {
		n = a.counts[g]
	}
	if ib, ok := b.(*array.Int64Builder); ok {
		ib.Append(n)
	} else {
		AppendDatum(b, n)
	}
	return nil
}

func init() {
	RegisterAggregate("count",
		AggOverload{Args: nil, Ret: types.Int8, New: func([]types.T, types.T) Accumulator { return &countAcc{} }},
		AggOverload{Args: []types.T{Any}, Ret: types.Int8, New: func([]types.T, types.T) Accumulator { return &countAcc{} }},
	)
}
