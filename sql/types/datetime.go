package types

import (
	"math"
	"strconv"
	"time"
)

// Epochs and units of the date/time representations. Arrow values count
// from the Unix epoch; PostgreSQL's binary format counts from 2000-01-01.
const (
	// PostgresEpochUnixDays is 2000-01-01 in days since 1970-01-01.
	PostgresEpochUnixDays = 10957
	// PostgresEpochUnixMicros is 2000-01-01 00:00:00 UTC in microseconds
	// since the Unix epoch.
	PostgresEpochUnixMicros int64 = PostgresEpochUnixDays * MicrosPerDay

	MicrosPerSecond int64 = 1_000_000
	MicrosPerMinute       = 60 * MicrosPerSecond
	MicrosPerHour         = 60 * MicrosPerMinute
	MicrosPerDay          = 24 * MicrosPerHour

	// TimestampInfinity and TimestampNegInfinity are 'infinity' and
	// '-infinity' for timestamp and timestamptz (as in PostgreSQL, the
	// extreme int64 values).
	TimestampInfinity    int64 = math.MaxInt64
	TimestampNegInfinity int64 = math.MinInt64
	// DateInfinity and DateNegInfinity are 'infinity' and '-infinity' for date.
	DateInfinity    int32 = math.MaxInt32
	DateNegInfinity int32 = math.MinInt32
)

// Range of valid values, as PostgreSQL's: dates from 4714-11-24 BC to
// 5874897-12-31, timestamps from 4714-11-24 00:00 BC. PostgreSQL's
// timestamps end at 294276 AD; counted from 1970 in an int64 they end
// earlier (294247-01-10), which is weir's limit.
var (
	minDateDays        = DaysFromCivil(-4713, 11, 24)
	maxDateDays        = DaysFromCivil(5874897, 12, 31)
	minTimestampMicros = DaysFromCivil(-4713, 11, 24) * MicrosPerDay
)

// DaysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date; year is astronomical (0 is 1 BC).
func DaysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// CivilFromDays is the inverse of DaysFromCivil.
func CivilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysInMonth(y, m int64) int64 {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// ValidDate reports whether days (since 1970-01-01) is within PostgreSQL's
// date range or one of the infinities.
func ValidDate(days int64) bool {
	return days == int64(DateInfinity) || days == int64(DateNegInfinity) ||
		days >= minDateDays && days <= maxDateDays
}

// ValidTimestamp reports whether us (since 1970) is a representable
// timestamp or one of the infinities.
func ValidTimestamp(us int64) bool {
	return us == TimestampInfinity || us == TimestampNegInfinity || us >= minTimestampMicros
}

// appendPad appends a non-negative v zero-padded to width digits.
func appendPad(buf []byte, v int64, width int) []byte {
	n := 1
	for x := v; x >= 10; x /= 10 {
		n++
	}
	for ; n < width; n++ {
		buf = append(buf, '0')
	}
	return strconv.AppendInt(buf, v, 10)
}

// appendYMD appends yyyy-mm-dd with a BC year as its AD/BC number; the
// caller appends " BC" at the very end when bc is true.
func appendYMD(buf []byte, y, m, d int64) ([]byte, bool) {
	bc := y <= 0
	if bc {
		y = 1 - y
	}
	buf = appendPad(buf, y, 4)
	buf = append(buf, '-')
	buf = appendPad(buf, m, 2)
	buf = append(buf, '-')
	buf = appendPad(buf, d, 2)
	return buf, bc
}

// appendClock appends hh:mm:ss[.ffffff] with trailing fractional zeros
// dropped, for µs within a day (hours may exceed 23 for 24:00:00 and
// intervals).
func appendClock(buf []byte, us int64) []byte {
	h := us / MicrosPerHour
	us -= h * MicrosPerHour
	mi := us / MicrosPerMinute
	us -= mi * MicrosPerMinute
	buf = appendPad(buf, h, 2)
	buf = append(buf, ':')
	buf = appendPad(buf, mi, 2)
	buf = append(buf, ':')
	return appendSeconds(buf, us)
}

// appendSeconds appends ss[.ffffff] for µs below a minute.
func appendSeconds(buf []byte, us int64) []byte {
	buf = appendPad(buf, us/MicrosPerSecond, 2)
	frac := us % MicrosPerSecond
	if frac == 0 {
		return buf
	}
	buf = append(buf, '.')
	var tmp [6]byte
	for i := 5; i >= 0; i-- {
		tmp[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := 6
	for tmp[n-1] == '0' {
		n--
	}
	return append(buf, tmp[:n]...)
}

// AppendDate is date_out (DateStyle ISO) of days since 1970-01-01.
func AppendDate(buf []byte, days int32) []byte {
	switch days {
	case DateInfinity:
		return append(buf, "infinity"...)
	case DateNegInfinity:
		return append(buf, "-infinity"...)
	}
	y, m, d := CivilFromDays(int64(days))
	buf, bc := appendYMD(buf, y, m, d)
	if bc {
		buf = append(buf, " BC"...)
	}
	return buf
}

// FormatDate is AppendDate to a string.
func FormatDate(days int32) string { return string(AppendDate(nil, days)) }

// AppendTime is time_out of µs since midnight.
func AppendTime(buf []byte, us int64) []byte { return appendClock(buf, us) }

// AppendTimestamp is timestamp_out (DateStyle ISO) of µs since 1970.
func AppendTimestamp(buf []byte, us int64) []byte {
	return appendTimestamp(buf, us, 0, false)
}

// FormatTimestamp is AppendTimestamp to a string.
func FormatTimestamp(us int64) string { return string(AppendTimestamp(nil, us)) }

// AppendTimestampTZ is timestamptz_out: the instant us (µs since 1970 UTC)
// shown in loc with its UTC offset, e.g. 2024-01-02 03:04:05.5+05:30.
func AppendTimestampTZ(buf []byte, us int64, loc *time.Location) []byte {
	if us == TimestampInfinity || us == TimestampNegInfinity {
		return appendTimestamp(buf, us, 0, false)
	}
	off := offsetAt(loc, floorDiv(us, MicrosPerSecond))
	return appendTimestamp(buf, us+int64(off)*MicrosPerSecond, off, true)
}

// FormatTimestampTZ is AppendTimestampTZ to a string.
func FormatTimestampTZ(us int64, loc *time.Location) string {
	return string(AppendTimestampTZ(nil, us, loc))
}

func appendTimestamp(buf []byte, us int64, off int, withZone bool) []byte {
	switch us {
	case TimestampInfinity:
		return append(buf, "infinity"...)
	case TimestampNegInfinity:
		return append(buf, "-infinity"...)
	}
	days := floorDiv(us, MicrosPerDay)
	y, m, d := CivilFromDays(days)
	buf, bc := appendYMD(buf, y, m, d)
	buf = append(buf, ' ')
	buf = appendClock(buf, us-days*MicrosPerDay)
	if withZone {
		buf = appendOffset(buf, off)
	}
	if bc {
		buf = append(buf, " BC"...)
	}
	return buf
}

// appendOffset is EncodeTimezone: +hh, +hh:mm or +hh:mm:ss east of UTC.
func appendOffset(buf []byte, off int) []byte {
	if off < 0 {
		buf = append(buf, '-')
		off = -off
	} else {
		buf = append(buf, '+')
	}
	buf = appendPad(buf, int64(off/3600), 2)
	mi, sec := off/60%60, off%60
	if mi != 0 || sec != 0 {
		buf = append(buf, ':')
		buf = appendPad(buf, int64(mi), 2)
	}
	if sec != 0 {
		buf = append(buf, ':')
		buf = appendPad(buf, int64(sec), 2)
	}
	return buf
}

// RoundMicros rounds µs to precision fractional digits (0-6) as
// AdjustTimestampForTypmod does (half away from zero). Precisions outside
// 0-5 leave the value unchanged.
func RoundMicros(us int64, precision int32) int64 {
	if precision < 0 || precision >= 6 || us == TimestampInfinity || us == TimestampNegInfinity {
		return us
	}
	scale := int64(1)
	for i := precision; i < 6; i++ {
		scale *= 10
	}
	if us >= 0 {
		return (us + scale/2) / scale * scale
	}
	return -((-us + scale/2) / scale * scale)
}
