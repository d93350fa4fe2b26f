package files

import (
	"github.com/weir-sql/weir/sql/types"
)

// isoTimestamp reads the timestamp form files hold most often,
// "YYYY-MM-DD[T ]HH:MM:SS[.f{1,6}][Z|±HH[:MM]|±HHMM]", as µs since the
// epoch of its wall clock and its zone offset in seconds. ok is false for
// anything else, which PostgreSQL's full parser then reads; so this only
// decides text whose meaning is unambiguous, and gives what timestamp_in
// and timestamptz_in give for it (TestDecodeMatchesPostgres checks).
// Decoding calls it per value, before types.AppendParsedText's general
// dispatch, which costs more than the parse.
func isoTimestamp(s []byte) (civil int64, offset int64, hasZone, ok bool) {
	n := len(s)
	if n < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' {
		return 0, 0, false, false
	}
	d2 := func(i int) int64 {
		a, b := s[i]-'0', s[i+1]-'0'
		if a > 9 || b > 9 {
			return -1
		}
		return int64(a)*10 + int64(b)
	}
	yh, yl, mo, d, h, mi, sec := d2(0), d2(2), d2(5), d2(8), d2(11), d2(14), d2(17)
	if yh < 0 || yl < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59 {
		return 0, 0, false, false
	}
	y := yh*100 + yl
	if y == 0 || d > daysInMonth(y, mo) {
		return 0, 0, false, false
	}
	i := 19
	var frac int64
	if i < n && s[i] == '.' {
		i++
		digits := 0
		for i < n && s[i] >= '0' && s[i] <= '9' {
			if digits == 6 {
				return 0, 0, false, false // a 7th digit rounds: the full parser
			}
			frac = frac*10 + int64(s[i]-'0')
			digits++
			i++
		}
		if digits == 0 {
			return 0, 0, false, false
		}
		for ; digits < 6; digits++ {
			frac *= 10
		}
	}
	if i < n {
		switch s[i] {
		case 'Z':
			if i+1 != n {
				return 0, 0, false, false
			}
		case '+', '-':
			rest := n - i - 1
			var th, tm int64
			switch {
			case rest == 2:
				th, tm = d2(i+1), 0
			case rest == 5 && s[i+3] == ':':
				th, tm = d2(i+1), d2(i+4)
			case rest == 4:
				th, tm = d2(i+1), d2(i+3)
			default:
				return 0, 0, false, false
			}
			if th < 0 || tm < 0 || th > 15 || tm > 59 {
				return 0, 0, false, false
			}
			offset = th*3600 + tm*60
			if s[i] == '-' {
				offset = -offset
			}
		default:
			return 0, 0, false, false
		}
		hasZone = true
	}
	days := types.DaysFromCivil(y, mo, d)
	civil = days*types.MicrosPerDay + h*types.MicrosPerHour + mi*types.MicrosPerMinute + sec*types.MicrosPerSecond + frac
	return civil, offset, hasZone, true
}

func daysInMonth(y, m int64) int64 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
