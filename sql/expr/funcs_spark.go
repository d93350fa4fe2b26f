package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// to_timestamp(text) as Databricks / Spark SQL has it, so that
// dialect.md's `WATERMARK to_timestamp(ts_text) AS event_time` works:
// PostgreSQL has only to_timestamp(double precision) and
// to_timestamp(text, format). Text is read as a timestamptz literal (in the
// session time zone when it has no offset), or as Unix epoch seconds when
// it is a number.
func init() {
	RegisterScalar("to_timestamp", Overload{Args: []types.T{types.Text}, Ret: types.TimestampTZ,
		Impl: Strict(types.TimestampTZ, func(ctx *Ctx, a []Datum) (Datum, error) {
			s := strings.TrimSpace(a[0].(string))
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 9e12 {
					return nil, sqlerr.New(sqlerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", s)
				}
				return int64(math.Round(f * 1e6)), nil
			}
			return types.ParseTimestampTZ(s, ctx.location())
		})})
}
