package expr

import (
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/types"
)

// Typed kernels for extract / date_part and date_trunc over timestamp
// and timestamptz columns: the values are read from the Arrow column and
// written into one builder, the unit is normalised once for a run of rows
// with the same unit text (a constant unit: once per batch), and nothing
// is boxed per row. They compute what the row-wise extractTimestamp and
// truncTimestamp compute (the same functions underneath).

// extractKernel is extract(unit FROM ts) (numeric result) or date_part
// (float8) for ts of type t (timestamp or timestamptz).
// rowWise computes the same row at a time (for columns of another shape).
func extractKernel(numeric bool, t types.T, rowWise ScalarImpl) ScalarImpl {
	tz := t.OID == types.OidTimestampTZ
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		ua, ok1 := args[0].(*array.String)
		ta, ok2 := args[1].(*array.Timestamp)
		if !ok1 || !ok2 {
			return rowWise(ctx, args, n)
		}
		zone := zoneMemo{loc: ctx.location()}
		var nb *array.StringBuilder
		var fb *array.Float64Builder
		if numeric {
			nb = NewBuilder(ctx.Allocator(), types.Numeric).(*array.StringBuilder)
			defer nb.Release()
			nb.Reserve(n)
			nb.ReserveData(n * 4)
		} else {
			fb = NewBuilder(ctx.Allocator(), types.Float8).(*array.Float64Builder)
			defer fb.Release()
			fb.Reserve(n)
		}
		appendNull := func() {
			if numeric {
				nb.AppendNull()
			} else {
				fb.AppendNull()
			}
		}
		vals := ta.TimestampValues()
		var lastUnit, norm string
		haveUnit := false
		var buf []byte
		for i := 0; i < n; i++ {
			if ua.IsNull(i) || ta.IsNull(i) {
				appendNull()
				continue
			}
			if u := ua.Value(i); !haveUnit || u != lastUnit {
				lastUnit, norm, haveUnit = u, normalizeUnit(u), true
			}
			inst := int64(vals[i])
			wall, off := inst, int64(0)
			if tz {
				wall = zone.toLocal(inst)
				off = (wall - inst) / usPerSec
			}
			if norm == "julian" && !numeric {
				fb.UnsafeAppend(julianFloat(wall))
				continue
			}
			d, ok, err := extractTimestampDec(norm, lastUnit, wall, inst, t, tz, off)
			if err != nil {
				return nil, err
			}
			if !ok {
				s, err := extractTimestamp(lastUnit, wall, inst, t, tz, off)
				if err != nil {
					return nil, err
				}
				if numeric {
					nb.Append(s)
				} else {
					fb.UnsafeAppend(toFloatText(s))
				}
				continue
			}
			if numeric {
				buf = appendFastDec(buf[:0], d)
				nb.BinaryBuilder.Append(buf)
			} else {
				fb.UnsafeAppend(fastDecFloat(d))
			}
		}
		if numeric {
			return nb.NewArray(), nil
		}
		return fb.NewArray(), nil
	}
}

// fastDecFloat is the float8 nearest to d, as strconv.ParseFloat of its
// text gives it: a quotient of two exact doubles is correctly rounded, so
// only coefficients past 2^53 go through text.
func fastDecFloat(d fastDec) float64 {
	if d.scale == 0 && d.coef > -1<<53 && d.coef < 1<<53 {
		return float64(d.coef)
	}
	if d.coef > -1<<53 && d.coef < 1<<53 && int(d.scale) < 23 {
		return float64(d.coef) / math.Pow10(int(d.scale))
	}
	f, _ := strconv.ParseFloat(string(appendFastDec(nil, d)), 64)
	return f
}

// dateTruncKernel is date_trunc(unit, ts) for ts of type t.
func dateTruncKernel(t types.T, rowWise ScalarImpl) ScalarImpl {
	tz := t.OID == types.OidTimestampTZ
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		ua, ok1 := args[0].(*array.String)
		ta, ok2 := args[1].(*array.Timestamp)
		if !ok1 || !ok2 {
			return rowWise(ctx, args, n)
		}
		loc := ctx.location()
		b := NewBuilder(ctx.Allocator(), t).(*array.TimestampBuilder)
		defer b.Release()
		b.Reserve(n)
		vals := ta.TimestampValues()
		var lastUnit, norm string
		haveUnit := false
		for i := 0; i < n; i++ {
			if ua.IsNull(i) || ta.IsNull(i) {
				b.AppendNull()
				continue
			}
			if u := ua.Value(i); !haveUnit || u != lastUnit {
				lastUnit, norm, haveUnit = u, normalizeUnit(u), true
			}
			v := int64(vals[i])
			var r int64
			var err error
			if tz {
				r, err = truncTimestampTZ(norm, v, loc)
			} else {
				r, err = truncTimestamp(norm, v, t)
			}
			if err != nil {
				return nil, err
			}
			b.UnsafeAppend(arrow.Timestamp(r))
		}
		return b.NewArray(), nil
	}
}

// toCharTimestampKernel is to_char(ts, format) for ts of type t: the
// format is parsed once for a run of rows with the same format text (a
// constant format: once per batch) and every row is formatted into one
// buffer (appendDCH). rowWise handles columns of another shape.
func toCharTimestampKernel(t types.T, rowWise ScalarImpl) ScalarImpl {
	tz := t.OID == types.OidTimestampTZ
	return func(ctx *Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		ta, ok1 := args[0].(*array.Timestamp)
		fa, ok2 := args[1].(*array.String)
		if !ok1 || !ok2 {
			return rowWise(ctx, args, n)
		}
		loc := ctx.location()
		zone := zoneMemo{loc: loc}
		b := NewBuilder(ctx.Allocator(), types.Text).(*array.StringBuilder)
		defer b.Release()
		b.Reserve(n)
		var lastFormat string
		var nodes []fmtNode
		haveFormat := false
		vals := ta.TimestampValues()
		var buf []byte
		for i := 0; i < n; i++ {
			if ta.IsNull(i) || fa.IsNull(i) {
				b.AppendNull()
				continue
			}
			if f := fa.Value(i); !haveFormat || f != lastFormat {
				lastFormat, haveFormat = f, true
				nodes = parseFormat(f, dchKeys, true)
				if i == 0 {
					b.ReserveData(n * len(f))
				}
			}
			us := int64(vals[i])
			if us == types.TimestampInfinity || us == types.TimestampNegInfinity || lastFormat == "" {
				b.AppendNull()
				continue
			}
			var tm fmtTm
			if tz {
				name, off := zone.at(floorDiv(us, usPerSec))
				tm = tmFromWall(us + off*usPerSec)
				tm.tzn, tm.gmtoff = name, off
			} else {
				tm = tmFromWall(us)
			}
			var err error
			if buf, err = appendDCH(buf[:0], nodes, &tm); err != nil {
				return nil, err
			}
			b.BinaryBuilder.Append(buf)
		}
		return b.NewArray(), nil
	}
}

// zoneMemo is the zone period (name and UTC offset, and the span of
// instants they hold for) of the last instant looked up: the rows of a
// column mostly fall in one period, so a lookup in the time zone's rules
// is made once per period change instead of per row.
type zoneMemo struct {
	loc      *time.Location
	have     bool
	from, to int64 // [from, to) in Unix seconds
	name     string
	off      int64 // seconds east of UTC
}

// at returns the zone name and offset in force at Unix second sec.
func (z *zoneMemo) at(sec int64) (string, int64) {
	if z.have && sec >= z.from && sec < z.to {
		return z.name, z.off
	}
	t := time.Unix(sec, 0).In(z.loc)
	name, off := t.Zone()
	start, end := t.ZoneBounds()
	z.from, z.to = int64(math.MinInt64), int64(math.MaxInt64)
	if !start.IsZero() {
		z.from = start.Unix()
	}
	if !end.IsZero() {
		z.to = end.Unix()
	}
	z.have, z.name, z.off = true, name, int64(off)
	return name, z.off
}

// toLocal is toLocal(us, z.loc) through the memo.
func (z *zoneMemo) toLocal(us int64) int64 {
	if z.loc == nil || z.loc == time.UTC {
		return us
	}
	_, off := z.at(floorDiv(us, usPerSec))
	return us + off*usPerSec
}
