package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Try is Databricks' try_ form of an expression (try_cast, try_add,
// try_divide, …): Inner's value, or NULL for a row on which Inner fails
// with a data exception (SQLSTATE class 22: a value that does not
// convert, an overflow, a division by zero). Other errors (a cancel, a
// missing relation) still fail. Eval stays vectorised: only a batch in
// which Inner fails is evaluated again row by row, to find the rows that
// fail.
type Try struct {
	Inner Expr
	Name  string // the function as written, for String ("try_cast")
}

var _ Expr = (*Try)(nil)

func (t *Try) Type() types.T  { return t.Inner.Type() }
func (t *Try) String() string { return t.Name + "(" + t.Inner.String() + ")" }

func (t *Try) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	out, err := t.Inner.Eval(ctx, in)
	if err == nil || !IsDataException(err) {
		return out, err
	}
	n := int(in.NumRows())
	b := NewBuilder(ctx.Allocator(), t.Type())
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		if i%64 == 0 && ctx.Canceled() {
			return nil, sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
		}
		row := in.NewSlice(int64(i), int64(i+1))
		v, err := t.Inner.Eval(ctx, row)
		row.Release()
		switch {
		case err != nil && IsDataException(err):
			b.AppendNull()
		case err != nil:
			return nil, err
		default:
			AppendDatum(b, DatumAt(v, 0))
			v.Release()
		}
	}
	return b.NewArray(), nil
}

// IsDataException reports whether err is a bad value's error (SQLSTATE
// class 22), which the try_ functions turn into NULL.
func IsDataException(err error) bool {
	return strings.HasPrefix(sqlerr.Code(err), "22")
}
