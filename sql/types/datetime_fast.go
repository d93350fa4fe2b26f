package types

// ParseISOTimestamp reads the form COPY, drivers and data files hold most
// often — "YYYY-MM-DD HH:MM:SS[.ffffff][Z|±HH[:MM]|±HHMM]" (or with 'T') —
// without the
// general date/time tokenizer. ok is false for anything else, which then
// goes through the full PostgreSQL-compatible parser; so the fast path only
// decides cases whose meaning is unambiguous. civil is µs since the epoch
// of the wall clock, tzSeconds the zone's offset east of UTC.
func ParseISOTimestamp(s []byte) (civil int64, tzSeconds int32, hasTZ, ok bool) {
	n := len(s)
	if n < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' {
		return 0, 0, false, false
	}
	num := func(a, b int) (int64, bool) {
		var v int64
		for i := a; i < b; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int64(c-'0')
		}
		return v, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 7)
	d, ok3 := num(8, 10)
	h, ok4 := num(11, 13)
	mi, ok5 := num(14, 16)
	sec, ok6 := num(17, 19)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || y == 0 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59 {
		return 0, 0, false, false
	}
	if d > int64(daysIn(y, mo)) {
		return 0, 0, false, false
	}
	i := 19
	var frac int64
	if i < n && s[i] == '.' {
		i++
		digits := 0
		for i < n && s[i] >= '0' && s[i] <= '9' {
			if digits == 6 {
				return 0, 0, false, false // rounding of a 7th digit: full parser
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
			hasTZ = true
		case '+', '-':
			sign := int32(1)
			if s[i] == '-' {
				sign = -1
			}
			rest := s[i+1:]
			var th, tm int64
			switch {
			case len(rest) == 2:
				th, ok1 = num(i+1, i+3)
			case len(rest) == 5 && rest[2] == ':':
				th, ok1 = num(i+1, i+3)
				tm, ok2 = num(i+4, i+6)
				ok1 = ok1 && ok2
			case len(rest) == 4:
				th, ok1 = num(i+1, i+3)
				tm, ok2 = num(i+3, i+5)
				ok1 = ok1 && ok2
			default:
				return 0, 0, false, false
			}
			if !ok1 || th > 15 || tm > 59 {
				return 0, 0, false, false
			}
			tzSeconds = sign * int32(th*3600+tm*60)
			hasTZ = true
		default:
			return 0, 0, false, false
		}
	}
	days := DaysFromCivil(y, mo, d)
	civil = days*MicrosPerDay + h*MicrosPerHour + mi*MicrosPerMinute + sec*MicrosPerSecond + frac
	return civil, tzSeconds, hasTZ, true
}

func daysIn(y, m int64) int {
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
