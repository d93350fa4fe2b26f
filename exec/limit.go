package exec

import (
	"context"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cockroachdb/apd/v3"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// limitOp skips Offset rows and then passes at most Limit rows; it stops
// pulling its input once the limit is reached.
type limitOp struct {
	env       *Env
	plan      *planner.Limit
	input     Operator
	started   bool
	skip      int64 // rows still to skip
	remaining int64 // rows still to pass; -1 = no limit
	ties      limitTies
}

var _ Operator = (*limitOp)(nil)

// constInt evaluates a constant LIMIT/OFFSET expression; NULL gives def.
func constInt(ctx *expr.Ctx, e expr.Expr, def int64) (int64, error) {
	if e == nil {
		return def, nil
	}
	arr, err := e.Eval(ctx, oneRow())
	if err != nil {
		return 0, err
	}
	switch d := expr.DatumAt(arr, 0).(type) {
	case nil:
		return def, nil
	case int64:
		return d, nil
	case float64:
		return int64(math.RoundToEven(d)), nil
	case string:
		var dec apd.Decimal
		if _, _, err := dec.SetString(d); err != nil {
			return 0, sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid input syntax for type bigint: %q", d)
		}
		var r apd.Decimal
		if _, err := apd.BaseContext.RoundToIntegralValue(&r, &dec); err != nil {
			return 0, err
		}
		v, err := r.Int64()
		if err != nil {
			return 0, sqlerr.New(sqlerr.NumericValueOutOfRange, "bigint out of range")
		}
		return v, nil
	}
	return 0, sqlerr.New(sqlerr.DatatypeMismatch, "argument of LIMIT must be type bigint")
}

func (l *limitOp) start() error {
	l.started = true
	ectx := l.env.exprCtx()
	lim, err := constInt(ectx, l.plan.Limit, -1)
	if err != nil {
		return err
	}
	if l.plan.Limit != nil && lim < 0 {
		if arr, _ := l.plan.Limit.Eval(ectx, oneRow()); arr != nil && arr.IsValid(0) {
			return sqlerr.New("2201W", "LIMIT must not be negative")
		}
	}
	off, err := constInt(ectx, l.plan.Offset, 0)
	if err != nil {
		return err
	}
	if off < 0 {
		return sqlerr.New("2201X", "OFFSET must not be negative")
	}
	l.remaining, l.skip = lim, off
	return nil
}

func (l *limitOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !l.started {
		if err := l.start(); err != nil {
			return nil, err
		}
	}
	for {
		if l.remaining == 0 {
			return l.nextTies(ctx)
		}
		if err := checkCancel(ctx, l.env); err != nil {
			return nil, err
		}
		in, err := l.input.Next(ctx)
		if err != nil || in == nil {
			return nil, err
		}
		n := in.NumRows()
		if l.skip >= n {
			l.skip -= n
			continue
		}
		start := l.skip
		l.skip = 0
		end := n
		if l.remaining >= 0 && end-start > l.remaining {
			end = start + l.remaining
		}
		if l.remaining >= 0 {
			l.remaining -= end - start
			if l.remaining == 0 {
				l.reached(in, end)
			}
		}
		if start == 0 && end == n {
			return in, nil
		}
		return in.NewSlice(start, end), nil
	}
}

func (l *limitOp) Close() { l.input.Close() }
