package expr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/types"
)

// Date, timestamp and interval arithmetic operators.

// tsIntervalKernel computes timestamp[tz] ± interval as a typed loop.
func tsIntervalKernel(ret types.T, sub, tz, intervalFirst bool) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		mem := ctx.Allocator()
		tsArg, ivArg := args[0], args[1]
		if intervalFirst {
			tsArg, ivArg = args[1], args[0]
		}
		ts := intValues(tsArg, nil)
		ivs := ivArg.(*array.MonthDayNanoInterval).MonthDayNanoIntervalValues()
		valid := unionValidity(mem, n, args...)
		buf := newValueBuffer(mem, n*8)
		out := arrow.Int64Traits.CastFromBytes(buf.Bytes())
		loc := ctx.location()
		for i := 0; i < n; i++ {
			if !rowValid(valid, i) {
				out[i] = 0
				continue
			}
			iv := ivs[i]
			if sub {
				iv = negInterval(iv)
			}
			var r int64
			var err error
			if tz {
				r, err = timestamptzPlusInterval(ts[i], iv, loc)
			} else {
				r, err = timestampPlusInterval(ts[i], iv)
			}
			if err != nil {
				buf.Release()
				return nil, err
			}
			out[i] = r
		}
		return primitiveResult(ret.Arrow(), n, buf, valid), nil
	}
}

// tsDiffKernel is timestamp - timestamp (also for timestamptz): an
// interval of days and time.
func tsDiffKernel(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
	mem := ctx.Allocator()
	a := intValues(args[0], nil)
	b := intValues(args[1], nil)
	valid := unionValidity(mem, n, args...)
	buf := newValueBuffer(mem, n*16)
	out := arrow.MonthDayNanoIntervalTraits.CastFromBytes(buf.Bytes())
	for i := 0; i < n; i++ {
		d := a[i] - b[i]
		if (a[i] >= 0) != (b[i] >= 0) && (d >= 0) != (a[i] >= 0) || d > math.MaxInt64/1000 || d < math.MinInt64/1000 {
			if rowValid(valid, i) {
				buf.Release()
				return nil, errIntervalOutOfRange()
			}
			d = 0
		}
		out[i] = justifyHours(makeIv(0, 0, d))
	}
	return primitiveResult(types.Interval.Arrow(), n, buf, valid), nil
}

func intervalRow(fn func(ctx *Ctx, a []Datum) (Datum, error)) ScalarImpl {
	return Strict(types.Interval, fn)
}

func init() {
	for _, t := range []types.T{types.Timestamp, types.TimestampTZ} {
		tz := t.OID == types.OidTimestampTZ
		RegisterScalar("+",
			Overload{Args: []types.T{t, types.Interval}, Ret: t, Impl: tsIntervalKernel(t, false, tz, false)},
			Overload{Args: []types.T{types.Interval, t}, Ret: t, Impl: tsIntervalKernel(t, false, tz, true)},
		)
		RegisterScalar("-",
			Overload{Args: []types.T{t, types.Interval}, Ret: t, Impl: tsIntervalKernel(t, true, tz, false)},
			Overload{Args: []types.T{t, t}, Ret: types.Interval, Impl: tsDiffKernel},
		)
	}
	// date arithmetic
	dateRange := func(d int64) (Datum, error) {
		if d < daysFromCivil(-4713, 11, 24) || d > daysFromCivil(5874897, 12, 31) {
			return nil, sqlErrDateOutOfRange()
		}
		return d, nil
	}
	RegisterScalar("+",
		Overload{Args: []types.T{types.Date, types.Int4}, Ret: types.Date, Impl: Strict(types.Date, func(ctx *Ctx, a []Datum) (Datum, error) {
			return dateRange(a[0].(int64) + a[1].(int64))
		})},
		Overload{Args: []types.T{types.Int4, types.Date}, Ret: types.Date, Impl: Strict(types.Date, func(ctx *Ctx, a []Datum) (Datum, error) {
			return dateRange(a[0].(int64) + a[1].(int64))
		})},
		Overload{Args: []types.T{types.Date, types.Interval}, Ret: types.Timestamp, Impl: Strict(types.Timestamp, func(ctx *Ctx, a []Datum) (Datum, error) {
			return timestampPlusInterval(dateToTimestamp(a[0].(int64)), a[1].(arrow.MonthDayNanoInterval))
		})},
		Overload{Args: []types.T{types.Interval, types.Date}, Ret: types.Timestamp, Impl: Strict(types.Timestamp, func(ctx *Ctx, a []Datum) (Datum, error) {
			return timestampPlusInterval(dateToTimestamp(a[1].(int64)), a[0].(arrow.MonthDayNanoInterval))
		})},
		Overload{Args: []types.T{types.Date, types.Time}, Ret: types.Timestamp, Impl: Strict(types.Timestamp, func(ctx *Ctx, a []Datum) (Datum, error) {
			return dateToTimestamp(a[0].(int64)) + a[1].(int64), nil
		})},
		Overload{Args: []types.T{types.Time, types.Interval}, Ret: types.Time, Impl: Strict(types.Time, func(ctx *Ctx, a []Datum) (Datum, error) {
			return floorMod(a[0].(int64)+ivUs(a[1].(arrow.MonthDayNanoInterval)), usPerDay), nil
		})},
		Overload{Args: []types.T{types.Interval, types.Interval}, Ret: types.Interval, Impl: intervalRow(func(ctx *Ctx, a []Datum) (Datum, error) {
			return addInterval(a[0].(arrow.MonthDayNanoInterval), a[1].(arrow.MonthDayNanoInterval))
		})},
	)
	RegisterScalar("-",
		Overload{Args: []types.T{types.Date, types.Date}, Ret: types.Int4, Impl: Strict(types.Int4, func(ctx *Ctx, a []Datum) (Datum, error) {
			return a[0].(int64) - a[1].(int64), nil
		})},
		Overload{Args: []types.T{types.Date, types.Int4}, Ret: types.Date, Impl: Strict(types.Date, func(ctx *Ctx, a []Datum) (Datum, error) {
			return dateRange(a[0].(int64) - a[1].(int64))
		})},
		Overload{Args: []types.T{types.Date, types.Interval}, Ret: types.Timestamp, Impl: Strict(types.Timestamp, func(ctx *Ctx, a []Datum) (Datum, error) {
			return timestampPlusInterval(dateToTimestamp(a[0].(int64)), negInterval(a[1].(arrow.MonthDayNanoInterval)))
		})},
		Overload{Args: []types.T{types.Time, types.Interval}, Ret: types.Time, Impl: Strict(types.Time, func(ctx *Ctx, a []Datum) (Datum, error) {
			return floorMod(a[0].(int64)-ivUs(a[1].(arrow.MonthDayNanoInterval)), usPerDay), nil
		})},
		Overload{Args: []types.T{types.Time, types.Time}, Ret: types.Interval, Impl: intervalRow(func(ctx *Ctx, a []Datum) (Datum, error) {
			return makeIv(0, 0, a[0].(int64)-a[1].(int64)), nil
		})},
		Overload{Args: []types.T{types.Interval, types.Interval}, Ret: types.Interval, Impl: intervalRow(func(ctx *Ctx, a []Datum) (Datum, error) {
			return addInterval(a[0].(arrow.MonthDayNanoInterval), negInterval(a[1].(arrow.MonthDayNanoInterval)))
		})},
		Overload{Args: []types.T{types.Interval}, Ret: types.Interval, Impl: intervalRow(func(ctx *Ctx, a []Datum) (Datum, error) {
			return negInterval(a[0].(arrow.MonthDayNanoInterval)), nil
		})},
	)
	RegisterScalar("*",
		Overload{Args: []types.T{types.Interval, types.Float8}, Ret: types.Interval, Impl: intervalRow(func(ctx *Ctx, a []Datum) (Datum, error) {
			return intervalScale(a[0].(arrow.MonthDayNanoInterval), a[1].(float64), false)
		})},
		Overload{Args: []types.T{types.Float8, types.Interval}, Ret: types.Interval, Impl: intervalRow(func(ctx *Ctx, a []Datum) (Datum, error) {
			return intervalScale(a[1].(arrow.MonthDayNanoInterval), a[0].(float64), false)
		})},
	)
	RegisterScalar("/",
		Overload{Args: []types.T{types.Interval, types.Float8}, Ret: types.Interval, Impl: intervalRow(func(ctx *Ctx, a []Datum) (Datum, error) {
			return intervalScale(a[0].(arrow.MonthDayNanoInterval), a[1].(float64), true)
		})},
	)
	RegisterScalar("+", Overload{Args: []types.T{types.Interval}, Ret: types.Interval, Impl: identityImpl})
	_ = memory.DefaultAllocator
}
