package exec

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// functionScanOp runs a set-returning function in FROM: generate_series
// over integers, numerics and timestamps, and unnest of arrays. Arguments
// are evaluated once; rows are produced lazily, BatchSize at a time. WITH
// ORDINALITY appends an int8 column counting from 1.
type functionScanOp struct {
	env     *Env
	plan    *planner.FunctionScan
	schema  *arrow.Schema
	started bool
	done    bool
	ord     int64
	gen     rowGenerator
}

var _ Operator = (*functionScanOp)(nil)

// rowGenerator appends up to max rows of the function's own columns to bs
// and reports how many; 0 means exhausted.
type rowGenerator func(bs []array.Builder, max int) (int, error)

func (f *functionScanOp) start() error {
	ectx := f.env.exprCtx()
	args := make([]expr.Datum, len(f.plan.Args))
	one := oneRow()
	for i, e := range f.plan.Args {
		arr, err := e.Eval(ectx, one)
		if err != nil {
			return err
		}
		args[i] = expr.DatumAt(arr, 0)
	}
	switch f.plan.Func {
	case "generate_series":
		return f.startSeries(ectx, args)
	case "unnest":
		arrays := make([][]expr.Datum, len(args))
		n := 0
		for i, a := range args {
			if a != nil {
				arrays[i], _ = a.([]expr.Datum)
			}
			n = max(n, len(arrays[i]))
		}
		pos := 0
		f.gen = func(bs []array.Builder, limit int) (int, error) {
			k := 0
			for ; pos < n && k < limit; pos, k = pos+1, k+1 {
				for c, arr := range arrays {
					if pos < len(arr) {
						expr.AppendDatum(bs[c], arr[pos])
					} else {
						bs[c].AppendNull()
					}
				}
			}
			return k, nil
		}
		return nil
	case "aclexplode":
		return f.startACLExplode(ectx, args[0])
	case "nexmark":
		return f.startNexmark(args)
	}
	return sqlerr.New(sqlerr.FeatureNotSupported, "function %s is not supported in FROM", f.plan.Func)
}

func (f *functionScanOp) startSeries(ectx *expr.Ctx, args []expr.Datum) error {
	if len(args) < 2 || len(args) > 3 || len(f.plan.Cols) == 0 {
		return sqlerr.New(sqlerr.UndefinedFunction, "function generate_series with %d arguments does not exist", len(args))
	}
	for _, a := range args {
		if a == nil {
			f.done = true // strict: NULL argument, no rows
			return nil
		}
	}
	t := f.plan.Cols[0].T
	switch t.OID {
	case types.OidInt2, types.OidInt4, types.OidInt8:
		start, ok1 := args[0].(int64)
		stop, ok2 := args[1].(int64)
		step, ok3 := int64(1), true
		if len(args) == 3 {
			step, ok3 = args[2].(int64)
		}
		if !ok1 || !ok2 || !ok3 {
			return sqlerr.New(sqlerr.DatatypeMismatch, "generate_series arguments must be integers")
		}
		if step == 0 {
			return sqlerr.New(sqlerr.InvalidParameterValue, "step size cannot equal zero")
		}
		cur, finished := start, false
		f.gen = func(bs []array.Builder, limit int) (int, error) {
			k := 0
			for ; !finished && k < limit; k++ {
				if (step > 0 && cur > stop) || (step < 0 && cur < stop) {
					break
				}
				switch b := bs[0].(type) {
				case *array.Int64Builder:
					b.Append(cur)
				case *array.Int32Builder:
					b.Append(int32(cur))
				case *array.Int16Builder:
					b.Append(int16(cur))
				}
				next := cur + step
				if (step > 0 && next < cur) || (step < 0 && next > cur) {
					finished = true // overflow: cur was the last value
				}
				cur = next
			}
			return k, nil
		}
	case types.OidNumeric:
		var start, stop, step apd.Decimal
		if err := parseNumeric(&start, args[0]); err != nil {
			return err
		}
		if err := parseNumeric(&stop, args[1]); err != nil {
			return err
		}
		step.SetInt64(1)
		if len(args) == 3 {
			if err := parseNumeric(&step, args[2]); err != nil {
				return err
			}
		}
		if step.IsZero() {
			return sqlerr.New(sqlerr.InvalidParameterValue, "step size cannot equal zero")
		}
		for _, d := range []*apd.Decimal{&start, &stop, &step} {
			if d.Form != apd.Finite {
				return sqlerr.New(sqlerr.InvalidParameterValue, "start, stop and step values cannot be NaN")
			}
		}
		cur := start
		neg := step.Negative
		f.gen = func(bs []array.Builder, limit int) (int, error) {
			k := 0
			b := bs[0].(*array.StringBuilder)
			for ; k < limit; k++ {
				c := cur.Cmp(&stop)
				if (!neg && c > 0) || (neg && c < 0) {
					break
				}
				b.Append(cur.Text('f'))
				if _, err := apd.BaseContext.WithPrecision(1000).Add(&cur, &cur, &step); err != nil {
					return k, err
				}
			}
			return k, nil
		}
	case types.OidTimestamp, types.OidTimestampTZ:
		if len(args) != 3 {
			return sqlerr.New(sqlerr.UndefinedFunction, "function generate_series(%s, %s) does not exist", t, t)
		}
		start, ok1 := args[0].(int64)
		stop, ok2 := args[1].(int64)
		step, ok := args[2].(arrow.MonthDayNanoInterval)
		if !ok || !ok1 || !ok2 {
			return sqlerr.New(sqlerr.DatatypeMismatch, "generate_series step must be an interval")
		}
		span := intervalSpan(step)
		if span == 0 {
			return sqlerr.New(sqlerr.InvalidParameterValue, "step size cannot equal zero")
		}
		loc := time.UTC
		if t.OID == types.OidTimestampTZ && ectx.Location != nil {
			loc = ectx.Location
		}
		cur, wrapped := start, false
		f.gen = func(bs []array.Builder, limit int) (int, error) {
			k := 0
			b := bs[0].(*array.TimestampBuilder)
			for ; k < limit; k++ {
				if (span > 0 && cur > stop) || (span < 0 && cur < stop) {
					break
				}
				// An infinite start, or a series that runs past the last
				// timestamp towards an infinite stop: PostgreSQL's error.
				if cur == types.TimestampInfinity || cur == types.TimestampNegInfinity || !types.ValidTimestamp(cur) || wrapped {
					return k, sqlerr.New(sqlerr.DatetimeFieldOverflow, "timestamp out of range")
				}
				b.Append(arrow.Timestamp(cur))
				next := addInterval(cur, step, loc)
				// Past the end of int64 microseconds the sum wraps around.
				wrapped = (span > 0 && next < cur) || (span < 0 && next > cur)
				cur = next
			}
			return k, nil
		}
	default:
		return sqlerr.New(sqlerr.UndefinedFunction, "function generate_series(%s, %s) does not exist", t, t)
	}
	return nil
}

func parseNumeric(d *apd.Decimal, v expr.Datum) error {
	switch x := v.(type) {
	case string:
		if _, _, err := d.SetString(x); err != nil {
			return sqlerr.New(sqlerr.InvalidTextRepresentation, "invalid input syntax for type numeric: %q", x)
		}
	case int64:
		d.SetInt64(x)
	default:
		return sqlerr.New(sqlerr.DatatypeMismatch, "generate_series argument is not numeric")
	}
	return nil
}

// addInterval adds an interval to a timestamp in microseconds: months and
// days on the calendar in loc (the session zone for timestamptz), then the
// time part.
func addInterval(ts int64, iv arrow.MonthDayNanoInterval, loc *time.Location) int64 {
	if iv.Months != 0 || iv.Days != 0 {
		t := time.UnixMicro(ts).In(loc)
		y, m, d := t.Date()
		// Clamp the day to the target month's length, as PostgreSQL does.
		tm := time.Date(y, m+time.Month(iv.Months), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
		last := time.Date(tm.Year(), tm.Month()+1, 0, 0, 0, 0, 0, loc).Day()
		if d > last {
			d = last
		}
		t = time.Date(tm.Year(), tm.Month(), d+int(iv.Days), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
		ts = t.UnixMicro()
	}
	return ts + iv.Nanoseconds/1000
}

func (f *functionScanOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := checkCancel(ctx, f.env); err != nil {
		return nil, err
	}
	if !f.started {
		f.started = true
		if err := f.start(); err != nil {
			return nil, err
		}
	}
	if f.done || f.gen == nil {
		return nil, nil
	}
	mem := f.env.exprCtx().Allocator()
	cols := f.plan.Cols
	nfunc := len(cols)
	if f.plan.WithOrdinality {
		nfunc--
	}
	bs := make([]array.Builder, len(cols))
	for c := range cols {
		bs[c] = expr.NewBuilder(mem, cols[c].T)
		defer bs[c].Release()
	}
	n, err := f.gen(bs[:nfunc], BatchSize)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		f.done = true
		return nil, nil
	}
	if f.plan.WithOrdinality {
		ob, ok := bs[nfunc].(*array.Int64Builder)
		for i := 0; i < n; i++ {
			f.ord++
			if ok {
				ob.Append(f.ord)
			} else {
				expr.AppendDatum(bs[nfunc], f.ord)
			}
		}
	}
	out := make([]arrow.Array, len(bs))
	for c, b := range bs {
		out[c] = b.NewArray()
	}
	return array.NewRecordBatch(f.schema, out, int64(n)), nil
}

func (f *functionScanOp) Close() {}

// startACLExplode produces aclexplode's rows (sql/expr's AclExplode):
// none for a NULL ACL, as the function is strict. The scan's columns say
// which fields it yields: all four in FROM, one for a field selected in a
// select list.
func (f *functionScanOp) startACLExplode(ectx *expr.Ctx, acl expr.Datum) error {
	items, _ := acl.([]expr.Datum)
	rows, err := expr.AclExplode(ectx, items)
	if err != nil {
		return err
	}
	fields := make([]func(r *expr.AclExplodeRow) expr.Datum, 0, len(f.plan.Cols))
	for _, c := range f.plan.Cols {
		switch c.Name {
		case "grantor":
			fields = append(fields, func(r *expr.AclExplodeRow) expr.Datum { return int64(r.Grantor) })
		case "grantee":
			fields = append(fields, func(r *expr.AclExplodeRow) expr.Datum { return int64(r.Grantee) })
		case "privilege_type":
			fields = append(fields, func(r *expr.AclExplodeRow) expr.Datum { return r.Privilege })
		case "is_grantable":
			fields = append(fields, func(r *expr.AclExplodeRow) expr.Datum { return r.Grantable })
		}
	}
	pos := 0
	f.gen = func(bs []array.Builder, limit int) (int, error) {
		k := 0
		for ; pos < len(rows) && k < limit; pos, k = pos+1, k+1 {
			for i, field := range fields {
				if i < len(bs) {
					expr.AppendDatum(bs[i], field(&rows[pos]))
				}
			}
		}
		return k, nil
	}
	return nil
}
