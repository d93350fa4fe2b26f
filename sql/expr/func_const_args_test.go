package expr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/types"
)

// A call whose arguments are all constants is computed once per batch,
// not once per row, and every row gets its value.
func TestConstantCallComputedOnce(t *testing.T) {
	rows := 0
	impl := func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		rows += n
		return Broadcast(ctx.Allocator(), types.Int8, int64(42), n)
	}
	f := &FuncCall{Name: "abs", Args: []Expr{&Const{Val: int64(-42), T: types.Int8}}, Impl: impl, T: types.Int8}
	in := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1000)
	out, err := f.Eval(&Ctx{}, in)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if rows != 1 {
		t.Fatalf("the function computed %d rows for a constant call over 1000", rows)
	}
	if out.Len() != 1000 || out.(*array.Int64).Value(999) != 42 {
		t.Fatalf("result: %d rows, last %v", out.Len(), out)
	}
}
