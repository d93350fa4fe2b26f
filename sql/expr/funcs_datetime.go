package expr

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cockroachdb/apd/v3"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Date/time functions.

func nowUs(ctx *Ctx) int64 { return ctx.Now.UnixMicro() }

// microsDecimal renders v/10^scale as a numeric with that scale.
func microsDecimal(v int64, scale int32) string { return formatNumeric(apd.New(v, -scale)) }

func errUnitNotSupported(unit string, t types.T) error {
	return sqlerr.New(sqlerr.FeatureNotSupported, "unit \"%s\" not supported for type %s", unit, t)
}

func errUnitNotRecognized(unit string, t types.T) error {
	return sqlerr.New(sqlerr.InvalidParameterValue, "unit \"%s\" not recognized for type %s", unit, t)
}

// normalizeUnit maps the spellings PostgreSQL accepts to one name.
func normalizeUnit(u string) string {
	u = strings.ToLower(strings.TrimSpace(u))
	switch u {
	case "y", "year", "years", "yr", "yrs":
		return "year"
	case "mon", "mons", "month", "months":
		return "month"
	case "d", "day", "days":
		return "day"
	case "h", "hour", "hours", "hr", "hrs":
		return "hour"
	case "m", "min", "mins", "minute", "minutes":
		return "minute"
	case "s", "sec", "secs", "second", "seconds":
		return "second"
	case "ms", "msec", "msecs", "millisecond", "milliseconds":
		return "milliseconds"
	case "us", "usec", "usecs", "microsecond", "microseconds":
		return "microseconds"
	case "w", "week", "weeks":
		return "week"
	case "qtr", "quarter":
		return "quarter"
	case "decade", "decades", "dec":
		return "decade"
	case "century", "centuries", "c", "cent":
		return "century"
	case "millennium", "millennia", "mil", "mils":
		return "millennium"
	}
	return u
}

// extractTimestamp returns field of a wall-clock timestamp as a numeric
// text (extract's result); epochUs is the instant for "epoch".
func extractTimestamp(unit string, wall, epochUs int64, t types.T, loc bool, offsetSec int64) (string, error) {
	norm := normalizeUnit(unit)
	d, ok, err := extractTimestampDec(norm, unit, wall, epochUs, t, loc, offsetSec)
	if err != nil {
		return "", err
	}
	if ok {
		return string(appendFastDec(nil, d)), nil
	}
	// julian: the day number plus the fraction of the day, as PostgreSQL
	// computes it: numeric division of the time of day in microseconds by
	// a day's (with numeric_div's scale).
	days := floorDiv(wall, usPerDay)
	frac, err := numDiv(apd.New(wall-days*usPerDay, 0), apd.New(usPerDay, 0))
	if err != nil {
		return "", err
	}
	r, err := numAdd(apd.New(days+2440588, 0), frac)
	if err != nil {
		return "", err
	}
	return formatNumeric(r), nil
}

// julianFloat is date_part('julian', ts): PostgreSQL's float8 formula.
func julianFloat(wall int64) float64 {
	days := floorDiv(wall, usPerDay)
	tod := wall - days*usPerDay
	sec := tod / usPerSec
	return float64(days+2440588) + (float64(sec)+float64(tod%usPerSec)/1000000.0)/float64(86400)
}

// extractTimestampDec is extractTimestamp for a normalised unit (norm)
// without text: the field as coefficient and scale. ok is false for
// "julian", whose value is computed through text by extractTimestamp.
// The typed kernels call it per row.
func extractTimestampDec(norm, unit string, wall, epochUs int64, t types.T, loc bool, offsetSec int64) (fastDec, bool, error) {
	int0 := func(v int64) (fastDec, bool, error) { return fastDec{v, 0}, true, nil }
	// The time-of-day fields need no calendar.
	switch norm {
	case "hour":
		return int0(floorMod(wall, usPerDay) / usPerHour)
	case "minute":
		return int0(floorMod(wall, usPerDay) / usPerMin % 60)
	case "second":
		return fastDec{floorMod(wall, usPerMin), 6}, true, nil
	case "milliseconds":
		return fastDec{floorMod(wall, usPerMin), 3}, true, nil
	case "microseconds":
		return int0(floorMod(wall, usPerMin))
	case "epoch":
		return fastDec{epochUs, 6}, true, nil
	}
	days := floorDiv(wall, usPerDay)
	switch norm {
	case "dow":
		return int0(floorMod(days+4, 7))
	case "isodow":
		d := floorMod(days+4, 7)
		if d == 0 {
			d = 7
		}
		return int0(d)
	case "week":
		_, wk := isoWeek(days)
		return int0(wk)
	case "isoyear":
		y, _ := isoWeek(days)
		if y <= 0 { // 1 BC is -1, as for year
			y--
		}
		return int0(y)
	case "julian":
		return fastDec{}, false, nil
	case "timezone", "timezone_hour", "timezone_minute":
		if !loc {
			return fastDec{}, false, errUnitNotSupported(unit, t)
		}
		switch norm {
		case "timezone":
			return int0(offsetSec)
		case "timezone_hour":
			return int0(offsetSec / 3600)
		}
		return int0(offsetSec / 60 % 60)
	}
	y, mon, d := civil(days)
	switch norm {
	case "year":
		if y <= 0 {
			return int0(y - 1)
		}
		return int0(y)
	case "month":
		return int0(mon)
	case "day":
		return int0(d)
	case "doy":
		return int0(days - daysFromCivil(y, 1, 1) + 1)
	case "quarter":
		return int0((mon-1)/3 + 1)
	case "decade":
		if y <= 0 {
			return int0(-((8 - (y - 1)) / 10))
		}
		return int0(y / 10)
	case "century":
		if y > 0 {
			return int0((y + 99) / 100)
		}
		return int0(-((99 - (y - 1)) / 100))
	case "millennium":
		if y > 0 {
			return int0((y + 999) / 1000)
		}
		return int0(-((999 - (y - 1)) / 1000))
	}
	return fastDec{}, false, errUnitNotRecognized(unit, t)
}

// isoWeek returns the ISO year and week of a day number.
func isoWeek(days int64) (int64, int64) {
	dow := floorMod(days+3, 7) // Monday = 0
	thursday := days - dow + 3
	y, _, _ := civil(thursday)
	jan1 := daysFromCivil(y, 1, 1)
	return y, (thursday-jan1)/7 + 1
}

func extractInterval(unit string, iv arrow.MonthDayNanoInterval) (string, error) {
	us := ivUs(iv)
	itoa := func(v int64) (string, error) { return strconv.FormatInt(v, 10), nil }
	switch normalizeUnit(unit) {
	case "year":
		return itoa(int64(iv.Months) / 12)
	case "month":
		return itoa(int64(iv.Months) % 12)
	case "day":
		return itoa(int64(iv.Days))
	case "hour":
		return itoa(us / usPerHour)
	case "minute":
		return itoa(us / usPerMin % 60)
	case "second":
		return microsDecimal(us%usPerMin, 6), nil
	case "milliseconds":
		return microsDecimal(us%usPerMin, 3), nil
	case "microseconds":
		return itoa(us % usPerMin)
	case "quarter":
		return itoa(int64(iv.Months)%12/3 + 1)
	case "decade":
		return itoa(int64(iv.Months) / 120)
	case "century":
		return itoa(int64(iv.Months) / 1200)
	case "millennium":
		return itoa(int64(iv.Months) / 12000)
	case "epoch":
		// years count 365.25 days, remaining months 30 days.
		m := int64(iv.Months)
		secsUs := (m/12)*36525*864*usPerSec + (m%12)*30*usPerDay + int64(iv.Days)*usPerDay + us
		return microsDecimal(secsUs, 6), nil
	}
	return "", errUnitNotSupported(unit, types.Interval)
}

func extractDate(unit string, days int64) (string, error) {
	switch normalizeUnit(unit) {
	case "hour", "minute", "second", "milliseconds", "microseconds", "timezone", "timezone_hour", "timezone_minute":
		return "", errUnitNotSupported(unit, types.Date)
	case "epoch":
		return strconv.FormatInt(days*86400, 10), nil
	case "julian":
		return strconv.FormatInt(days+2440588, 10), nil
	}
	s, err := extractTimestamp(unit, dateToTimestamp(days), 0, types.Date, false, 0)
	if err != nil {
		return "", err
	}
	return s, nil
}

func toFloatText(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }

// truncTimestampTZ is date_trunc on a timestamptz, as PostgreSQL's
// timestamptz_trunc_internal: the wall clock of loc is truncated; below
// a day the instant keeps its UTC offset (a zone whose offset has seconds
// truncates minutes on the wall clock, and an hour in a repeated hour
// stays in its occurrence), from a day up the offset is that of the
// truncated wall clock.
func truncTimestampTZ(unit string, inst int64, loc *time.Location) (int64, error) {
	wall := toLocal(inst, loc)
	r, err := truncTimestamp(unit, wall, types.TimestampTZ)
	if err != nil {
		return 0, err
	}
	switch unit {
	case "microseconds", "milliseconds", "second", "minute", "hour":
		return r - (wall - inst), nil
	}
	return fromLocal(r, loc), nil
}

// truncTimestamp is date_trunc on a wall-clock timestamp.
func truncTimestamp(unit string, wall int64, t types.T) (int64, error) {
	w := splitTimestamp(wall)
	switch normalizeUnit(unit) {
	case "millennium":
		if w.y > 0 {
			w.y = ((w.y+999)/1000)*1000 - 999
		} else {
			w.y = -((999 - (w.y - 1)) / 1000 * 1000) + 1
		}
		w.mon, w.d = 1, 1
		w.h, w.min, w.s, w.us = 0, 0, 0, 0
	case "century":
		if w.y > 0 {
			w.y = ((w.y+99)/100)*100 - 99
		} else {
			w.y = -((99 - (w.y - 1)) / 100 * 100) + 1
		}
		w.mon, w.d = 1, 1
		w.h, w.min, w.s, w.us = 0, 0, 0, 0
	case "decade":
		if w.y > 0 {
			w.y = (w.y / 10) * 10
		} else {
			w.y = -((8 - (w.y - 1)) / 10 * 10)
		}
		w.mon, w.d = 1, 1
		w.h, w.min, w.s, w.us = 0, 0, 0, 0
	case "year":
		w.mon, w.d = 1, 1
		w.h, w.min, w.s, w.us = 0, 0, 0, 0
	case "quarter":
		w.mon = 3*((w.mon-1)/3) + 1
		w.d = 1
		w.h, w.min, w.s, w.us = 0, 0, 0, 0
	case "month":
		w.d = 1
		w.h, w.min, w.s, w.us = 0, 0, 0, 0
	case "week":
		days := floorDiv(wall, usPerDay)
		days -= floorMod(days+3, 7)
		return days * usPerDay, nil
	case "day":
		w.h, w.min, w.s, w.us = 0, 0, 0, 0
	case "hour":
		w.min, w.s, w.us = 0, 0, 0
	case "minute":
		w.s, w.us = 0, 0
	case "second":
		w.us = 0
	case "milliseconds":
		w.us = w.us / 1000 * 1000
	case "microseconds":
	default:
		return 0, errUnitNotRecognized(unit, t)
	}
	return w.timestamp(), nil
}

func truncInterval(unit string, iv arrow.MonthDayNanoInterval) (arrow.MonthDayNanoInterval, error) {
	m, d, us := int64(iv.Months), int64(iv.Days), ivUs(iv)
	switch normalizeUnit(unit) {
	case "millennium":
		m, d, us = m/12000*12000, 0, 0
	case "century":
		m, d, us = m/1200*1200, 0, 0
	case "decade":
		m, d, us = m/120*120, 0, 0
	case "year":
		m, d, us = m/12*12, 0, 0
	case "quarter":
		m, d, us = m/3*3, 0, 0
	case "month":
		d, us = 0, 0
	case "day":
		us = 0
	case "hour":
		us = us / usPerHour * usPerHour
	case "minute":
		us = us / usPerMin * usPerMin
	case "second":
		us = us / usPerSec * usPerSec
	case "milliseconds":
		us = us / 1000 * 1000
	case "microseconds":
	case "week":
		return iv, sqlerr.New(sqlerr.FeatureNotSupported, "interval units \"%s\" not supported because months usually have fractional weeks", unit)
	default:
		return iv, errUnitNotRecognized(unit, types.Interval)
	}
	return makeIv(int32(m), int32(d), us), nil
}

func makeTimestamp(y, mo, d, h, mi int64, sec float64) (int64, error) {
	if y == 0 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) {
		return 0, sqlerr.New(sqlerr.DatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", y, mo, d)
	}
	if y < 0 {
		y++
	}
	if h < 0 || h > 24 || mi < 0 || mi > 59 || sec < 0 || sec > 60 || (h == 24 && (mi > 0 || sec > 0)) {
		return 0, sqlerr.New(sqlerr.DatetimeFieldOverflow, "time field value out of range: %d:%02d:%s", h, mi, strconv.FormatFloat(sec, 'f', -1, 64))
	}
	us := int64(math.RoundToEven(sec * 1e6))
	return daysFromCivil(y, mo, d)*usPerDay + h*usPerHour + mi*usPerMin + us, nil
}

// age is PostgreSQL's symbolic difference: years, months, days, time.
func age(a, b int64) arrow.MonthDayNanoInterval {
	neg := a < b
	if neg {
		a, b = b, a
	}
	wa, wb := splitTimestamp(a), splitTimestamp(b)
	us := (wa.h*usPerHour + wa.min*usPerMin + wa.s*usPerSec + wa.us) - (wb.h*usPerHour + wb.min*usPerMin + wb.s*usPerSec + wb.us)
	d := wa.d - wb.d
	m := wa.mon - wb.mon
	y := wa.y - wb.y
	if us < 0 {
		us += usPerDay
		d--
	}
	if d < 0 {
		pm, py := wb.mon, wb.y
		d += daysInMonth(py, pm)
		m--
	}
	if m < 0 {
		m += 12
		y--
	}
	iv := makeIv(int32(y*12+m), int32(d), us)
	if neg {
		return negInterval(iv)
	}
	return iv
}

func init() {
	tsNow := func(ret types.T, fn func(ctx *Ctx) Datum) Overload {
		return Overload{Args: nil, Ret: ret, Impl: constFn(ret, fn)}
	}
	for _, name := range []string{"now", "current_timestamp", "transaction_timestamp", "statement_timestamp"} {
		RegisterScalar(name, tsNow(types.TimestampTZ, func(ctx *Ctx) Datum { return nowUs(ctx) }))
	}
	RegisterScalar("localtimestamp", tsNow(types.Timestamp, func(ctx *Ctx) Datum { return toLocal(nowUs(ctx), ctx.location()) }))
	RegisterScalar("current_date", tsNow(types.Date, func(ctx *Ctx) Datum { return floorDiv(toLocal(nowUs(ctx), ctx.location()), usPerDay) }))
	RegisterScalar("current_time", tsNow(types.Time, func(ctx *Ctx) Datum { return floorMod(toLocal(nowUs(ctx), ctx.location()), usPerDay) }))
	RegisterScalar("localtime", tsNow(types.Time, func(ctx *Ctx) Datum { return floorMod(toLocal(nowUs(ctx), ctx.location()), usPerDay) }))
	RegisterScalar("clock_timestamp", Overload{Args: nil, Ret: types.TimestampTZ, Volatile: true, Impl: constFn(types.TimestampTZ, func(ctx *Ctx) Datum { return timeNowUs() })})

	RegisterScalar("date_trunc",
		Overload{Args: []types.T{types.Text, types.Timestamp}, Ret: types.Timestamp, Impl: dateTruncKernel(types.Timestamp, Strict(types.Timestamp, func(ctx *Ctx, a []Datum) (Datum, error) {
			return truncTimestamp(normalizeUnit(s0(a, 0)), i0(a, 1), types.Timestamp)
		}))},
		Overload{Args: []types.T{types.Text, types.TimestampTZ}, Ret: types.TimestampTZ, Impl: dateTruncKernel(types.TimestampTZ, Strict(types.TimestampTZ, func(ctx *Ctx, a []Datum) (Datum, error) {
			return truncTimestampTZ(normalizeUnit(s0(a, 0)), i0(a, 1), ctx.location())
		}))},
		Overload{Args: []types.T{types.Text, types.Interval}, Ret: types.Interval, Impl: Strict(types.Interval, func(ctx *Ctx, a []Datum) (Datum, error) {
			return truncInterval(s0(a, 0), a[1].(arrow.MonthDayNanoInterval))
		})},
	)
	extract := func(numeric bool) []Overload {
		ret := types.Float8
		if numeric {
			ret = types.Numeric
		}
		wrap := func(fn func(ctx *Ctx, a []Datum) (string, error)) ScalarImpl {
			return Strict(ret, func(ctx *Ctx, a []Datum) (Datum, error) {
				s, err := fn(ctx, a)
				if err != nil {
					return nil, err
				}
				if numeric {
					return s, nil
				}
				return toFloatText(s), nil
			})
		}
		return []Overload{
			{Args: []types.T{types.Text, types.Timestamp}, Ret: ret, Impl: extractKernel(numeric, types.Timestamp, wrap(func(ctx *Ctx, a []Datum) (string, error) {
				return extractTimestamp(s0(a, 0), i0(a, 1), i0(a, 1), types.Timestamp, false, 0)
			}))},
			{Args: []types.T{types.Text, types.TimestampTZ}, Ret: ret, Impl: extractKernel(numeric, types.TimestampTZ, wrap(func(ctx *Ctx, a []Datum) (string, error) {
				wall := toLocal(i0(a, 1), ctx.location())
				return extractTimestamp(s0(a, 0), wall, i0(a, 1), types.TimestampTZ, true, (wall-i0(a, 1))/usPerSec)
			}))},
			{Args: []types.T{types.Text, types.Date}, Ret: ret, Impl: wrap(func(ctx *Ctx, a []Datum) (string, error) {
				return extractDate(s0(a, 0), i0(a, 1))
			})},
			{Args: []types.T{types.Text, types.Interval}, Ret: ret, Impl: wrap(func(ctx *Ctx, a []Datum) (string, error) {
				return extractInterval(s0(a, 0), a[1].(arrow.MonthDayNanoInterval))
			})},
			{Args: []types.T{types.Text, types.Time}, Ret: ret, Impl: wrap(func(ctx *Ctx, a []Datum) (string, error) {
				return extractInterval(s0(a, 0), makeIv(0, 0, i0(a, 1)))
			})},
		}
	}
	RegisterScalar("extract", extract(true)...)
	RegisterScalar("date_part", extract(false)...)

	RegisterScalar("justify_days", Overload{Args: []types.T{types.Interval}, Ret: types.Interval, Impl: intervalRow(func(ctx *Ctx, a []Datum) (Datum, error) {
		return justifyDays(a[0].(arrow.MonthDayNanoInterval)), nil
	})})
	RegisterScalar("justify_hours", Overload{Args: []types.T{types.Interval}, Ret: types.Interval, Impl: intervalRow(func(ctx *Ctx, a []Datum) (Datum, error) {
		return justifyHours(a[0].(arrow.MonthDayNanoInterval)), nil
	})})
	RegisterScalar("justify_interval", Overload{Args: []types.T{types.Interval}, Ret: types.Interval, Impl: intervalRow(func(ctx *Ctx, a []Datum) (Datum, error) {
		return justifyInterval(a[0].(arrow.MonthDayNanoInterval)), nil
	})})
	trueB := Strict(types.Bool, func(*Ctx, []Datum) (Datum, error) { return true, nil })
	for _, t := range []types.T{types.Date, types.Timestamp, types.TimestampTZ, types.Interval} {
		RegisterScalar("isfinite", Overload{Args: []types.T{t}, Ret: types.Bool, Impl: trueB})
	}
	RegisterScalar("make_interval", Overload{Args: []types.T{types.Int4, types.Int4, types.Int4, types.Int4, types.Int4, types.Int4, types.Float8}, Ret: types.Interval,
		Impl: intervalRow(func(ctx *Ctx, a []Datum) (Datum, error) {
			y, mo, w, d, h, mi, s := i0(a, 0), i0(a, 1), i0(a, 2), i0(a, 3), i0(a, 4), i0(a, 5), a[6].(float64)
			us := h*usPerHour + mi*usPerMin + int64(math.RoundToEven(s*1e6))
			return makeIv(int32(y*12+mo), int32(w*7+d), us), nil
		})})
	RegisterScalar("make_date", Overload{Args: []types.T{types.Int4, types.Int4, types.Int4}, Ret: types.Date, Impl: Strict(types.Date, func(ctx *Ctx, a []Datum) (Datum, error) {
		ts, err := makeTimestamp(i0(a, 0), i0(a, 1), i0(a, 2), 0, 0, 0)
		if err != nil {
			return nil, err
		}
		return ts / usPerDay, nil
	})})
	RegisterScalar("make_timestamp", Overload{Args: []types.T{types.Int4, types.Int4, types.Int4, types.Int4, types.Int4, types.Float8}, Ret: types.Timestamp,
		Impl: Strict(types.Timestamp, func(ctx *Ctx, a []Datum) (Datum, error) {
			return makeTimestamp(i0(a, 0), i0(a, 1), i0(a, 2), i0(a, 3), i0(a, 4), a[5].(float64))
		})})
	RegisterScalar("make_timestamptz", Overload{Args: []types.T{types.Int4, types.Int4, types.Int4, types.Int4, types.Int4, types.Float8}, Ret: types.TimestampTZ,
		Impl: Strict(types.TimestampTZ, func(ctx *Ctx, a []Datum) (Datum, error) {
			w, err := makeTimestamp(i0(a, 0), i0(a, 1), i0(a, 2), i0(a, 3), i0(a, 4), a[5].(float64))
			if err != nil {
				return nil, err
			}
			return fromLocal(w, ctx.location()), nil
		})})
	RegisterScalar("age",
		Overload{Args: []types.T{types.Timestamp, types.Timestamp}, Ret: types.Interval, Impl: intervalRow(func(ctx *Ctx, a []Datum) (Datum, error) { return age(i0(a, 0), i0(a, 1)), nil })},
		Overload{Args: []types.T{types.TimestampTZ, types.TimestampTZ}, Ret: types.Interval, Impl: intervalRow(func(ctx *Ctx, a []Datum) (Datum, error) {
			loc := ctx.location()
			return age(toLocal(i0(a, 0), loc), toLocal(i0(a, 1), loc)), nil
		})},
		Overload{Args: []types.T{types.Timestamp}, Ret: types.Interval, Impl: intervalRow(func(ctx *Ctx, a []Datum) (Datum, error) {
			today := floorDiv(toLocal(nowUs(ctx), ctx.location()), usPerDay) * usPerDay
			return age(today, i0(a, 0)), nil
		})},
	)
	RegisterScalar("to_timestamp", Overload{Args: []types.T{types.Float8}, Ret: types.TimestampTZ, Impl: Strict(types.TimestampTZ, func(ctx *Ctx, a []Datum) (Datum, error) {
		f := a[0].(float64)
		if math.IsNaN(f) {
			return nil, sqlerr.New(sqlerr.InvalidParameterValue, "timestamp cannot be NaN")
		}
		v := math.RoundToEven(f * 1e6)
		if v < float64(minTimestampUs) || v >= 9.2e18 {
			return nil, sqlerr.New(sqlerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", strconv.FormatFloat(f, 'g', -1, 64))
		}
		return int64(v), nil
	})})
	RegisterScalar("timezone",
		Overload{Args: []types.T{types.Text, types.TimestampTZ}, Ret: types.Timestamp, Impl: Strict(types.Timestamp, func(ctx *Ctx, a []Datum) (Datum, error) {
			loc, err := zoneByName(s0(a, 0))
			if err != nil {
				return nil, err
			}
			return toLocal(i0(a, 1), loc), nil
		})},
		Overload{Args: []types.T{types.Text, types.Timestamp}, Ret: types.TimestampTZ, Impl: Strict(types.TimestampTZ, func(ctx *Ctx, a []Datum) (Datum, error) {
			loc, err := zoneByName(s0(a, 0))
			if err != nil {
				return nil, err
			}
			return fromLocal(i0(a, 1), loc), nil
		})},
		Overload{Args: []types.T{types.Interval, types.TimestampTZ}, Ret: types.Timestamp, Impl: Strict(types.Timestamp, func(ctx *Ctx, a []Datum) (Datum, error) {
			return i0(a, 1) + ivUs(a[0].(arrow.MonthDayNanoInterval)), nil
		})},
	)
	RegisterScalar("date_bin",
		Overload{Args: []types.T{types.Interval, types.Timestamp, types.Timestamp}, Ret: types.Timestamp, Impl: Strict(types.Timestamp, dateBin)},
		Overload{Args: []types.T{types.Interval, types.TimestampTZ, types.TimestampTZ}, Ret: types.TimestampTZ, Impl: Strict(types.TimestampTZ, dateBin)},
	)
}

func dateBin(ctx *Ctx, a []Datum) (Datum, error) {
	iv := a[0].(arrow.MonthDayNanoInterval)
	if iv.Months != 0 {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "timestamps cannot be binned into intervals containing months or years")
	}
	stride := int64(iv.Days)*usPerDay + ivUs(iv)
	if stride <= 0 {
		return nil, sqlerr.New(sqlerr.DatetimeFieldOverflow, "stride must be greater than zero")
	}
	ts, origin := i0(a, 1), i0(a, 2)
	delta := ts - origin
	return origin + floorDiv(delta, stride)*stride, nil
}
