package types

import (
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Interval values are arrow.MonthDayNanoInterval with Nanoseconds a whole
// number of microseconds. PostgreSQL keeps int64 microseconds; as
// nanoseconds in an int64 the time part is limited to about ±2562047
// hours, beyond which weir reports "interval out of range".
const maxIntervalMicros = math.MaxInt64 / 1000

// IntervalMicros returns the time part of v in microseconds.
func IntervalMicros(v arrow.MonthDayNanoInterval) int64 { return v.Nanoseconds / 1000 }

// MakeInterval builds an interval from months, days and microseconds,
// failing with 22008 "interval out of range" when µs cannot be held.
func MakeInterval(months, days int32, us int64) (arrow.MonthDayNanoInterval, error) {
	if us > maxIntervalMicros || us < -maxIntervalMicros {
		return arrow.MonthDayNanoInterval{}, errIntervalRange()
	}
	return arrow.MonthDayNanoInterval{Months: months, Days: days, Nanoseconds: us * 1000}, nil
}

func errIntervalRange() error {
	return sqlerr.New(sqlerr.DatetimeFieldOverflow, "interval out of range")
}

// FormatInterval is interval_out with IntervalStyle postgres.
func FormatInterval(v arrow.MonthDayNanoInterval) string { return string(AppendInterval(nil, v)) }

// AppendInterval is interval_out with IntervalStyle postgres, e.g.
// "1 year 2 mons 3 days 04:05:06.5", "-1 days +02:00:00", "00:00:00".
func AppendInterval(buf []byte, v arrow.MonthDayNanoInterval) []byte {
	year := int64(v.Months / 12)
	mon := int64(v.Months % 12)
	day := int64(v.Days)
	us := v.Nanoseconds / 1000
	isZero, isBefore := true, false
	part := func(val int64, unit string) {
		if val == 0 {
			return
		}
		if !isZero {
			buf = append(buf, ' ')
		}
		if isBefore && val > 0 {
			buf = append(buf, '+')
		}
		buf = strconv.AppendInt(buf, val, 10)
		buf = append(buf, ' ')
		buf = append(buf, unit...)
		if val != 1 {
			buf = append(buf, 's')
		}
		isBefore = val < 0
		isZero = false
	}
	part(year, "year")
	part(mon, "mon")
	part(day, "day")
	if isZero || us != 0 {
		if !isZero {
			buf = append(buf, ' ')
		}
		if us < 0 {
			buf = append(buf, '-')
			us = -us
		} else if isBefore {
			buf = append(buf, '+')
		}
		buf = appendClock(buf, us)
	}
	return buf
}

// Interval field bits for duplicate detection, as DTK_M(...) in DecodeInterval.
const (
	ivYear = 1 << iota
	ivMonth
	ivDay
	ivWeek
	ivHour
	ivMinute
	ivSecond
	ivMilli
	ivMicro
	ivDecade
	ivCentury
	ivMillennium
	ivAllSecs = ivSecond | ivMilli | ivMicro
	ivTime    = ivHour | ivMinute | ivAllSecs
)

// Interval units of deltatktbl.
const (
	uNone = iota
	uMicro
	uMilli
	uSecond
	uMinute
	uHour
	uDay
	uWeek
	uMonth
	uYear
	uDecade
	uCentury
	uMillennium
	uAgo
)

var intervalUnits = map[string]int{
	"c": uCentury, "cent": uCentury, "centuries": uCentury, "century": uCentury,
	"d": uDay, "day": uDay, "days": uDay,
	"dec": uDecade, "decade": uDecade, "decades": uDecade, "decs": uDecade,
	"h": uHour, "hour": uHour, "hours": uHour, "hr": uHour, "hrs": uHour,
	"m": uMinute, "min": uMinute, "mins": uMinute, "minute": uMinute, "minutes": uMinute,
	"microsecon": uMicro, "us": uMicro, "usec": uMicro, "useconds": uMicro, "usecs": uMicro, "microsecond": uMicro,
	"mil": uMillennium, "millennia": uMillennium, "millennium": uMillennium, "mils": uMillennium,
	"millisecon": uMilli, "ms": uMilli, "msec": uMilli, "mseconds": uMilli, "msecs": uMilli, "millisecond": uMilli,
	"mon": uMonth, "mons": uMonth, "month": uMonth, "months": uMonth,
	"s": uSecond, "sec": uSecond, "second": uSecond, "seconds": uSecond, "secs": uSecond,
	"w": uWeek, "week": uWeek, "weeks": uWeek,
	"y": uYear, "year": uYear, "years": uYear, "yr": uYear, "yrs": uYear,
	"ago": uAgo,
}

// itmIn is struct pg_itm_in: the interval being assembled.
type itmIn struct {
	usec      int64
	mday, mon int64 // kept within int32 by the adjust functions
	year      int64
}

func countByte(s []byte, c byte) int {
	n := 0
	for _, b := range s {
		if b == c {
			n++
		}
	}
	return n
}

func fitsInt32(v int64) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }

func (it *itmIn) addUsec(v int64) bool {
	s := it.usec + v
	if (s > it.usec) != (v > 0) {
		return false
	}
	it.usec = s
	return true
}

func (it *itmIn) adjustFractMicros(frac float64, scale int64) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	us := int64(frac)
	us += int64(math.RoundToEven(frac - float64(us)))
	return it.addUsec(us)
}

func (it *itmIn) adjustMicros(val int64, frac float64, scale int64) bool {
	p := val * scale
	if val != 0 && (p/val != scale) {
		return false
	}
	if !it.addUsec(p) {
		return false
	}
	return it.adjustFractMicros(frac, scale)
}

func (it *itmIn) adjustDays(val int64, mult int64) bool {
	if !fitsInt32(val) || !fitsInt32(val*mult) || !fitsInt32(it.mday+val*mult) {
		return false
	}
	it.mday += val * mult
	return true
}

func (it *itmIn) adjustFractDays(frac float64, scale int64) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	extra := int64(frac)
	if !fitsInt32(it.mday + extra) {
		return false
	}
	it.mday += extra
	return it.adjustFractMicros(frac-float64(extra), MicrosPerDay)
}

func (it *itmIn) adjustMonths(val int64) bool {
	if !fitsInt32(val) || !fitsInt32(it.mon+val) {
		return false
	}
	it.mon += val
	return true
}

func (it *itmIn) adjustYears(val, scale int64) bool {
	if !fitsInt32(val) || !fitsInt32(val*scale) || !fitsInt32(it.year+val*scale) {
		return false
	}
	it.year += val * scale
	return true
}

func (it *itmIn) adjustFractYears(frac float64, scale int64) bool {
	extra := int64(math.RoundToEven(frac * float64(scale) * 12))
	if !fitsInt32(it.mon + extra) {
		return false
	}
	it.mon += extra
	return true
}

// apply adds val (and its fraction) of unit u.
func (it *itmIn) apply(u int, val int64, frac float64) (int, bool) {
	switch u {
	case uMicro:
		return ivMicro, it.adjustMicros(val, frac, 1)
	case uMilli:
		return ivMilli, it.adjustMicros(val, frac, 1000)
	case uSecond:
		m := ivSecond
		if frac != 0 {
			m = ivAllSecs
		}
		return m, it.adjustMicros(val, frac, MicrosPerSecond)
	case uMinute:
		return ivMinute, it.adjustMicros(val, frac, MicrosPerMinute)
	case uHour:
		return ivHour, it.adjustMicros(val, frac, MicrosPerHour)
	case uDay:
		return ivDay, it.adjustDays(val, 1) && it.adjustFractMicros(frac, MicrosPerDay)
	case uWeek:
		return ivWeek, it.adjustDays(val, 7) && it.adjustFractDays(frac, 7)
	case uMonth:
		return ivMonth, it.adjustMonths(val) && it.adjustFractDays(frac, 30)
	case uYear:
		return ivYear, it.adjustYears(val, 1) && it.adjustFractYears(frac, 1)
	case uDecade:
		return ivDecade, it.adjustYears(val, 10) && it.adjustFractYears(frac, 10)
	case uCentury:
		return ivCentury, it.adjustYears(val, 100) && it.adjustFractYears(frac, 100)
	case uMillennium:
		return ivMillennium, it.adjustYears(val, 1000) && it.adjustFractYears(frac, 1000)
	}
	return -1, false
}

// ParseInterval is interval_in (IntervalStyle postgres, no typmod).
func ParseInterval(s string) (arrow.MonthDayNanoInterval, error) {
	return parseIntervalBytes([]byte(s), -1)
}

// parseIntervalBytes is interval_in for a type modifier (-1: none).
func parseIntervalBytes(s []byte, typmod int32) (arrow.MonthDayNanoInterval, error) {
	var it itmIn
	code := decodeInterval(s, &it, intervalRange(typmod))
	if code == dtBadFormat {
		it = itmIn{}
		code = decodeISO8601Interval(s, &it)
	}
	switch code {
	case dtOK:
	case dtFieldOverflow:
		return arrow.MonthDayNanoInterval{}, sqlerr.New(codeIntervalFieldOverflow, "interval field value out of range: \"%s\"", s)
	default:
		return arrow.MonthDayNanoInterval{}, errInvalidSyntax(Interval, s)
	}
	months := it.year*12 + it.mon
	if !fitsInt32(months) {
		return arrow.MonthDayNanoInterval{}, errIntervalRange()
	}
	v, err := MakeInterval(int32(months), int32(it.mday), it.usec)
	if err != nil {
		return v, err
	}
	return AdjustIntervalForTypmod(v, typmod)
}

// decodeInterval is DecodeInterval: fields are read right to left so that
// a unit is seen before its number. rng is the type's field range, which
// says what a bare number means.
func decodeInterval(s []byte, it *itmIn, rng int32) int {
	var fields [maxDateFields]dtField
	var lowBuf [128]byte
	low := lowBuf[:]
	if 2*len(s) > len(low) {
		low = make([]byte, 2*len(s))
	}
	nf, ok := splitDateTime(s, &fields, low)
	if !ok {
		return dtBadFormat
	}
	fmask := 0
	isBefore := false
	unit := uNone
	for i := nf - 1; i >= 0; i-- {
		fv := fields[i].view(low, s)
		f := fv.low
		tmask := 0
		switch fv.typ {
		case dtTime:
			us, code := decodeIntervalTime(f, rng)
			if code != dtOK {
				return code
			}
			it.usec = us
			tmask = ivTime
			unit = uDay
		case dtTZ, dtDate, dtNumber:
			if fv.typ == dtTZ && indexByte(f[1:], ':') >= 0 {
				if us, code := decodeIntervalTime(f[1:], rng); code == dtOK {
					if f[0] == '-' {
						us = -us
					}
					it.usec = us
					tmask = ivTime
					unit = uDay
					break
				}
			}
			if unit == uNone {
				unit = bareNumberUnit(rng)
			}
			neg := f[0] == '-'
			k := 0
			if f[0] == '-' || f[0] == '+' {
				k = 1
			}
			st := k
			for k < len(f) && isDigit(f[k]) {
				k++
			}
			if k == st {
				return dtBadFormat
			}
			val, err := strconv.ParseInt(string(f[st:k]), 10, 64)
			if err != nil {
				return dtFieldOverflow
			}
			if neg {
				val = -val
			}
			var frac float64
			rest := f[k:]
			switch {
			case len(rest) > 0 && rest[0] == '-':
				// SQL "years-months"
				m, ok := atoiField(rest[1:])
				if !ok {
					if allDigits(rest[1:]) && len(rest) > 1 {
						return dtFieldOverflow
					}
					return dtBadFormat
				}
				if m >= 12 {
					return dtFieldOverflow
				}
				if neg {
					m = -m
				}
				unit = uMonth
				if !fitsInt32(val) {
					return dtFieldOverflow
				}
				val = val*12 + m
			case len(rest) > 0 && rest[0] == '.':
				if len(rest) > 1 {
					fv, err := strconv.ParseFloat(string(rest), 64)
					if err != nil || !allDigits(rest[1:]) {
						return dtBadFormat
					}
					frac = fv
				}
				if neg {
					frac = -frac
				}
			case len(rest) == 0:
			default:
				return dtBadFormat
			}
			m, ok := it.apply(unit, val, frac)
			if !ok {
				if m < 0 {
					return dtBadFormat
				}
				return dtFieldOverflow
			}
			tmask = m
			if unit == uHour {
				unit = uDay
			}
		case dtString, dtSpecial:
			key := f
			if len(key) > 10 {
				key = key[:10]
			}
			u, ok := intervalUnits[string(key)]
			if !ok {
				return dtBadFormat
			}
			if u == uAgo {
				isBefore = true
				unit = uNone
			} else {
				unit = u
			}
		default:
			return dtBadFormat
		}
		if tmask&fmask != 0 {
			return dtBadFormat
		}
		fmask |= tmask
	}
	if fmask == 0 {
		return dtBadFormat
	}
	if isBefore {
		if it.usec == math.MinInt64 {
			return dtFieldOverflow
		}
		it.usec, it.mday, it.mon, it.year = -it.usec, -it.mday, -it.mon, -it.year
	}
	return dtOK
}

// decodeIntervalTime is DecodeTimeForInterval: hh:mm[:ss[.fff]] or
// mm:ss.fff with hours unbounded, as µs; in a MINUTE TO SECOND interval
// two fields without a fraction are mm:ss.
func decodeIntervalTime(f []byte, rng int32) (int64, int) {
	var r dtResult
	if _, code := decodeTime(f, &r); code != dtOK {
		return 0, code
	}
	if rng == IntervalMinute|IntervalSecond && countByte(f, ':') == 1 && indexByte(f, '.') < 0 {
		r.hour, r.min, r.sec = 0, r.hour, r.min
	}
	if r.min > 59 || r.sec > 60 || r.fsec > MicrosPerSecond {
		return 0, dtFieldOverflow
	}
	return r.hour*MicrosPerHour + r.min*MicrosPerMinute + r.sec*MicrosPerSecond + r.fsec, dtOK
}

// parseISONumber is ParseISO8601Number: a signed integer with an optional
// fraction.
func parseISONumber(s []byte) (int64, float64, []byte, int) {
	if len(s) == 0 || !(isDigit(s[0]) || s[0] == '-' || s[0] == '.') {
		return 0, 0, s, dtBadFormat
	}
	k := 0
	neg := false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		k++
	}
	st := k
	for k < len(s) && isDigit(s[k]) {
		k++
	}
	var val int64
	if k > st {
		v, err := strconv.ParseInt(string(s[st:k]), 10, 64)
		if err != nil {
			return 0, 0, s, dtFieldOverflow
		}
		val = v
	}
	var frac float64
	if k < len(s) && s[k] == '.' {
		fs := k
		k++
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k > fs+1 {
			frac, _ = strconv.ParseFloat(string(s[fs:k]), 64)
		}
	} else if k == st {
		return 0, 0, s, dtBadFormat
	}
	if neg {
		val, frac = -val, -frac
	}
	return val, frac, s[k:], dtOK
}

// decodeISO8601Interval is DecodeISO8601Interval: P[nY][nM][nW][nD][T[nH][nM][nS]]
// and the alternative format P[YYYY-MM-DD][Thh:mm:ss].
// isoIntegerWidth is ISO8601IntegerWidth: the digits of a field's
// integer part, after an optional minus.
func isoIntegerWidth(s []byte) int {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

func decodeISO8601Interval(s []byte, it *itmIn) int {
	if len(s) < 2 || s[0] != 'P' {
		return dtBadFormat
	}
	s = s[1:]
	datePart, haveField := true, false
	fail := func(ok bool) int {
		if ok {
			return dtOK
		}
		return dtFieldOverflow
	}
	for len(s) > 0 {
		if s[0] == 'T' {
			datePart, haveField = false, false
			s = s[1:]
			continue
		}
		width := isoIntegerWidth(s)
		val, frac, rest, code := parseISONumber(s)
		if code != dtOK {
			return code
		}
		var u byte
		if len(rest) > 0 {
			u = rest[0]
			rest = rest[1:]
		}
		s = rest
		if datePart {
			switch u {
			case 'Y':
				if c := fail(it.adjustYears(val, 1) && it.adjustFractYears(frac, 1)); c != dtOK {
					return c
				}
			case 'M':
				if c := fail(it.adjustMonths(val) && it.adjustFractDays(frac, 30)); c != dtOK {
					return c
				}
			case 'W':
				if c := fail(it.adjustDays(val, 7) && it.adjustFractDays(frac, 7)); c != dtOK {
					return c
				}
			case 'D':
				if c := fail(it.adjustDays(val, 1) && it.adjustFractMicros(frac, MicrosPerDay)); c != dtOK {
					return c
				}
			case 'T', 0, '-':
				if haveField {
					return dtBadFormat
				}
				if u != '-' && width == 8 {
					// Basic alternative format: yyyymmdd.
					ok := it.adjustYears(val/10000, 1) && it.adjustMonths(val/100%100) && it.adjustDays(val%100, 1) &&
						it.adjustFractMicros(frac, MicrosPerDay)
					if c := fail(ok); c != dtOK || u == 0 {
						return c
					}
					datePart, haveField = false, false
					continue
				}
				if c := fail(it.adjustYears(val, 1) && it.adjustFractYears(frac, 1)); c != dtOK {
					return c
				}
				if u == 0 {
					return dtOK
				}
				if u == 'T' {
					datePart, haveField = false, false
					continue
				}
				val, frac, s, code = parseISONumber(s)
				if code != dtOK {
					return code
				}
				if c := fail(it.adjustMonths(val) && it.adjustFractDays(frac, 30)); c != dtOK {
					return c
				}
				if len(s) == 0 {
					return dtOK
				}
				if s[0] == 'T' {
					datePart, haveField = false, false
					s = s[1:]
					continue
				}
				if s[0] != '-' {
					return dtBadFormat
				}
				val, frac, s, code = parseISONumber(s[1:])
				if code != dtOK {
					return code
				}
				if c := fail(it.adjustDays(val, 1) && it.adjustFractMicros(frac, MicrosPerDay)); c != dtOK {
					return c
				}
				if len(s) == 0 {
					return dtOK
				}
				if s[0] == 'T' {
					datePart, haveField = false, false
					s = s[1:]
					continue
				}
				return dtBadFormat
			default:
				return dtBadFormat
			}
		} else {
			switch u {
			case 'H':
				if c := fail(it.adjustMicros(val, frac, MicrosPerHour)); c != dtOK {
					return c
				}
			case 'M':
				if c := fail(it.adjustMicros(val, frac, MicrosPerMinute)); c != dtOK {
					return c
				}
			case 'S':
				if c := fail(it.adjustMicros(val, frac, MicrosPerSecond)); c != dtOK {
					return c
				}
			case 0, ':':
				if haveField {
					return dtBadFormat
				}
				if u == 0 && width == 6 {
					// Basic alternative format: hhmmss. PostgreSQL 15 drops
					// a fraction of the seconds here (PT103020.5 is 10:30:20).
					ok := it.adjustMicros(val/10000, 0, MicrosPerHour) && it.adjustMicros(val/100%100, 0, MicrosPerMinute) &&
						it.adjustMicros(val%100, 0, MicrosPerSecond)
					return fail(ok)
				}
				if c := fail(it.adjustMicros(val, frac, MicrosPerHour)); c != dtOK {
					return c
				}
				if u == 0 {
					return dtOK
				}
				val, frac, s, code = parseISONumber(s)
				if code != dtOK {
					return code
				}
				if c := fail(it.adjustMicros(val, frac, MicrosPerMinute)); c != dtOK {
					return c
				}
				if len(s) == 0 {
					return dtOK
				}
				if s[0] != ':' {
					return dtBadFormat
				}
				val, frac, s, code = parseISONumber(s[1:])
				if code != dtOK {
					return code
				}
				if c := fail(it.adjustMicros(val, frac, MicrosPerSecond)); c != dtOK {
					return c
				}
				if len(s) == 0 {
					return dtOK
				}
				return dtBadFormat
			default:
				return dtBadFormat
			}
		}
		haveField = true
	}
	return dtOK
}
