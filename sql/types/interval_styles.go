package types

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// IntervalStyle is the session's IntervalStyle: how interval_out writes.
type IntervalStyle uint8

const (
	IntervalPostgres        IntervalStyle = iota // 1 year 2 mons 3 days 04:05:06
	IntervalPostgresVerbose                      // @ 1 year 2 mons 3 days 4 hours 5 mins 6 secs
	IntervalSQLStandard                          // 1-2 3 4:05:06
	IntervalISO8601                              // P1Y2M3DT4H5M6S
)

// ParseIntervalStyle reads an IntervalStyle setting value.
func ParseIntervalStyle(v string) (IntervalStyle, bool) {
	switch v {
	case "postgres":
		return IntervalPostgres, true
	case "postgres_verbose":
		return IntervalPostgresVerbose, true
	case "sql_standard":
		return IntervalSQLStandard, true
	case "iso_8601":
		return IntervalISO8601, true
	}
	return 0, false
}

// intervalFields are EncodeInterval's fields: all carry the sign of their
// part (months, days, or the time).
type intervalFields struct {
	year, mon, mday, hour, min, sec, fsec int64
}

func splitInterval(v arrow.MonthDayNanoInterval) intervalFields {
	us := v.Nanoseconds / 1000
	f := intervalFields{year: int64(v.Months / 12), mon: int64(v.Months % 12), mday: int64(v.Days)}
	f.hour = us / MicrosPerHour
	us -= f.hour * MicrosPerHour
	f.min = us / MicrosPerMinute
	us -= f.min * MicrosPerMinute
	f.sec = us / MicrosPerSecond
	f.fsec = us - f.sec*MicrosPerSecond
	return f
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// appendIntervalSeconds is AppendSeconds: |sec| (two digits when fill)
// and the fraction without trailing zeros.
func appendIntervalSeconds(buf []byte, sec, fsec int64, fill bool) []byte {
	if fill {
		buf = appendPad(buf, abs64(sec), 2)
	} else {
		buf = strconv.AppendInt(buf, abs64(sec), 10)
	}
	if fsec == 0 {
		return buf
	}
	frac := abs64(fsec)
	var tmp [6]byte
	for i := 5; i >= 0; i-- {
		tmp[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := 6
	for n > 0 && tmp[n-1] == '0' {
		n--
	}
	buf = append(buf, '.')
	return append(buf, tmp[:n]...)
}

// AppendIntervalStyled is interval_out in the given IntervalStyle.
func AppendIntervalStyled(buf []byte, v arrow.MonthDayNanoInterval, style IntervalStyle) []byte {
	switch style {
	case IntervalSQLStandard:
		return appendIntervalSQL(buf, splitInterval(v))
	case IntervalISO8601:
		return appendIntervalISO(buf, splitInterval(v))
	case IntervalPostgresVerbose:
		return appendIntervalVerbose(buf, splitInterval(v))
	}
	return AppendInterval(buf, v)
}

func appendIntervalSQL(buf []byte, f intervalFields) []byte {
	neg := f.year < 0 || f.mon < 0 || f.mday < 0 || f.hour < 0 || f.min < 0 || f.sec < 0 || f.fsec < 0
	pos := f.year > 0 || f.mon > 0 || f.mday > 0 || f.hour > 0 || f.min > 0 || f.sec > 0 || f.fsec > 0
	yearMonth := f.year != 0 || f.mon != 0
	dayTime := f.mday != 0 || f.hour != 0 || f.min != 0 || f.sec != 0 || f.fsec != 0
	standard := !(neg && pos) && !(yearMonth && dayTime)
	if neg && standard {
		buf = append(buf, '-')
		f = intervalFields{-f.year, -f.mon, -f.mday, -f.hour, -f.min, -f.sec, -f.fsec}
	}
	clock := func(buf []byte) []byte {
		buf = strconv.AppendInt(buf, f.hour, 10)
		buf = append(buf, ':')
		buf = appendPad(buf, f.min, 2)
		buf = append(buf, ':')
		return appendIntervalSeconds(buf, f.sec, f.fsec, true)
	}
	switch {
	case !neg && !pos:
		return append(buf, '0')
	case !standard:
		sign := func(n bool) byte {
			if n {
				return '-'
			}
			return '+'
		}
		buf = append(buf, sign(f.year < 0 || f.mon < 0))
		buf = strconv.AppendInt(buf, abs64(f.year), 10)
		buf = append(buf, '-')
		buf = strconv.AppendInt(buf, abs64(f.mon), 10)
		buf = append(buf, ' ', sign(f.mday < 0))
		buf = strconv.AppendInt(buf, abs64(f.mday), 10)
		buf = append(buf, ' ', sign(f.hour < 0 || f.min < 0 || f.sec < 0 || f.fsec < 0))
		buf = strconv.AppendInt(buf, abs64(f.hour), 10)
		buf = append(buf, ':')
		buf = appendPad(buf, abs64(f.min), 2)
		buf = append(buf, ':')
		return appendIntervalSeconds(buf, f.sec, f.fsec, true)
	case yearMonth:
		buf = strconv.AppendInt(buf, f.year, 10)
		buf = append(buf, '-')
		return strconv.AppendInt(buf, f.mon, 10)
	case f.mday != 0:
		buf = strconv.AppendInt(buf, f.mday, 10)
		buf = append(buf, ' ')
		return clock(buf)
	}
	return clock(buf)
}

func appendIntervalISO(buf []byte, f intervalFields) []byte {
	if f == (intervalFields{}) {
		return append(buf, "PT0S"...)
	}
	part := func(v int64, unit byte) {
		if v != 0 {
			buf = strconv.AppendInt(buf, v, 10)
			buf = append(buf, unit)
		}
	}
	buf = append(buf, 'P')
	part(f.year, 'Y')
	part(f.mon, 'M')
	part(f.mday, 'D')
	if f.hour != 0 || f.min != 0 || f.sec != 0 || f.fsec != 0 {
		buf = append(buf, 'T')
	}
	part(f.hour, 'H')
	part(f.min, 'M')
	if f.sec != 0 || f.fsec != 0 {
		if f.sec < 0 || f.fsec < 0 {
			buf = append(buf, '-')
		}
		buf = appendIntervalSeconds(buf, f.sec, f.fsec, false)
		buf = append(buf, 'S')
	}
	return buf
}

func appendIntervalVerbose(buf []byte, f intervalFields) []byte {
	buf = append(buf, '@')
	isZero, isBefore := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if isZero {
			isBefore = v < 0
			v = abs64(v)
		} else if isBefore {
			v = -v
		}
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, v, 10)
		buf = append(buf, ' ')
		buf = append(buf, unit...)
		if v != 1 {
			buf = append(buf, 's')
		}
		isZero = false
	}
	part(f.year, "year")
	part(f.mon, "mon")
	part(f.mday, "day")
	part(f.hour, "hour")
	part(f.min, "min")
	if f.sec != 0 || f.fsec != 0 {
		buf = append(buf, ' ')
		if f.sec < 0 || (f.sec == 0 && f.fsec < 0) {
			if isZero {
				isBefore = true
			} else if !isBefore {
				buf = append(buf, '-')
			}
		} else if isBefore {
			buf = append(buf, '-')
		}
		buf = appendIntervalSeconds(buf, f.sec, f.fsec, false)
		buf = append(buf, " sec"...)
		if abs64(f.sec) != 1 || f.fsec != 0 {
			buf = append(buf, 's')
		}
		isZero = false
	}
	if isZero {
		buf = append(buf, " 0"...)
	}
	if isBefore {
		buf = append(buf, " ago"...)
	}
	return buf
}

// appendByteaEscape is byteaout with bytea_output = escape: printable
// ASCII as is, backslash doubled, other bytes as \ooo.
func appendByteaEscape(buf []byte, v []byte) []byte {
	for _, c := range v {
		switch {
		case c == '\\':
			buf = append(buf, '\\', '\\')
		case c < 0x20 || c > 0x7e:
			buf = append(buf, '\\', '0'+c>>6, '0'+(c>>3)&7, '0'+c&7)
		default:
			buf = append(buf, c)
		}
	}
	return buf
}
