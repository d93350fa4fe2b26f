package expr

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/types"
)

// valueText is the output-function text of arr[i] (not null) of type t.
func valueText(ctx *Ctx, t types.T, arr arrow.Array, i int) string {
	switch a := arr.(type) {
	case *array.String:
		return a.Value(i)
	case *array.Boolean:
		if a.Value(i) {
			return "t"
		}
		return "f"
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	}
	fs := ctx.textFormat()
	return string(types.AppendText(nil, t, arr, i, &fs))
}

// textFormat is how output functions write values in this session:
// bytea_output and IntervalStyle apply to casts to text as to results.
func (c *Ctx) textFormat() types.FormatSettings {
	fs := types.FormatSettings{Location: c.location(), ExtraFloatDigits: 1}
	if c != nil && c.Settings != nil {
		if v, ok := c.Settings("bytea_output"); ok {
			fs.ByteaEscape = v == "escape"
		}
		if v, ok := c.Settings("IntervalStyle"); ok {
			fs.IntervalStyle, _ = types.ParseIntervalStyle(v)
		}
		if v, ok := c.Settings("DateStyle"); ok {
			fs.DateStyle, fs.DateOrder, _, _ = types.ParseDateStyle(v, types.DateISO, types.OrderMDY)
		}
	}
	return fs
}

// datumText is valueText for a Datum.
func datumText(ctx *Ctx, t types.T, d Datum) string {
	switch v := d.(type) {
	case string:
		return v
	case bool:
		if v {
			return "t"
		}
		return "f"
	case int64:
		if t.OID == types.OidInt2 || t.OID == types.OidInt4 || t.OID == types.OidInt8 {
			return strconv.FormatInt(v, 10)
		}
	}
	arr := ArrayFromDatums(ctx.Allocator(), t, []Datum{d})
	defer arr.Release()
	return valueText(ctx, t, arr, 0)
}
