package expr

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// BackendControl is how pg_cancel_backend and pg_terminate_backend reach
// other sessions; the engine implements it with PostgreSQL's permission
// rules. Both return false with a WARNING (sent by the implementation)
// for a pid that is no session, and a 42501 error when the caller may not
// signal that session.
type BackendControl interface {
	CancelBackend(pid int32) (bool, error)
	// TerminateBackend ends the session; with timeout > 0 it waits that
	// long for it to be gone and returns false (with a WARNING) if it is
	// not.
	TerminateBackend(pid int32, timeout time.Duration) (bool, error)
}

func init() {
	noBackend := func(ctx *Ctx) error {
		if ctx.Backends == nil {
			return sqlerr.New(sqlerr.FeatureNotSupported, "signalling sessions is not available here")
		}
		return nil
	}
	RegisterScalar("pg_cancel_backend", Overload{Args: []types.T{types.Int4}, Ret: types.Bool, Volatile: true,
		Impl: Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) {
			if err := noBackend(ctx); err != nil {
				return nil, err
			}
			return ctx.Backends.CancelBackend(int32(a[0].(int64)))
		})})
	terminate := func(ctx *Ctx, pid, ms int64) (Datum, error) {
		if ms < 0 {
			return nil, sqlerr.New(sqlerr.NumericValueOutOfRange, "\"timeout\" must not be negative")
		}
		if err := noBackend(ctx); err != nil {
			return nil, err
		}
		return ctx.Backends.TerminateBackend(int32(pid), time.Duration(ms)*time.Millisecond)
	}
	RegisterScalar("pg_terminate_backend",
		Overload{Args: []types.T{types.Int4}, Ret: types.Bool, Volatile: true,
			Impl: Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) { return terminate(ctx, a[0].(int64), 0) })},
		Overload{Args: []types.T{types.Int4, types.Int8}, Ret: types.Bool, Volatile: true,
			Impl: Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) { return terminate(ctx, a[0].(int64), a[1].(int64)) })})

	// pg_sleep_for(interval) and pg_sleep_until(timestamptz) wait as
	// pg_sleep does, and are cancelled with the statement.
	RegisterScalar("pg_sleep_for", Overload{Args: []types.T{types.Interval}, Ret: types.Void, Volatile: true,
		Impl: func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			ivs := args[0].(*array.MonthDayNanoInterval)
			for i := 0; i < n; i++ {
				if ivs.IsNull(i) {
					continue
				}
				now := time.Now().UnixMicro()
				until, err := timestamptzPlusInterval(now, ivs.Value(i), ctx.location())
				if err != nil {
					return nil, err
				}
				if err := sleepFor(ctx, time.Duration(until-now)*time.Microsecond); err != nil {
					return nil, err
				}
			}
			return array.MakeArrayOfNull(ctx.Allocator(), types.Void.Arrow(), n), nil
		}})
	RegisterScalar("pg_sleep_until", Overload{Args: []types.T{types.TimestampTZ}, Ret: types.Void, Volatile: true,
		Impl: func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			ts := args[0].(*array.Timestamp)
			for i := 0; i < n; i++ {
				if ts.IsNull(i) {
					continue
				}
				until := time.UnixMicro(int64(ts.Value(i)))
				if err := sleepFor(ctx, time.Until(until)); err != nil {
					return nil, err
				}
			}
			return array.MakeArrayOfNull(ctx.Allocator(), types.Void.Arrow(), n), nil
		}})
}

// sleepFor waits d, or until the statement is cancelled (57014).
func sleepFor(ctx *Ctx, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done:
		return sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
	}
}
