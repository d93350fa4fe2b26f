package expr

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Databricks' day arithmetic on dates: date_add(startDate, numDays)
// (also dateadd), date_sub(startDate, numDays) and datediff(endDate,
// startDate). A timestamp argument counts by its date (a timestamptz by
// its date in the session zone), as Spark casts it to DATE. Typed loops
// over the columns.

// sparkDay is row i of a date, timestamp or timestamptz column (kind) as
// a day number.
func sparkDay(a arrow.Array, i int, kind types.T, loc *time.Location) int64 {
	switch c := a.(type) {
	case *array.Date32:
		return int64(c.Value(i))
	case *array.Timestamp:
		us := int64(c.Value(i))
		if kind.OID == types.OidTimestampTZ {
			us = toLocal(us, loc)
		}
		return floorDiv(us, usPerDay)
	}
	return 0
}

// dayShiftKernel is date_add (sign 1) or date_sub (sign -1); kind is the
// start's type.
func dayShiftKernel(sign int64, kind types.T) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		loc := ctx.location()
		b := NewBuilder(ctx.Allocator(), types.Date).(*array.Date32Builder)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if args[0].IsNull(i) || args[1].IsNull(i) {
				b.AppendNull()
				continue
			}
			days := sparkDay(args[0], i, kind, loc) + sign*DatumAt(args[1], i).(int64)
			if !types.ValidDate(days) {
				return nil, sqlerr.New(sqlerr.DatetimeFieldOverflow, "date out of range")
			}
			b.UnsafeAppend(arrow.Date32(days))
		}
		return b.NewArray(), nil
	}
}

// dateDiffKernel is datediff(endDate, startDate): days from start to end.
func dateDiffKernel(kind types.T) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		loc := ctx.location()
		b := NewBuilder(ctx.Allocator(), types.Int4).(*array.Int32Builder)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if args[0].IsNull(i) || args[1].IsNull(i) {
				b.AppendNull()
				continue
			}
			b.UnsafeAppend(int32(sparkDay(args[0], i, kind, loc) - sparkDay(args[1], i, kind, loc)))
		}
		return b.NewArray(), nil
	}
}

func init() {
	// DATE first: an untyped literal ('2016-07-30') is a date.
	for _, t := range []types.T{types.Date, types.TimestampTZ, types.Timestamp} {
		for _, days := range []types.T{types.Int4, types.Int8} {
			RegisterScalar("date_add", Overload{Args: []types.T{t, days}, Ret: types.Date, Impl: dayShiftKernel(1, t)})
			RegisterScalar("dateadd", Overload{Args: []types.T{t, days}, Ret: types.Date, Impl: dayShiftKernel(1, t)})
			RegisterScalar("date_sub", Overload{Args: []types.T{t, days}, Ret: types.Date, Impl: dayShiftKernel(-1, t)})
		}
		RegisterScalar("datediff", Overload{Args: []types.T{t, t}, Ret: types.Int4, Impl: dateDiffKernel(t)})
	}
}
