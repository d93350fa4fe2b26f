package types

import (
	"math"
	"strconv"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// This file is a port of the parts of PostgreSQL's datetime.c that read
// date, time and timestamp input: ParseDateTime splits the text into typed
// fields, DecodeDateTime assigns them to year, month, day, time and zone.

// Field kinds of ParseDateTime.
const (
	dtNumber = iota
	dtString
	dtDate
	dtTime
	dtTZ
	dtSpecial
)

const maxDateFields = 25

// dtField locates one field: its lowercased text (as PostgreSQL stores
// fields) in the scratch buffer and its text as written (for time zone
// names) in the input. Offsets rather than slices keep the scratch buffer
// on the stack.
type dtField struct {
	typ                int
	lowStart, lowEnd   int
	origStart, origEnd int
}

// dtView is a field with its texts resolved.
type dtView struct {
	typ       int
	low, orig []byte
}

func (f *dtField) view(low, s []byte) dtView {
	return dtView{f.typ, low[f.lowStart:f.lowEnd], s[f.origStart:f.origEnd]}
}

// splitDateTime is ParseDateTime. low is scratch space for the lowercased
// fields; it must be at least len(s)*2 long.
func splitDateTime(s []byte, fields *[maxDateFields]dtField, low []byte) (int, bool) {
	nf := 0
	i := 0
	bp := 0
	emit := func(typ, start, origStart, origEnd int) bool {
		if nf >= maxDateFields {
			return false
		}
		fields[nf] = dtField{typ, start, bp, origStart, origEnd}
		nf++
		return true
	}
	put := func(c byte) { low[bp] = lower(c); bp++ }
	for i < len(s) {
		c := s[i]
		start, os := bp, i
		switch {
		case isPGSpace(c):
			i++
			continue
		case isDigit(c):
			for i < len(s) && isDigit(s[i]) {
				put(s[i])
				i++
			}
			typ := dtNumber
			if i < len(s) && s[i] == ':' {
				typ = dtTime
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.') {
					put(s[i])
					i++
				}
			} else if i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.') {
				delim := s[i]
				put(s[i])
				i++
				if i < len(s) && isDigit(s[i]) {
					typ = dtDate
					if delim == '.' {
						typ = dtNumber
					}
					for i < len(s) && isDigit(s[i]) {
						put(s[i])
						i++
					}
					if i < len(s) && s[i] == delim {
						typ = dtDate
						for i < len(s) && (isDigit(s[i]) || s[i] == delim) {
							put(s[i])
							i++
						}
					}
				} else {
					typ = dtDate
					for i < len(s) && (isAlnum(s[i]) || s[i] == delim) {
						put(s[i])
						i++
					}
				}
			}
			if !emit(typ, start, os, i) {
				return 0, false
			}
		case c == '.':
			put(c)
			i++
			for i < len(s) && isDigit(s[i]) {
				put(s[i])
				i++
			}
			if !emit(dtNumber, start, os, i) {
				return 0, false
			}
		case isAlpha(c):
			for i < len(s) && isAlpha(s[i]) {
				put(s[i])
				i++
			}
			typ := dtString
			isDate := false
			if i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.') {
				isDate = true
			} else if i < len(s) && (s[i] == '+' || isDigit(s[i])) {
				if _, ok := dateKeywords[string(low[start:bp])]; !ok {
					isDate = true
				}
			}
			if isDate {
				typ = dtDate
				for i < len(s) && (s[i] == '+' || s[i] == '-' || s[i] == '/' || s[i] == '_' || s[i] == '.' || s[i] == ':' || isAlnum(s[i])) {
					put(s[i])
					i++
				}
			}
			if !emit(typ, start, os, i) {
				return 0, false
			}
		case c == '+' || c == '-':
			put(c)
			i++
			for i < len(s) && isPGSpace(s[i]) {
				i++
			}
			os2 := i
			switch {
			case i < len(s) && isDigit(s[i]):
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.' || s[i] == '-') {
					put(s[i])
					i++
				}
				_ = os2
				if !emit(dtTZ, start, os, i) {
					return 0, false
				}
			case i < len(s) && isAlpha(s[i]):
				for i < len(s) && isAlpha(s[i]) {
					put(s[i])
					i++
				}
				if !emit(dtSpecial, start, os, i) {
					return 0, false
				}
			default:
				return 0, false
			}
		case c < 0x80 && isPunct(c):
			i++
		default:
			return 0, false
		}
	}
	return nf, true
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }
func isPunct(c byte) bool { return c > ' ' && c < 0x7f && !isAlnum(c) }

// Keyword kinds of datetktbl.
const (
	kwMonth = iota + 1
	kwDOW
	kwAMPM
	kwADBC
	kwISOTime
	kwEpoch
	kwInfinity
	kwNegInfinity
	kwNow
	kwToday
	kwTomorrow
	kwYesterday
	kwAllballs
)

type keyword struct{ kind, val int }

// dateKeywords is PostgreSQL's datetktbl (the parts weir supports).
var dateKeywords = map[string]keyword{
	"jan": {kwMonth, 1}, "january": {kwMonth, 1}, "feb": {kwMonth, 2}, "february": {kwMonth, 2},
	"mar": {kwMonth, 3}, "march": {kwMonth, 3}, "apr": {kwMonth, 4}, "april": {kwMonth, 4},
	"may": {kwMonth, 5}, "jun": {kwMonth, 6}, "june": {kwMonth, 6}, "jul": {kwMonth, 7}, "july": {kwMonth, 7},
	"aug": {kwMonth, 8}, "august": {kwMonth, 8}, "sep": {kwMonth, 9}, "sept": {kwMonth, 9}, "september": {kwMonth, 9},
	"oct": {kwMonth, 10}, "october": {kwMonth, 10}, "nov": {kwMonth, 11}, "november": {kwMonth, 11},
	"dec": {kwMonth, 12}, "december": {kwMonth, 12},
	"sun": {kwDOW, 0}, "sunday": {kwDOW, 0}, "mon": {kwDOW, 1}, "monday": {kwDOW, 1},
	"tue": {kwDOW, 2}, "tues": {kwDOW, 2}, "tuesday": {kwDOW, 2}, "wed": {kwDOW, 3}, "wednesday": {kwDOW, 3},
	"thu": {kwDOW, 4}, "thur": {kwDOW, 4}, "thurs": {kwDOW, 4}, "thursday": {kwDOW, 4},
	"fri": {kwDOW, 5}, "friday": {kwDOW, 5}, "sat": {kwDOW, 6}, "saturday": {kwDOW, 6},
	"am": {kwAMPM, 0}, "pm": {kwAMPM, 1}, "a.m.": {kwAMPM, 0}, "p.m.": {kwAMPM, 1},
	"ad": {kwADBC, 0}, "bc": {kwADBC, 1},
	"t":     {kwISOTime, 0},
	"epoch": {kwEpoch, 0}, "infinity": {kwInfinity, 0}, "-infinity": {kwNegInfinity, 0},
	"now": {kwNow, 0}, "today": {kwToday, 0}, "tomorrow": {kwTomorrow, 0}, "yesterday": {kwYesterday, 0},
	"allballs": {kwAllballs, 0},
}

// Field mask bits, as DTK_M(...) in PostgreSQL.
const (
	fmYear = 1 << iota
	fmMonth
	fmDay
	fmHour
	fmMinute
	fmSecond
	fmTZ
	fmDOW
	fmAMPM
	fmADBC
	fmSpecial
	fmDate = fmYear | fmMonth | fmDay
	fmTime = fmHour | fmMinute | fmSecond
)

// Decode failures, mapped to PostgreSQL's DTERR_* reports by report.
const (
	dtOK = iota
	dtBadFormat
	dtFieldOverflow
	dtMDFieldOverflow
	dtTZDispOverflow
)

// dtResult is struct pg_tm plus what DecodeDateTime returns beside it.
type dtResult struct {
	year, mon, mday int64
	hour, min, sec  int64
	fsec            int64 // µs
	special         int   // keyword kind of epoch/infinity/now..., 0 if none
	tz              int   // seconds east of UTC, when hasTZ
	hasTZ           bool
	namedTZ         *time.Location
	fmask           int
	badZone         []byte // unknown zone name with punctuation
}

// decodeDateTime is DecodeDateTime (timeOnly: DecodeTimeOnly, where the
// date is optional).
func decodeDateTime(s []byte, timeOnly bool, fs *FormatSettings) (dtResult, int) {
	order := OrderMDY
	if fs != nil {
		order = fs.DateOrder
	}
	var r dtResult
	var fields [maxDateFields]dtField
	var lowBuf [128]byte
	low := lowBuf[:]
	if 2*len(s) > len(low) {
		low = make([]byte, 2*len(s))
	}
	nf, ok := splitDateTime(s, &fields, low)
	if !ok || nf == 0 {
		return r, dtBadFormat
	}
	fmask := 0
	bc, is2digits, haveTextMonth, isoTime := false, false, false, false
	ampm := -1
	for i := 0; i < nf; i++ {
		fv := fields[i].view(low, s)
		f := &fv
		tmask := 0
		switch f.typ {
		case dtDate:
			if isoTime {
				return r, dtBadFormat
			}
			if fmask&(fmMonth|fmDay) == fmMonth|fmDay {
				if isDigit(f.low[0]) {
					return r, dtBadFormat
				}
				loc, ok := LoadLocation(string(f.orig))
				if !ok {
					r.badZone = append([]byte(nil), f.low...)
					return r, dtBadFormat
				}
				r.namedTZ = loc
				tmask = fmTZ
				break
			}
			var code int
			tmask, code = decodeDate(f.low, fmask, &r, &is2digits, &haveTextMonth, order)
			if code != dtOK {
				return r, code
			}
		case dtTime:
			isoTime = false
			var code int
			tmask, code = decodeTime(f.low, &r)
			if code != dtOK {
				return r, code
			}
			if timeOverflows(r.hour, r.min, r.sec, r.fsec) {
				return r, dtFieldOverflow
			}
		case dtTZ:
			if isoTime {
				return r, dtBadFormat
			}
			tz, code := decodeTimezone(f.low)
			if code != dtOK {
				return r, code
			}
			r.tz, r.hasTZ = tz, true
			tmask = fmTZ
		case dtNumber:
			if isoTime {
				// ISO time run together after "t": hhmmss[.fff].
				isoTime = false
				code := decodeNumberField(f.low, fmask|fmDate, &tmask, &r, &is2digits)
				if code != dtOK {
					return r, code
				}
				break
			}
			var code int
			dot := indexByte(f.low, '.')
			switch {
			case dot >= 0 && fmask&fmDate == 0:
				tmask, code = decodeDate(f.low, fmask, &r, &is2digits, &haveTextMonth, order)
			case dot > 2:
				code = decodeNumberField(f.low, fmask, &tmask, &r, &is2digits)
			case len(f.low) >= 6 && (fmask&fmDate == 0 || fmask&fmTime == 0) && dot < 0:
				code = decodeNumberField(f.low, fmask, &tmask, &r, &is2digits)
			default:
				code = decodeNumber(f.low, haveTextMonth, fmask, &tmask, &r, &is2digits, order)
			}
			if code != dtOK {
				return r, code
			}
		case dtString, dtSpecial:
			if off, ok := zoneAbbrevs[string(f.low)]; ok {
				r.tz, r.hasTZ = off, true
				tmask = fmTZ
				break
			}
			kw, ok := dateKeywords[string(f.low)]
			if !ok {
				loc, ok := LoadLocation(string(f.orig))
				if !ok || f.typ == dtSpecial {
					return r, dtBadFormat
				}
				r.namedTZ = loc
				tmask = fmTZ
				break
			}
			switch kw.kind {
			case kwMonth:
				tmask = fmMonth
				if fmask&fmMonth != 0 && !haveTextMonth && fmask&fmDay == 0 && r.mon >= 1 && r.mon <= 31 {
					// "2 Jan": the number taken as a month was the day.
					r.mday = r.mon
					tmask = fmDay
				}
				r.mon = int64(kw.val)
				haveTextMonth = true
			case kwDOW:
				tmask = fmDOW
			case kwAMPM:
				tmask = fmAMPM
				ampm = kw.val
			case kwADBC:
				tmask = fmADBC
				bc = kw.val == 1
			case kwISOTime:
				// Must be followed by a time; only after a full date.
				if fmask&fmDate != fmDate && !timeOnly || i+1 >= nf {
					return r, dtBadFormat
				}
				isoTime = true
			case kwToday, kwTomorrow, kwYesterday:
				tmask = fmDate
				n := time.Now().In(fs.Location)
				y, m, d := n.Date()
				d += map[int]int{kwToday: 0, kwTomorrow: 1, kwYesterday: -1}[kw.kind]
				t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
				r.year, r.mon, r.mday = int64(t.Year()), int64(t.Month()), int64(t.Day())
				r.special = 0
			case kwAllballs:
				tmask = fmTime | fmTZ
				r.hour, r.min, r.sec, r.fsec = 0, 0, 0, 0
				r.tz, r.hasTZ = 0, true
			default:
				tmask = fmDate | fmTime | fmTZ
				r.special = kw.kind
			}
		}
		if tmask&fmask != 0 {
			return r, dtBadFormat
		}
		fmask |= tmask
	}
	if isoTime {
		return r, dtBadFormat
	}
	r.fmask = fmask
	if r.special != 0 {
		return r, dtOK
	}
	// ValidateDate.
	if fmask&fmYear != 0 {
		switch {
		case bc:
			if r.year <= 0 {
				return r, dtFieldOverflow
			}
			r.year = -(r.year - 1)
		case is2digits:
			if r.year < 70 {
				r.year += 2000
			} else if r.year < 100 {
				r.year += 1900
			}
		case r.year <= 0:
			return r, dtFieldOverflow
		}
	}
	if fmask&fmMonth != 0 && (r.mon < 1 || r.mon > 12) {
		return r, dtMDFieldOverflow
	}
	if fmask&fmDay != 0 && (r.mday < 1 || r.mday > 31) {
		return r, dtMDFieldOverflow
	}
	if fmask&fmDate == fmDate && r.mday > daysInMonth(r.year, r.mon) {
		return r, dtFieldOverflow
	}
	if ampm >= 0 {
		if r.hour > 12 {
			return r, dtFieldOverflow
		}
		if ampm == 0 && r.hour == 12 {
			r.hour = 0
		} else if ampm == 1 && r.hour != 12 {
			r.hour += 12
		}
	}
	if timeOnly {
		if fmask&fmTime != fmTime {
			return r, dtBadFormat
		}
		return r, dtOK
	}
	if fmask&fmDate != fmDate {
		return r, dtBadFormat
	}
	return r, dtOK
}

func indexByte(b []byte, c byte) int {
	for i := range b {
		if b[i] == c {
			return i
		}
	}
	return -1
}

func timeOverflows(h, m, s, fsec int64) bool {
	if h < 0 || h > 24 || m < 0 || m > 59 || s < 0 || s > 60 || fsec < 0 || fsec > MicrosPerSecond {
		return true
	}
	return h == 24 && (m > 0 || s > 0 || fsec > 0)
}

// atoiField parses unsigned decimal digits, failing on overflow of int32
// as strtoint does.
func atoiField(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + int64(c-'0')
		if v > math.MaxInt32 {
			return 0, false
		}
	}
	return v, true
}

// parseFraction reads ".ddd" into µs, rounded as rint(frac*1e6).
func parseFraction(b []byte) (int64, bool) {
	if len(b) == 0 || b[0] != '.' {
		return 0, false
	}
	for _, c := range b[1:] {
		if !isDigit(c) {
			return 0, false
		}
	}
	if len(b) == 1 {
		return 0, true
	}
	f, err := strconv.ParseFloat("0"+string(b), 64)
	if err != nil {
		return 0, false
	}
	return int64(math.RoundToEven(f * 1e6)), true
}

// decodeDate is DecodeDate: a date with embedded punctuation, where any
// alphabetic part is a month name.
func decodeDate(str []byte, fmask int, r *dtResult, is2digits, haveTextMonth *bool, order DateOrder) (int, int) {
	var parts [4][]byte
	n := 0
	for i := 0; i < len(str); {
		for i < len(str) && !isAlnum(str[i]) {
			i++
		}
		if i >= len(str) {
			break
		}
		if n == len(parts) {
			return 0, dtBadFormat
		}
		st := i
		if isDigit(str[i]) {
			for i < len(str) && isDigit(str[i]) {
				i++
			}
		} else {
			for i < len(str) && isAlpha(str[i]) {
				i++
			}
		}
		parts[n] = str[st:i]
		n++
	}
	dmask := 0
	for k := 0; k < n; k++ {
		if isAlpha(parts[k][0]) {
			kw, ok := dateKeywords[string(parts[k])]
			if !ok || kw.kind != kwMonth {
				return 0, dtBadFormat
			}
			if fmask&fmMonth != 0 {
				return 0, dtBadFormat
			}
			r.mon = int64(kw.val)
			*haveTextMonth = true
			dmask |= fmMonth
			fmask |= fmMonth
			parts[k] = nil
		}
	}
	for k := 0; k < n; k++ {
		if parts[k] == nil {
			continue
		}
		var tmask int
		code := decodeNumber(parts[k], *haveTextMonth, fmask, &tmask, r, is2digits, order)
		if code != dtOK {
			return 0, code
		}
		if tmask&fmask != 0 {
			return 0, dtBadFormat
		}
		fmask |= tmask
		dmask |= tmask
	}
	if fmask&fmDate != fmDate {
		return 0, dtBadFormat
	}
	return dmask, dtOK
}

// decodeNumber is DecodeNumber: a number's field follows from the fields
// already seen and DateStyle's order.
func decodeNumber(str []byte, haveTextMonth bool, fmask int, tmask *int, r *dtResult, is2digits *bool, order DateOrder) int {
	*tmask = 0
	digits := str
	var frac []byte
	if k := indexByte(str, '.'); k >= 0 {
		digits, frac = str[:k], str[k:]
	}
	val, ok := atoiField(digits)
	if !ok {
		if len(digits) > 0 && allDigits(digits) {
			return dtFieldOverflow
		}
		return dtBadFormat
	}
	if frac != nil {
		if len(digits) > 2 {
			return decodeNumberField(str, fmask, tmask, r, is2digits)
		}
		fs, ok := parseFraction(frac)
		if !ok {
			return dtBadFormat
		}
		r.fsec = fs
	}
	flen := len(digits)
	switch fmask & fmDate {
	case 0:
		switch {
		case flen >= 3 || order == OrderYMD:
			*tmask = fmYear
			r.year = val
		case order == OrderDMY:
			*tmask = fmDay
			r.mday = val
		default:
			*tmask = fmMonth
			r.mon = val
		}
	case fmYear:
		*tmask = fmMonth
		r.mon = val
	case fmMonth:
		if haveTextMonth && (flen >= 3 || order == OrderYMD) {
			*tmask = fmYear
			r.year = val
		} else {
			*tmask = fmDay
			r.mday = val
		}
	case fmYear | fmMonth:
		if haveTextMonth && flen >= 3 && *is2digits {
			*tmask = fmDay
			r.mday = r.year
			r.year = val
			*is2digits = false
		} else {
			*tmask = fmDay
			r.mday = val
		}
	case fmDay:
		*tmask = fmMonth
		r.mon = val
	case fmMonth | fmDay:
		*tmask = fmYear
		r.year = val
	case fmDate:
		return decodeNumberField(str, fmask, tmask, r, is2digits)
	default:
		return dtBadFormat
	}
	if *tmask == fmYear {
		*is2digits = flen <= 2
	}
	return dtOK
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// decodeNumberField is DecodeNumberField: run-together yyyymmdd, yymmdd,
// hhmmss[.fff] or hhmm.
func decodeNumberField(str []byte, fmask int, tmask *int, r *dtResult, is2digits *bool) int {
	digits := str
	if k := indexByte(str, '.'); k >= 0 {
		fs, ok := parseFraction(str[k:])
		if !ok {
			return dtBadFormat
		}
		r.fsec = fs
		digits = str[:k]
	}
	if !allDigits(digits) {
		return dtBadFormat
	}
	n := len(digits)
	num := func(a, b int) int64 { v, _ := strconv.ParseInt(string(digits[a:b]), 10, 64); return v }
	if fmask&fmDate == 0 {
		if n >= 6 {
			*tmask = fmDate
			r.mday = num(n-2, n)
			r.mon = num(n-4, n-2)
			r.year = num(0, n-4)
			if n-4 == 2 {
				*is2digits = true
			}
			if n-4 > 9 {
				return dtFieldOverflow
			}
			return dtOK
		}
	}
	if fmask&fmTime == 0 {
		switch n {
		case 6:
			*tmask = fmTime
			r.hour, r.min, r.sec = num(0, 2), num(2, 4), num(4, 6)
			return dtOK
		case 4:
			*tmask = fmTime
			r.hour, r.min, r.sec = num(0, 2), num(2, 4), 0
			return dtOK
		}
	}
	return dtBadFormat
}

// decodeTime is DecodeTime: hh:mm[:ss[.fff]], or mm:ss.fff.
func decodeTime(str []byte, r *dtResult) (int, int) {
	var parts [3][]byte
	n := 0
	st := 0
	for i := 0; i <= len(str); i++ {
		if i == len(str) || str[i] == ':' {
			if n == 3 {
				return 0, dtBadFormat
			}
			parts[n] = str[st:i]
			n++
			st = i + 1
		}
	}
	if n < 2 {
		return 0, dtBadFormat
	}
	h, ok := atoiField(parts[0])
	if !ok {
		return 0, dtBadFormat
	}
	var m, sec, fsec int64
	mdig, mfrac := parts[1], []byte(nil)
	if k := indexByte(mdig, '.'); k >= 0 {
		mdig, mfrac = mdig[:k], mdig[k:]
	}
	if m, ok = atoiField(mdig); !ok {
		return 0, dtBadFormat
	}
	if mfrac != nil {
		// mm:ss.fff
		if n == 3 {
			return 0, dtBadFormat
		}
		if fsec, ok = parseFraction(mfrac); !ok {
			return 0, dtBadFormat
		}
		h, m, sec = 0, h, m
	} else if n == 3 {
		sdig, sfrac := parts[2], []byte(nil)
		if k := indexByte(sdig, '.'); k >= 0 {
			sdig, sfrac = sdig[:k], sdig[k:]
		}
		if sec, ok = atoiField(sdig); !ok {
			return 0, dtBadFormat
		}
		if sfrac != nil {
			if fsec, ok = parseFraction(sfrac); !ok {
				return 0, dtBadFormat
			}
		}
	}
	r.hour, r.min, r.sec, r.fsec = h, m, sec, fsec
	return fmTime, dtOK
}

// decodeTimezone is DecodeTimezone: +hh, +hhmm, +hh:mm, +hh:mm:ss.
// The result is seconds east of UTC.
func decodeTimezone(str []byte) (int, int) {
	neg := str[0] == '-'
	body := str[1:]
	k := 0
	for k < len(body) && isDigit(body[k]) {
		k++
	}
	hr, ok := atoiField(body[:k])
	if !ok {
		if k > 0 {
			return 0, dtTZDispOverflow
		}
		return 0, dtBadFormat
	}
	rest := body[k:]
	var mi, sec int64
	if len(rest) > 0 && rest[0] == ':' {
		rest = rest[1:]
		k = 0
		for k < len(rest) && isDigit(rest[k]) {
			k++
		}
		mi, _ = atoiField(rest[:k])
		rest = rest[k:]
		if len(rest) > 0 && rest[0] == ':' {
			rest = rest[1:]
			k = 0
			for k < len(rest) && isDigit(rest[k]) {
				k++
			}
			sec, _ = atoiField(rest[:k])
			rest = rest[k:]
		}
	} else if len(rest) == 0 && len(str) > 3 {
		mi = hr % 100
		hr /= 100
	}
	if hr > 15 || mi >= 60 || sec >= 60 {
		return 0, dtTZDispOverflow
	}
	if len(rest) != 0 {
		return 0, dtBadFormat
	}
	tz := int((hr*60+mi)*60 + sec)
	if neg {
		tz = -tz
	}
	return tz, dtOK
}

// dateTimeError turns a decode failure into PostgreSQL's report.
func dateTimeError(code int, t T, s []byte, r *dtResult) error {
	switch code {
	case dtFieldOverflow:
		return errFieldOverflow(s)
	case dtMDFieldOverflow:
		return errFieldOverflow(s).WithHint("Perhaps you need a different \"datestyle\" setting.")
	case dtTZDispOverflow:
		return sqlerr.New(codeInvalidTimeZoneDisplace, "time zone displacement out of range: \"%s\"", s)
	}
	if r != nil && r.badZone != nil {
		return sqlerr.New(sqlerr.InvalidParameterValue, "time zone \"%s\" not recognized", r.badZone)
	}
	return errInvalidSyntax(t, s)
}

// civilMicros converts decoded fields to µs since 1970 of the wall clock.
func (r *dtResult) civilMicros() (int64, bool) {
	if r.year < -4800 || r.year > 294300 {
		return 0, false
	}
	days := DaysFromCivil(r.year, r.mon, r.mday)
	return days*MicrosPerDay + ((r.hour*60+r.min)*60+r.sec)*MicrosPerSecond + r.fsec, true
}

// ParseTimestamp is timestamp_in: µs since 1970 of the wall-clock time
// written in s; a time zone in s is ignored.
func ParseTimestamp(s string) (int64, error) {
	return parseTimestampText(Timestamp, []byte(s), &DefaultFormat)
}

// ParseTimestampTZ is timestamptz_in: the instant written in s, where a
// missing time zone means loc.
func ParseTimestampTZ(s string, loc *time.Location) (int64, error) {
	fs := FormatSettings{Location: loc, ExtraFloatDigits: 1}
	return parseTimestampText(TimestampTZ, []byte(s), &fs)
}

// ParseDate is date_in: days since 1970-01-01.
func ParseDate(s string) (int32, error) {
	return parseDateText(Date, []byte(s), &DefaultFormat)
}

// ParseTime is time_in: µs since midnight.
func ParseTime(s string) (int64, error) {
	return parseTimeText(Time, []byte(s), &DefaultFormat)
}

func parseTimestampText(t T, s []byte, fs *FormatSettings) (int64, error) {
	if civil, tz, hasTZ, ok := ParseISOTimestamp(s); ok && (t.Typmod < 0 || t.Typmod >= 6) {
		if t.OID == OidTimestampTZ {
			if hasTZ {
				return civil - int64(tz)*MicrosPerSecond, nil
			}
			return LocalToUTC(civil, fs.Location), nil
		}
		return civil, nil
	}
	r, code := decodeDateTime(s, false, fs)
	if code != dtOK {
		return 0, dateTimeError(code, t, s, &r)
	}
	switch r.special {
	case kwEpoch:
		return 0, nil
	case kwInfinity:
		return TimestampInfinity, nil
	case kwNegInfinity:
		return TimestampNegInfinity, nil
	case kwNow:
		us := time.Now().UnixMicro()
		if t.OID == OidTimestamp {
			us = UTCToLocal(us, fs.Location)
		}
		return RoundMicros(us, t.Typmod), nil
	}
	us, ok := r.civilMicros()
	if !ok {
		return 0, sqlerr.New(sqlerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", s)
	}
	if t.OID == OidTimestampTZ {
		switch {
		case r.hasTZ:
			us -= int64(r.tz) * MicrosPerSecond
		case r.namedTZ != nil:
			us = LocalToUTC(us, r.namedTZ)
		default:
			us = LocalToUTC(us, fs.Location)
		}
	}
	us = RoundMicros(us, t.Typmod)
	if us < minTimestampMicros || us == TimestampInfinity || r.year > 294247 {
		return 0, sqlerr.New(sqlerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", s)
	}
	return us, nil
}

func parseDateText(t T, s []byte, fs *FormatSettings) (int32, error) {
	r, code := decodeDateTime(s, false, fs)
	if code != dtOK {
		return 0, dateTimeError(code, t, s, &r)
	}
	switch r.special {
	case kwEpoch:
		return 0, nil
	case kwInfinity:
		return DateInfinity, nil
	case kwNegInfinity:
		return DateNegInfinity, nil
	case kwNow:
		y, m, d := time.Now().In(fs.Location).Date()
		return int32(DaysFromCivil(int64(y), int64(m), int64(d))), nil
	}
	if r.year < -4713 || r.year > 5874898 {
		return 0, sqlerr.New(sqlerr.DatetimeFieldOverflow, "date out of range: \"%s\"", s)
	}
	days := DaysFromCivil(r.year, r.mon, r.mday)
	if days < minDateDays || days > maxDateDays {
		return 0, sqlerr.New(sqlerr.DatetimeFieldOverflow, "date out of range: \"%s\"", s)
	}
	return int32(days), nil
}

func parseTimeText(t T, s []byte, fs *FormatSettings) (int64, error) {
	r, code := decodeDateTime(s, true, fs)
	if code == dtOK && r.special != 0 {
		if r.special == kwNow {
			n := time.Now().In(fs.Location)
			return RoundMicros(int64(n.Hour())*MicrosPerHour+int64(n.Minute())*MicrosPerMinute+
				int64(n.Second())*MicrosPerSecond+int64(n.Nanosecond()/1000), t.Typmod), nil
		}
		code = dtBadFormat
	}
	if code != dtOK {
		return 0, dateTimeError(code, t, s, &r)
	}
	if timeOverflows(r.hour, r.min, r.sec, r.fsec) {
		return 0, errFieldOverflow(s)
	}
	us := ((r.hour*60+r.min)*60+r.sec)*MicrosPerSecond + r.fsec
	us = RoundMicros(us, t.Typmod)
	if us > MicrosPerDay {
		return 0, errFieldOverflow(s)
	}
	return us, nil
}
