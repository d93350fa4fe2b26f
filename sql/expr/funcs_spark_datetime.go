package expr

import (
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Databricks' datetime functions with Spark patterns: to_timestamp(str,
// fmt) and to_date(str, fmt) (shared with PostgreSQL: funcs_spark_dialect.go
// tells whose format it is), to_date(str), try_to_timestamp, date_format,
// unix_timestamp, to_unix_timestamp and from_unixtime. Databricks SQL runs
// in ANSI mode, so text that does not match its pattern is an error
// (22007, Databricks' CANNOT_PARSE_TIMESTAMP) and only the try_ functions
// return NULL. The kernels compile a format when it differs from the
// previous row's: a constant format once per batch (and through
// sparkPatternCache once per process).

// sparkDefaultFormat is the pattern unix_timestamp and from_unixtime use
// when none is given.
const sparkDefaultFormat = "yyyy-MM-dd HH:mm:ss"

// datetimeFormatMemo holds the last format a kernel compiled.
type datetimeFormatMemo struct {
	format string
	have   bool
	spark  *sparkPattern // nil: PostgreSQL's template (shared names only)
	err    error
}

// get compiles format; shared says the function is also PostgreSQL's, so
// the format chooses whose it is.
func (m *datetimeFormatMemo) get(format string, shared bool) (*sparkPattern, error) {
	if m.have && format == m.format {
		return m.spark, m.err
	}
	m.format, m.have, m.spark, m.err = format, true, nil, nil
	if shared && !isSparkDatetimeFormat(format) {
		return nil, nil
	}
	m.spark, m.err = compileSparkPattern(format)
	return m.spark, m.err
}

// parseSparkText parses s by p into a UTC instant (session zone loc).
func parseSparkText(p *sparkPattern, s string, loc *time.Location) (int64, error) {
	if p.formatOnly != 0 {
		return 0, errSparkParseLetter(p.formatOnly)
	}
	r, at, ok := p.parse(s)
	if !ok {
		return 0, sparkParseError(s, at)
	}
	us, ok := r.instant(loc)
	if !ok {
		return 0, sparkParseError(s, 0)
	}
	return us, nil
}

func errSparkParseLetter(c byte) error {
	return sqlerr.New(sqlerr.InvalidDatetimeFormat, "invalid datetime pattern: '%c' is for formatting only, not for parsing", c).
		WithHint("Spark allows E, F, q and Q in date_format, not in to_timestamp or to_date.")
}

// textFormatKernel runs text, format -> timestamptz (date: -> date) for
// to_timestamp, to_date, try_to_timestamp and (to_)unix_timestamp.
// shared: the name is PostgreSQL's too; try: NULL instead of a parse
// error; out is the result's kind.
func textFormatKernel(shared, try bool, out types.T) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		sa, ok1 := args[0].(*array.String)
		var fa *array.String
		ok2 := true
		if len(args) > 1 {
			fa, ok2 = args[1].(*array.String)
		}
		if !ok1 || !ok2 {
			return nil, sqlerr.New(sqlerr.InternalError, "to_timestamp: unexpected argument columns")
		}
		loc := ctx.location()
		b := NewBuilder(ctx.Allocator(), out)
		defer b.Release()
		b.Reserve(n)
		appendNull := b.AppendNull
		appendUs := func(us int64) {
			switch bb := b.(type) {
			case *array.TimestampBuilder:
				bb.UnsafeAppend(arrow.Timestamp(us))
			case *array.Date32Builder:
				bb.UnsafeAppend(arrow.Date32(floorDiv(toLocal(us, loc), usPerDay)))
			case *array.Int64Builder:
				bb.UnsafeAppend(floorDiv(us, usPerSec))
			}
		}
		var memo datetimeFormatMemo
		for i := 0; i < n; i++ {
			if i&255 == 255 && ctx.Canceled() {
				return nil, errCanceled()
			}
			if sa.IsNull(i) || fa != nil && fa.IsNull(i) {
				appendNull()
				continue
			}
			format := sparkDefaultFormat
			if fa != nil {
				format = fa.Value(i)
			}
			p, err := memo.get(format, shared)
			if err != nil {
				return nil, err
			}
			if p != nil && p.formatOnly != 0 {
				return nil, errSparkParseLetter(p.formatOnly)
			}
			s := sa.Value(i)
			if p == nil {
				// PostgreSQL's template.
				var d Datum
				if out.OID == types.OidDate {
					d, err = toDateText(s, format)
				} else {
					d, err = toTimestampText(ctx, s, format)
				}
				if err != nil {
					return nil, err
				}
				AppendDatum(b, d)
				continue
			}
			us, err := parseSparkText(p, s, loc)
			if err != nil {
				if try {
					appendNull()
					continue
				}
				return nil, err
			}
			appendUs(us)
		}
		return b.NewArray(), nil
	}
}

// sparkCastTimestamp is Spark's cast of text to a timestamp (to_timestamp
// and unix_timestamp without a format, date_format of text): a timestamp
// literal in the session zone unless it names one, with Spark's 'T'
// separator accepted.
func sparkCastTimestamp(s string, loc *time.Location) (int64, error) {
	return types.ParseTimestampTZ(strings.TrimSpace(s), loc)
}

// dateFormatKernel is date_format(value, fmt) and from_unixtime(secs,
// fmt): each value becomes an instant, formatted in the session zone.
// kind is the first argument's type.
func dateFormatKernel(kind types.T) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		var fa *array.String
		if len(args) > 1 {
			var ok bool
			if fa, ok = args[1].(*array.String); !ok {
				return nil, sqlerr.New(sqlerr.InternalError, "date_format: unexpected format column")
			}
		}
		loc := ctx.location()
		zone := zoneMemo{loc: loc}
		zoneID := loc.String()
		b := newTextBuilder(ctx, n, n*20)
		defer b.Release()
		var memo datetimeFormatMemo
		var buf []byte
		var v sparkInstant
		v.zoneID = zoneID
		for i := 0; i < n; i++ {
			if i&255 == 255 && ctx.Canceled() {
				return nil, errCanceled()
			}
			if args[0].IsNull(i) || fa != nil && fa.IsNull(i) {
				b.AppendNull()
				continue
			}
			format := sparkDefaultFormat
			if fa != nil {
				format = fa.Value(i)
			}
			p, err := memo.get(format, false)
			if err != nil {
				return nil, err
			}
			inst, local := int64(0), false
			switch a := args[0].(type) {
			case *array.Timestamp:
				inst = int64(a.Value(i))
				local = kind.OID == types.OidTimestamp
			case *array.Date32:
				inst, local = int64(a.Value(i))*usPerDay, true
			case *array.Int64:
				sec := a.Value(i)
				if sec > 9223372036854 || sec < -9223372036854 {
					return nil, sqlerr.New(sqlerr.DatetimeFieldOverflow, "timestamp out of range")
				}
				inst = sec * usPerSec
			case *array.String:
				if inst, err = sparkCastTimestamp(a.Value(i), loc); err != nil {
					return nil, err
				}
			default:
				return nil, sqlerr.New(sqlerr.InternalError, "date_format: unexpected value column")
			}
			if local {
				// A timestamp without zone or a date is a wall clock: it
				// is shown as is, with the session zone's offset then.
				v.wall = inst
				inst = fromLocal(inst, loc)
			}
			name, off := zone.at(floorDiv(inst, usPerSec))
			v.abbrev, v.offset = name, off
			if !local {
				v.wall = inst + off*usPerSec
			}
			buf = p.appendFormat(buf[:0], &v)
			b.BinaryBuilder.Append(buf)
		}
		return b.NewArray(), nil
	}
}

// unixSecondsKernel is unix_timestamp of a timestamp or date (its
// format, if any, is ignored as Databricks ignores it).
func unixSecondsKernel(kind types.T) ScalarImpl {
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		loc := ctx.location()
		b := NewBuilder(ctx.Allocator(), types.Int8).(*array.Int64Builder)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if args[0].IsNull(i) {
				b.AppendNull()
				continue
			}
			var us int64
			switch a := args[0].(type) {
			case *array.Timestamp:
				us = int64(a.Value(i))
				if kind.OID == types.OidTimestamp {
					us = fromLocal(us, loc)
				}
			case *array.Date32:
				us = fromLocal(int64(a.Value(i))*usPerDay, loc)
			}
			b.UnsafeAppend(floorDiv(us, usPerSec))
		}
		return b.NewArray(), nil
	}
}

func init() {
	tt := []types.T{types.Text, types.Text}
	RegisterScalar("to_timestamp", Overload{Args: tt, Ret: types.TimestampTZ, Impl: textFormatKernel(true, false, types.TimestampTZ)})
	RegisterScalar("to_date",
		Overload{Args: tt, Ret: types.Date, Impl: textFormatKernel(true, false, types.Date)},
		// Databricks: to_date(str) is cast(str AS DATE).
		Overload{Args: []types.T{types.Text}, Ret: types.Date, Impl: Strict(types.Date, func(ctx *Ctx, a []Datum) (Datum, error) {
			s := strings.TrimSpace(s0(a, 0))
			if d, err := types.ParseDate(s); err == nil {
				return int64(d), nil
			}
			us, err := sparkCastTimestamp(s, ctx.location())
			if err != nil {
				return nil, sqlerr.New(sqlerr.InvalidDatetimeFormat, "invalid input syntax for type date: \"%s\"", s)
			}
			return floorDiv(toLocal(us, ctx.location()), usPerDay), nil
		})},
	)
	// to_date(ts) as Databricks has it: the date of a timestamp (in the
	// session zone for timestamptz); PostgreSQL has no to_date of one
	// argument.
	for _, t := range []types.T{types.TimestampTZ, types.Timestamp, types.Date} {
		t := t
		RegisterScalar("to_date", Overload{Args: []types.T{t}, Ret: types.Date, Impl: func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			loc := ctx.location()
			b := NewBuilder(ctx.Allocator(), types.Date).(*array.Date32Builder)
			defer b.Release()
			b.Reserve(n)
			for i := 0; i < n; i++ {
				if args[0].IsNull(i) {
					b.AppendNull()
					continue
				}
				b.UnsafeAppend(arrow.Date32(sparkDay(args[0], i, t, loc)))
			}
			return b.NewArray(), nil
		}})
	}
	RegisterScalar("try_to_timestamp",
		Overload{Args: tt, Ret: types.TimestampTZ, Impl: textFormatKernel(false, true, types.TimestampTZ)},
		Overload{Args: []types.T{types.Text}, Ret: types.TimestampTZ, Impl: Strict(types.TimestampTZ, func(ctx *Ctx, a []Datum) (Datum, error) {
			us, err := sparkCastTimestamp(s0(a, 0), ctx.location())
			if err != nil {
				return nil, nil
			}
			return us, nil
		})},
	)
	for _, t := range []types.T{types.TimestampTZ, types.Timestamp, types.Date, types.Text} {
		RegisterScalar("date_format", Overload{Args: []types.T{t, types.Text}, Ret: types.Text, Impl: dateFormatKernel(t)})
	}
	RegisterScalar("from_unixtime",
		Overload{Args: []types.T{types.Int8}, Ret: types.Text, Impl: dateFormatKernel(types.Int8)},
		Overload{Args: []types.T{types.Int8, types.Text}, Ret: types.Text, Impl: dateFormatKernel(types.Int8)},
	)
	RegisterScalar("unix_timestamp", Overload{Args: nil, Ret: types.Int8, Impl: constFn(types.Int8, func(ctx *Ctx) Datum { return floorDiv(nowUs(ctx), usPerSec) })})
	for _, name := range []string{"unix_timestamp", "to_unix_timestamp"} {
		RegisterScalar(name,
			Overload{Args: []types.T{types.Text}, Ret: types.Int8, Impl: textFormatKernel(false, false, types.Int8)},
			Overload{Args: tt, Ret: types.Int8, Impl: textFormatKernel(false, false, types.Int8)},
		)
		for _, t := range []types.T{types.TimestampTZ, types.Timestamp, types.Date} {
			RegisterScalar(name,
				Overload{Args: []types.T{t}, Ret: types.Int8, Impl: unixSecondsKernel(t)},
				Overload{Args: []types.T{t, types.Text}, Ret: types.Int8, Impl: unixSecondsKernel(t)},
			)
		}
	}
}
