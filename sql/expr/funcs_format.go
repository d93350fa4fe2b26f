package expr

// PostgreSQL's formatting functions (src/backend/utils/adt/formatting.c):
// to_char over date/time values and intervals, to_timestamp(text, text)
// and to_date(text, text). The number flavour of to_char is in
// funcs_format_num.go. Behaviour follows PostgreSQL 15 in the C locale.

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Format node kinds.
const (
	fmtAction = iota
	fmtChar
	fmtSpace
	fmtSeparator
)

// Date-mode of a keyword for to_timestamp (Gregorian vs ISO week dates).
const (
	fmtDateNone = iota
	fmtDateGreg
	fmtDateISO
)

// DCH suffix flags.
const (
	sufFM = 1 << iota
	sufTH
	sufth
	sufSP
	sufTM
)

type fmtKey struct {
	name  string
	id    string // canonical id (upper case, except where case changes output)
	digit bool
	mode  int
}

type fmtNode struct {
	kind   int
	key    *fmtKey
	ch     string
	suffix int
}

func dk(name, id string, digit bool, mode int) fmtKey {
	return fmtKey{name: name, id: id, digit: digit, mode: mode}
}

// dchKeys is PostgreSQL's DCH_keywords in its search order.
var dchKeys = []fmtKey{
	dk("A.D.", "A.D.", false, 0), dk("A.M.", "A.M.", false, 0), dk("AD", "AD", false, 0), dk("AM", "AM", false, 0),
	dk("B.C.", "B.C.", false, 0), dk("BC", "BC", false, 0), dk("CC", "CC", true, 0),
	dk("DAY", "DAY", false, 0), dk("DDD", "DDD", true, fmtDateGreg), dk("DD", "DD", true, fmtDateGreg),
	dk("DY", "DY", false, 0), dk("Day", "Day", false, 0), dk("Dy", "Dy", false, 0), dk("D", "D", true, fmtDateGreg),
	dk("FF1", "FF1", true, 0), dk("FF2", "FF2", true, 0), dk("FF3", "FF3", true, 0), dk("FF4", "FF4", true, 0),
	dk("FF5", "FF5", true, 0), dk("FF6", "FF6", true, 0), dk("FX", "FX", false, 0),
	dk("HH24", "HH24", true, 0), dk("HH12", "HH12", true, 0), dk("HH", "HH", true, 0),
	dk("IDDD", "IDDD", true, fmtDateISO), dk("ID", "ID", true, fmtDateISO), dk("IW", "IW", true, fmtDateISO),
	dk("IYYY", "IYYY", true, fmtDateISO), dk("IYY", "IYY", true, fmtDateISO), dk("IY", "IY", true, fmtDateISO),
	dk("I", "I", true, fmtDateISO), dk("J", "J", true, 0), dk("MI", "MI", true, 0), dk("MM", "MM", true, fmtDateGreg),
	dk("MONTH", "MONTH", false, fmtDateGreg), dk("MON", "MON", false, fmtDateGreg), dk("MS", "MS", true, 0),
	dk("Month", "Month", false, fmtDateGreg), dk("Mon", "Mon", false, fmtDateGreg), dk("OF", "OF", false, 0),
	dk("P.M.", "P.M.", false, 0), dk("PM", "PM", false, 0), dk("Q", "Q", true, 0), dk("RM", "RM", false, fmtDateGreg),
	dk("SSSSS", "SSSS", true, 0), dk("SSSS", "SSSS", true, 0), dk("SS", "SS", true, 0),
	dk("TZH", "TZH", false, 0), dk("TZM", "TZM", true, 0), dk("TZ", "TZ", false, 0), dk("US", "US", true, 0),
	dk("WW", "WW", true, fmtDateGreg), dk("W", "W", true, fmtDateGreg),
	dk("Y,YYY", "Y,YYY", true, fmtDateGreg), dk("YYYY", "YYYY", true, fmtDateGreg), dk("YYY", "YYY", true, fmtDateGreg),
	dk("YY", "YY", true, fmtDateGreg), dk("Y", "Y", true, fmtDateGreg),
	dk("a.d.", "a.d.", false, 0), dk("a.m.", "a.m.", false, 0), dk("ad", "ad", false, 0), dk("am", "am", false, 0),
	dk("b.c.", "b.c.", false, 0), dk("bc", "bc", false, 0), dk("cc", "CC", true, 0),
	dk("day", "day", false, 0), dk("ddd", "DDD", true, fmtDateGreg), dk("dd", "DD", true, fmtDateGreg),
	dk("dy", "dy", false, 0), dk("d", "D", true, fmtDateGreg),
	dk("ff1", "FF1", true, 0), dk("ff2", "FF2", true, 0), dk("ff3", "FF3", true, 0), dk("ff4", "FF4", true, 0),
	dk("ff5", "FF5", true, 0), dk("ff6", "FF6", true, 0), dk("fx", "FX", false, 0),
	dk("hh24", "HH24", true, 0), dk("hh12", "HH12", true, 0), dk("hh", "HH", true, 0),
	dk("iddd", "IDDD", true, fmtDateISO), dk("id", "ID", true, fmtDateISO), dk("iw", "IW", true, fmtDateISO),
	dk("iyyy", "IYYY", true, fmtDateISO), dk("iyy", "IYY", true, fmtDateISO), dk("iy", "IY", true, fmtDateISO),
	dk("i", "I", true, fmtDateISO), dk("j", "J", true, 0), dk("mi", "MI", true, 0), dk("mm", "MM", true, fmtDateGreg),
	dk("month", "month", false, fmtDateGreg), dk("mon", "mon", false, fmtDateGreg), dk("ms", "MS", true, 0),
	dk("of", "OF", false, 0), dk("p.m.", "p.m.", false, 0), dk("pm", "pm", false, 0), dk("q", "Q", true, 0),
	dk("rm", "rm", false, fmtDateGreg), dk("sssss", "SSSS", true, 0), dk("ssss", "SSSS", true, 0), dk("ss", "SS", true, 0),
	dk("tzh", "TZH", false, 0), dk("tzm", "TZM", true, 0), dk("tz", "tz", false, 0), dk("us", "US", true, 0),
	dk("ww", "WW", true, fmtDateGreg), dk("w", "W", true, fmtDateGreg),
	dk("y,yyy", "Y,YYY", true, fmtDateGreg), dk("yyyy", "YYYY", true, fmtDateGreg), dk("yyy", "YYY", true, fmtDateGreg),
	dk("yy", "YY", true, fmtDateGreg), dk("y", "Y", true, fmtDateGreg),
}

func searchKey(s string, keys []fmtKey) *fmtKey {
	for i := range keys {
		if strings.HasPrefix(s, keys[i].name) {
			return &keys[i]
		}
	}
	return nil
}

func isSeparatorChar(c byte) bool {
	return c > 0x20 && c < 0x7f && !('A' <= c && c <= 'Z') && !('a' <= c && c <= 'z') && !('0' <= c && c <= '9')
}

func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func charLen(s string) int {
	if s == "" {
		return 0
	}
	_, n := utf8.DecodeRuneInString(s)
	if n < 1 {
		n = 1
	}
	return n
}

// parseFormat is PostgreSQL's parse_format; dch selects the date/time
// flavour (suffixes, separators) over the number flavour.
func parseFormat(str string, keys []fmtKey, dch bool) []fmtNode {
	var out []fmtNode
	for str != "" {
		suffix := 0
		if dch {
			switch {
			case strings.HasPrefix(str, "FM") || strings.HasPrefix(str, "fm"):
				suffix |= sufFM
				str = str[2:]
			case strings.HasPrefix(str, "TM") || strings.HasPrefix(str, "tm"):
				suffix |= sufTM
				str = str[2:]
			}
		}
		if str == "" {
			break
		}
		if k := searchKey(str, keys); k != nil {
			n := fmtNode{kind: fmtAction, key: k, suffix: suffix}
			str = str[len(k.name):]
			if dch && str != "" {
				switch {
				case strings.HasPrefix(str, "TH"):
					n.suffix |= sufTH
					str = str[2:]
				case strings.HasPrefix(str, "th"):
					n.suffix |= sufth
					str = str[2:]
				case strings.HasPrefix(str, "SP"):
					n.suffix |= sufSP
					str = str[2:]
				}
			}
			out = append(out, n)
			continue
		}
		if str[0] == '"' {
			str = str[1:]
			for str != "" {
				if str[0] == '"' {
					str = str[1:]
					break
				}
				if str[0] == '\\' && len(str) > 1 {
					str = str[1:]
				}
				l := charLen(str)
				out = append(out, fmtNode{kind: fmtChar, ch: str[:l]})
				str = str[l:]
			}
			continue
		}
		if str[0] == '\\' && len(str) > 1 && str[1] == '"' {
			str = str[1:]
		}
		l := charLen(str)
		n := fmtNode{kind: fmtChar, ch: str[:l]}
		if dch && l == 1 && isSeparatorChar(str[0]) {
			n.kind = fmtSeparator
		} else if l == 1 && isCSpace(str[0]) {
			n.kind = fmtSpace
		}
		out = append(out, n)
		str = str[l:]
	}
	return out
}

var (
	monthsFull = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	monthsAbbr = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	daysFull   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	daysAbbr   = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	rmUpper    = []string{"XII", "XI", "X", "IX", "VIII", "VII", "VI", "V", "IV", "III", "II", "I"}
	rmLower    = []string{"xii", "xi", "x", "ix", "viii", "vii", "vi", "v", "iv", "iii", "ii", "i"}
)

// fmtTm holds the broken-down value to_char formats.
type fmtTm struct {
	year, mon, mday int64
	hour, min, sec  int64
	fsec            int64
	yday, wday      int64
	gmtoff          int64
	tzn             string
	interval        bool
	days            int64 // day number since 1970 (not for intervals)
}

func tmFromWall(wall int64) fmtTm {
	days := floorDiv(wall, usPerDay)
	tod := wall - days*usPerDay
	y, m, d := civil(days)
	return fmtTm{
		year: y, mon: m, mday: d,
		hour: tod / usPerHour, min: tod / usPerMin % 60, sec: tod / usPerSec % 60, fsec: tod % usPerSec,
		yday: days - daysFromCivil(y, 1, 1) + 1, wday: floorMod(days+4, 7), days: days,
	}
}

func tmFromInterval(iv arrow.MonthDayNanoInterval) fmtTm {
	us := iv.Nanoseconds / 1000
	t := fmtTm{interval: true}
	t.year = int64(iv.Months) / 12
	t.mon = int64(iv.Months) % 12
	t.mday = int64(iv.Days)
	t.hour = us / usPerHour
	us -= t.hour * usPerHour
	t.min = us / usPerMin
	us -= t.min * usPerMin
	t.sec = us / usPerSec
	t.fsec = us - t.sec*usPerSec
	t.yday = (t.year*12+t.mon)*30 + t.mday
	t.days = daysFromCivil(t.year, t.mon, t.mday)
	return t
}

// isoWeek1Monday is the day number of the Monday starting ISO week 1 of y.
func isoWeek1Monday(y int64) int64 {
	d4 := daysFromCivil(y, 1, 4)
	return d4 - floorMod(floorMod(d4+4, 7)+6, 7)
}

// isoYearOf returns the ISO year of a day number and the Monday of its week 1.
func isoYearOf(days, y int64) (int64, int64) {
	m := isoWeek1Monday(y)
	if days < m {
		return y - 1, isoWeek1Monday(y - 1)
	}
	if n := isoWeek1Monday(y + 1); days >= n {
		return y + 1, n
	}
	return y, m
}

func adjustYear(y int64, interval bool) int64 {
	if interval || y > 0 {
		return y
	}
	return -(y - 1)
}

func padNum(v int64, width int) string {
	return fmt.Sprintf("%0*d", width, v)
}

// numTH is get_th: the ordinal suffix of a number's text.
func numTH(num string, upper bool) (string, error) {
	if num == "" || num[len(num)-1] < '0' || num[len(num)-1] > '9' {
		return "", sqlerr.New(sqlerr.InvalidTextRepresentation, "\"%s\" is not a number", num)
	}
	last := num[len(num)-1]
	if len(num) > 1 && num[len(num)-2] == '1' {
		last = 0
	}
	s := "th"
	switch last {
	case '1':
		s = "st"
	case '2':
		s = "nd"
	case '3':
		s = "rd"
	}
	if upper {
		s = strings.ToUpper(s)
	}
	return s, nil
}

func invalidForInterval() error {
	return sqlerr.New(sqlerr.InvalidDatetimeFormat, "invalid format specification for an interval value").
		WithHint("Intervals are not tied to specific calendar dates.")
}

func padName(s string, fm bool) string {
	if fm { // FM, or TM (translation mode prints no padding)
		return s
	}
	return fmt.Sprintf("%-9s", s)
}

// dchToChar is DCH_to_char.
func dchToChar(nodes []fmtNode, t *fmtTm) (string, error) {
	b, err := appendDCH(nil, nodes, t)
	return string(b), err
}

// appendDCH is DCH_to_char appending to b: the numeric fields are
// written as digits straight into b (no string per field), so that a
// kernel formats a column into one buffer.
func appendDCH(b []byte, nodes []fmtNode, t *fmtTm) ([]byte, error) {
	ampm := func(pm, am string) string {
		if t.hour%24 >= 12 {
			return pm
		}
		return am
	}
	for i := range nodes {
		n := &nodes[i]
		if n.kind != fmtAction {
			b = append(b, n.ch...)
			continue
		}
		fm := n.suffix&sufFM != 0
		nameFM := n.suffix&(sufFM|sufTM) != 0
		start := len(b)
		var s string
		numeric := true
		switch n.key.id {
		case "A.M.", "P.M.":
			s, numeric = ampm("P.M.", "A.M."), false
		case "AM", "PM":
			s, numeric = ampm("PM", "AM"), false
		case "a.m.", "p.m.":
			s, numeric = ampm("p.m.", "a.m."), false
		case "am", "pm":
			s, numeric = ampm("pm", "am"), false
		case "HH", "HH12":
			h := t.hour % 12
			if h == 0 {
				h = 12
			}
			if fm {
				b = strconv.AppendInt(b, h, 10)
			} else if t.hour >= 0 {
				b = appendPadNum(b, h, 2)
			} else {
				b = appendPadNum(b, h, 3)
			}
		case "HH24":
			b = dchNum(b, fm, 2, 3, t.hour)
		case "MI":
			b = dchNum(b, fm, 2, 3, t.min)
		case "SS":
			b = dchNum(b, fm, 2, 3, t.sec)
		case "FF1":
			b = appendPadNum(b, t.fsec/100000, 1)
		case "FF2":
			b = appendPadNum(b, t.fsec/10000, 2)
		case "FF3", "MS":
			b = appendPadNum(b, t.fsec/1000, 3)
		case "FF4":
			b = appendPadNum(b, t.fsec/100, 4)
		case "FF5":
			b = appendPadNum(b, t.fsec/10, 5)
		case "FF6", "US":
			b = appendPadNum(b, t.fsec, 6)
		case "SSSS":
			b = strconv.AppendInt(b, t.hour*3600+t.min*60+t.sec, 10)
		case "tz", "TZ":
			if t.interval {
				return nil, invalidForInterval()
			}
			s, numeric = t.tzn, false
			if n.key.id == "tz" {
				s = strings.ToLower(s)
			}
		case "TZH":
			if t.interval {
				return nil, invalidForInterval()
			}
			sign, off := offSign(t.gmtoff)
			s, numeric = fmt.Sprintf("%c%02d", sign, off/3600), false
		case "TZM":
			if t.interval {
				return nil, invalidForInterval()
			}
			_, off := offSign(t.gmtoff)
			s, numeric = fmt.Sprintf("%02d", off%3600/60), false
		case "OF":
			if t.interval {
				return nil, invalidForInterval()
			}
			sign, off := offSign(t.gmtoff)
			if fm {
				s = fmt.Sprintf("%c%d", sign, off/3600)
			} else {
				s = fmt.Sprintf("%c%02d", sign, off/3600)
			}
			if off%3600 != 0 {
				s += fmt.Sprintf(":%02d", off%3600/60)
			}
			numeric = false
		case "A.D.", "B.C.", "AD", "BC", "a.d.", "b.c.", "ad", "bc":
			if t.interval {
				return nil, invalidForInterval()
			}
			bc := t.year <= 0
			switch n.key.id {
			case "A.D.", "B.C.":
				s = pick(bc, "B.C.", "A.D.")
			case "AD", "BC":
				s = pick(bc, "BC", "AD")
			case "a.d.", "b.c.":
				s = pick(bc, "b.c.", "a.d.")
			default:
				s = pick(bc, "bc", "ad")
			}
			numeric = false
		case "MONTH", "Month", "month", "MON", "Mon", "mon":
			if t.interval {
				return nil, invalidForInterval()
			}
			numeric = false
			if t.mon == 0 {
				continue
			}
			switch n.key.id {
			case "MONTH":
				s = padName(strings.ToUpper(monthsFull[t.mon-1]), nameFM)
			case "Month":
				s = padName(monthsFull[t.mon-1], nameFM)
			case "month":
				s = padName(strings.ToLower(monthsFull[t.mon-1]), nameFM)
			case "MON":
				s = strings.ToUpper(monthsAbbr[t.mon-1])
			case "Mon":
				s = monthsAbbr[t.mon-1]
			default:
				s = strings.ToLower(monthsAbbr[t.mon-1])
			}
		case "MM":
			b = dchNum(b, fm, 2, 3, t.mon)
		case "DAY", "Day", "day", "DY", "Dy", "dy":
			if t.interval {
				return nil, invalidForInterval()
			}
			numeric = false
			switch n.key.id {
			case "DAY":
				s = padName(strings.ToUpper(daysFull[t.wday]), nameFM)
			case "Day":
				s = padName(daysFull[t.wday], nameFM)
			case "day":
				s = padName(strings.ToLower(daysFull[t.wday]), nameFM)
			case "DY":
				s = strings.ToUpper(daysAbbr[t.wday])
			case "Dy":
				s = daysAbbr[t.wday]
			default:
				s = strings.ToLower(daysAbbr[t.wday])
			}
		case "DDD":
			b = dchNum(b, fm, 3, 3, t.yday)
		case "IDDD":
			iy, mon1 := isoYearOf(t.days, t.year)
			_ = iy
			b = dchNum(b, fm, 3, 3, t.days-mon1+1)
		case "DD":
			b = dchNum(b, fm, 2, 2, t.mday)
		case "D":
			if t.interval {
				return nil, invalidForInterval()
			}
			b = strconv.AppendInt(b, t.wday+1, 10)
		case "ID":
			if t.interval {
				return nil, invalidForInterval()
			}
			d := t.wday
			if d == 0 {
				d = 7
			}
			b = strconv.AppendInt(b, d, 10)
		case "WW":
			b = dchNum(b, fm, 2, 2, (t.yday-1)/7+1)
		case "IW":
			_, mon1 := isoYearOf(t.days, t.year)
			b = dchNum(b, fm, 2, 2, floorDiv(t.days-mon1, 7)+1)
		case "Q":
			if t.mon == 0 {
				continue
			}
			b = strconv.AppendInt(b, (t.mon-1)/3+1, 10)
		case "CC":
			var c int64
			switch {
			case t.interval:
				c = t.year / 100
			case t.year > 0:
				c = (t.year-1)/100 + 1
			default:
				c = t.year/100 - 1
			}
			if c <= 99 && c >= -99 {
				b = dchNum(b, fm, 2, 3, c)
			} else {
				b = strconv.AppendInt(b, c, 10)
			}
		case "Y,YYY":
			y := adjustYear(t.year, t.interval)
			s = fmt.Sprintf("%d,%03d", y/1000, y-(y/1000)*1000)
		case "YYYY", "IYYY", "YYY", "IYY", "YY", "IY", "Y", "I":
			y := t.year
			if n.key.id[0] == 'I' {
				y, _ = isoYearOf(t.days, t.year)
			}
			y = adjustYear(y, t.interval)
			switch len(n.key.id) {
			case 4:
				b = dchNum(b, fm, 4, 5, y)
			case 3:
				b = dchNum(b, fm, 3, 4, y%1000)
			case 2:
				b = dchNum(b, fm, 2, 3, y%100)
			default:
				s = fmt.Sprintf("%1d", y%10)
			}
		case "RM", "rm":
			numeric = false
			if t.mon == 0 && t.year == 0 {
				continue
			}
			var idx int64
			switch {
			case t.mon == 0:
				idx = pick(t.year >= 0, int64(0), 11)
			case t.mon < 0:
				idx = -(t.mon + 1)
			default:
				idx = 12 - t.mon
			}
			arr := rmUpper
			if n.key.id == "rm" {
				arr = rmLower
			}
			if fm {
				s = arr[idx]
			} else {
				s = fmt.Sprintf("%-4s", arr[idx])
			}
		case "W":
			b = strconv.AppendInt(b, (t.mday-1)/7+1, 10)
		case "J":
			b = strconv.AppendInt(b, t.days+2440588, 10)
		case "FX":
			continue
		default:
			continue
		}
		b = append(b, s...)
		if numeric && n.suffix&(sufTH|sufth) != 0 {
			th, err := numTH(string(b[start:]), n.suffix&sufTH != 0)
			if err != nil {
				return nil, err
			}
			b = append(b, th...)
		}
	}
	return b, nil
}

// dchNum appends a numeric field: v as is under FM, else zero-padded to
// width (negWidth when negative: the sign takes a place).
func dchNum(b []byte, fm bool, width, negWidth int, v int64) []byte {
	switch {
	case fm:
		return strconv.AppendInt(b, v, 10)
	case v < 0:
		return appendPadNum(b, v, negWidth)
	}
	return appendPadNum(b, v, width)
}

// appendPadNum appends v zero-padded to width characters, the sign
// included (printf's %0*d).
func appendPadNum(b []byte, v int64, width int) []byte {
	var tmp [24]byte
	digits := strconv.AppendInt(tmp[:0], v, 10)
	if v < 0 {
		b = append(b, '-')
		digits = digits[1:]
		width--
	}
	for k := len(digits); k < width; k++ {
		b = append(b, '0')
	}
	return append(b, digits...)
}

func pick[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

func offSign(off int64) (byte, int64) {
	if off >= 0 {
		return '+', off
	}
	return '-', -off
}

func timestampToChar(wall int64, tz bool, utc int64, loc *time.Location, format string) (Datum, error) {
	if wall == types.TimestampInfinity || wall == types.TimestampNegInfinity || format == "" {
		return nil, nil
	}
	t := tmFromWall(wall)
	if tz {
		name, off := time.Unix(floorDiv(utc, usPerSec), 0).In(loc).Zone()
		t.tzn, t.gmtoff = name, int64(off)
	}
	s, err := dchToChar(parseFormat(format, dchKeys, true), &t)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// ---- to_timestamp / to_date ----

type tmFromChar struct {
	mode                              int
	hh, pm, mi, ss, ssss, d, dd, ddd  int64
	mm, ww, w, cc, j, us, yysz, clock int64
	ms, year, bc, ff                  int64
	tzsign, tzh, tzm                  int64
}

func fcSetInt(dest *int64, v int64, n *fmtNode) error {
	if *dest != 0 && *dest != v {
		return sqlerr.New(sqlerr.InvalidDatetimeFormat, "conflicting values for \"%s\" field in formatting string", n.key.name).
			WithDetail("This value contradicts a previous setting for the same field type.")
	}
	*dest = v
	return nil
}

func isNextSeparator(nodes []fmtNode, i int) bool {
	n := &nodes[i]
	if n.kind == fmtAction && n.suffix&(sufTH|sufth) != 0 {
		return true
	}
	if i+1 >= len(nodes) {
		return true
	}
	nx := &nodes[i+1]
	if nx.kind == fmtAction {
		return !nx.key.digit
	}
	if len(nx.ch) == 1 && nx.ch[0] >= '0' && nx.ch[0] <= '9' {
		return false
	}
	return true
}

// cStrtol mimics strtol(s, &end, 10): it returns the value, the bytes
// consumed (0 when nothing converted) and whether it overflowed int64.
func cStrtol(s string) (int64, int, bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	var v int64
	over := false
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if v > (1<<62)/5 {
			over = true
		} else {
			v = v*10 + int64(s[i]-'0')
		}
		i++
	}
	if i == start {
		return 0, 0, false
	}
	if neg {
		v = -v
	}
	return v, i, over
}

// fcParseIntLen is from_char_parse_int_len; it returns the bytes consumed.
func fcParseIntLen(dest *int64, src *string, length int, nodes []fmtNode, i int) (int, error) {
	n := &nodes[i]
	init := *src
	s := init
	for s != "" && isCSpace(s[0]) {
		s = s[1:]
	}
	cp := s
	if len(cp) > length {
		cp = cp[:length]
	}
	var result int64
	var over bool
	if n.suffix&sufFM != 0 || isNextSeparator(nodes, i) {
		v, used, o := cStrtol(init)
		result, over = v, o
		s = init[used:]
	} else {
		if len(cp) < length {
			return 0, sqlerr.New(sqlerr.InvalidDatetimeFormat, "source string too short for \"%s\" formatting field", n.key.name).
				WithDetail(fmt.Sprintf("Field requires %d characters, but only %d remain.", length, len(cp))).
				WithHint("If your source string is not fixed-width, try using the \"FM\" modifier.")
		}
		v, used, o := cStrtol(cp)
		result, over = v, o
		if used > 0 && used < length {
			return 0, sqlerr.New(sqlerr.InvalidDatetimeFormat, "source string too short for \"%s\" formatting field", n.key.name).
				WithDetail(fmt.Sprintf("Field requires %d characters, but only %d could be parsed.", length, used)).
				WithHint("If your source string is not fixed-width, try using the \"FM\" modifier.")
		}
		s = s[used:]
	}
	if len(s) == len(init) {
		return 0, sqlerr.New(sqlerr.InvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", cp, n.key.name).
			WithDetail("Value must be an integer.")
	}
	if over || result < -2147483648 || result > 2147483647 {
		return 0, sqlerr.New(sqlerr.DatetimeFieldOverflow, "value for \"%s\" in source string is out of range", n.key.name).
			WithDetail("Value must be in the range -2147483648 to 2147483647.")
	}
	*src = s
	if dest != nil {
		if err := fcSetInt(dest, result, n); err != nil {
			return 0, err
		}
	}
	return len(init) - len(s), nil
}

func fcParseInt(dest *int64, src *string, nodes []fmtNode, i int) (int, error) {
	return fcParseIntLen(dest, src, len(nodes[i].key.name), nodes, i)
}

// seqSearch is seq_search_ascii: the first entry that prefixes s, case
// insensitively.
func seqSearch(s string, arr []string) (int, int) {
	for i, a := range arr {
		if len(s) >= len(a) && strings.EqualFold(s[:len(a)], a) {
			return i, len(a)
		}
	}
	return -1, 0
}

func fcSeqSearch(src *string, arr []string, n *fmtNode) (int64, error) {
	i, l := seqSearch(*src, arr)
	if i < 0 {
		cp := *src
		if j := strings.IndexAny(cp, " \t\n\r\f\v"); j >= 0 {
			cp = cp[:j]
		}
		return 0, sqlerr.New(sqlerr.InvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", cp, n.key.name).
			WithDetail("The given value did not match any of the allowed values for this field.")
	}
	*src = (*src)[l:]
	return int64(i), nil
}

func skipTH(s string, suffix int) string {
	if suffix&(sufTH|sufth) != 0 {
		for k := 0; k < 2 && s != ""; k++ {
			s = s[charLen(s):]
		}
	}
	return s
}

func adjustPartialYear(y int64) int64 {
	switch {
	case y < 70:
		return y + 2000
	case y < 100:
		return y + 1900
	case y < 520:
		return y + 2000
	case y < 1000:
		return y + 1000
	}
	return y
}

var (
	ampmLong  = []string{"a.m.", "p.m.", "A.M.", "P.M."}
	ampmShort = []string{"am", "pm", "AM", "PM"}
	adbcLong  = []string{"a.d.", "b.c.", "A.D.", "B.C."}
	adbcShort = []string{"ad", "bc", "AD", "BC"}
)

// dchFromChar is DCH_from_char (non-standard mode).
func dchFromChar(nodes []fmtNode, in string) (*tmFromChar, error) {
	out := &tmFromChar{}
	s := in
	fx := false
	extraSkip := 0
	for i := 0; i < len(nodes) && s != ""; i++ {
		n := &nodes[i]
		if !fx && (n.kind != fmtAction || n.key.id != "FX") && (n.kind == fmtAction || i == 0) {
			for s != "" && isCSpace(s[0]) {
				s = s[1:]
				extraSkip++
			}
		}
		if n.kind == fmtSpace || n.kind == fmtSeparator {
			if !fx {
				extraSkip--
				if s != "" && (isCSpace(s[0]) || isSeparatorChar(s[0])) {
					s = s[1:]
					extraSkip++
				}
			} else {
				s = s[charLen(s):]
			}
			continue
		} else if n.kind != fmtAction {
			if !fx {
				if extraSkip > 0 {
					extraSkip--
				} else {
					s = s[charLen(s):]
				}
			} else {
				s = s[charLen(s):]
			}
			continue
		}
		if n.key.mode != fmtDateNone {
			if out.mode == fmtDateNone {
				out.mode = n.key.mode
			} else if out.mode != n.key.mode {
				return nil, sqlerr.New(sqlerr.InvalidDatetimeFormat, "invalid combination of date conventions").
					WithHint("Do not mix Gregorian and ISO week date conventions in a formatting template.")
			}
		}
		var err error
		var v int64
		switch n.key.id {
		case "FX":
			fx = true
		case "A.M.", "P.M.", "a.m.", "p.m.", "AM", "PM", "am", "pm":
			arr := ampmShort
			if strings.Contains(n.key.id, ".") {
				arr = ampmLong
			}
			if v, err = fcSeqSearch(&s, arr, n); err == nil {
				err = fcSetInt(&out.pm, v%2, n)
				out.clock = 12
			}
		case "HH", "HH12":
			_, err = fcParseIntLen(&out.hh, &s, 2, nodes, i)
			out.clock = 12
			s = skipTH(s, n.suffix)
		case "HH24":
			_, err = fcParseIntLen(&out.hh, &s, 2, nodes, i)
			s = skipTH(s, n.suffix)
		case "MI":
			_, err = fcParseInt(&out.mi, &s, nodes, i)
			s = skipTH(s, n.suffix)
		case "SS":
			_, err = fcParseInt(&out.ss, &s, nodes, i)
			s = skipTH(s, n.suffix)
		case "MS":
			var l int
			l, err = fcParseIntLen(&out.ms, &s, 3, nodes, i)
			out.ms *= pick(l == 1, int64(100), pick(l == 2, int64(10), 1))
			s = skipTH(s, n.suffix)
		case "FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "US":
			length := 6
			if n.key.id != "US" {
				out.ff = int64(n.key.id[2] - '0')
				length = int(out.ff)
			}
			var l int
			l, err = fcParseIntLen(&out.us, &s, length, nodes, i)
			mult := []int64{1, 100000, 10000, 1000, 100, 10, 1}
			if l >= 1 && l <= 6 {
				out.us *= mult[l]
			}
			s = skipTH(s, n.suffix)
		case "SSSS":
			_, err = fcParseInt(&out.ssss, &s, nodes, i)
			s = skipTH(s, n.suffix)
		case "tz", "TZ", "OF":
			err = sqlerr.New(sqlerr.FeatureNotSupported, "formatting field \"%s\" is only supported in to_char", n.key.name)
		case "TZH":
			if s != "" && (s[0] == '+' || s[0] == '-' || s[0] == ' ') {
				out.tzsign = pick(s[0] == '-', int64(-1), 1)
				s = s[1:]
			} else if extraSkip > 0 && len(in)-len(s) > 0 && in[len(in)-len(s)-1] == '-' {
				out.tzsign = -1
			} else {
				out.tzsign = 1
			}
			_, err = fcParseIntLen(&out.tzh, &s, 2, nodes, i)
		case "TZM":
			if out.tzsign == 0 {
				out.tzsign = 1
			}
			_, err = fcParseIntLen(&out.tzm, &s, 2, nodes, i)
		case "A.D.", "B.C.", "a.d.", "b.c.", "AD", "BC", "ad", "bc":
			arr := adbcShort
			if strings.Contains(n.key.id, ".") {
				arr = adbcLong
			}
			if v, err = fcSeqSearch(&s, arr, n); err == nil {
				err = fcSetInt(&out.bc, v%2, n)
			}
		case "MONTH", "Month", "month":
			if v, err = fcSeqSearch(&s, monthsFull, n); err == nil {
				err = fcSetInt(&out.mm, v+1, n)
			}
		case "MON", "Mon", "mon":
			if v, err = fcSeqSearch(&s, monthsAbbr, n); err == nil {
				err = fcSetInt(&out.mm, v+1, n)
			}
		case "MM":
			_, err = fcParseInt(&out.mm, &s, nodes, i)
			s = skipTH(s, n.suffix)
		case "DAY", "Day", "day":
			if v, err = fcSeqSearch(&s, daysFull, n); err == nil {
				err = fcSetInt(&out.d, v, n)
				out.d++
			}
		case "DY", "Dy", "dy":
			if v, err = fcSeqSearch(&s, daysAbbr, n); err == nil {
				err = fcSetInt(&out.d, v, n)
				out.d++
			}
		case "DDD":
			_, err = fcParseInt(&out.ddd, &s, nodes, i)
			s = skipTH(s, n.suffix)
		case "IDDD":
			_, err = fcParseIntLen(&out.ddd, &s, 3, nodes, i)
			s = skipTH(s, n.suffix)
		case "DD":
			_, err = fcParseInt(&out.dd, &s, nodes, i)
			s = skipTH(s, n.suffix)
		case "D":
			_, err = fcParseInt(&out.d, &s, nodes, i)
			s = skipTH(s, n.suffix)
		case "ID":
			_, err = fcParseIntLen(&out.d, &s, 1, nodes, i)
			out.d++
			if out.d > 7 {
				out.d = 1
			}
			s = skipTH(s, n.suffix)
		case "WW", "IW":
			_, err = fcParseInt(&out.ww, &s, nodes, i)
			s = skipTH(s, n.suffix)
		case "Q":
			_, err = fcParseInt(nil, &s, nodes, i)
			s = skipTH(s, n.suffix)
		case "CC":
			_, err = fcParseInt(&out.cc, &s, nodes, i)
			s = skipTH(s, n.suffix)
		case "Y,YYY":
			mil, u1, _ := cStrtol(s)
			ok := u1 > 0 && u1 < len(s) && s[u1] == ','
			var yrs int64
			var u2 int
			if ok {
				// %03d reads at most three characters
				r := s[u1+1:]
				lim := r
				if len(lim) > 3 {
					lim = lim[:3]
				}
				yrs, u2, _ = cStrtol(lim)
				ok = u2 > 0
			}
			if !ok {
				err = sqlerr.New(sqlerr.InvalidDatetimeFormat, "invalid input string for \"Y,YYY\"")
				break
			}
			err = fcSetInt(&out.year, yrs+mil*1000, n)
			out.yysz = 4
			s = s[u1+1+u2:]
			s = skipTH(s, n.suffix)
		case "YYYY", "IYYY":
			_, err = fcParseInt(&out.year, &s, nodes, i)
			out.yysz = 4
			s = skipTH(s, n.suffix)
		case "YYY", "IYY", "YY", "IY", "Y", "I":
			var l int
			l, err = fcParseInt(&out.year, &s, nodes, i)
			if err == nil && l < 4 {
				out.year = adjustPartialYear(out.year)
			}
			out.yysz = int64(len(strings.TrimPrefix(n.key.id, "I")))
			if n.key.id == "I" {
				out.yysz = 1
			}
			s = skipTH(s, n.suffix)
		case "RM", "rm":
			arr := rmUpper
			if n.key.id == "rm" {
				arr = rmLower
			}
			if v, err = fcSeqSearch(&s, arr, n); err == nil {
				err = fcSetInt(&out.mm, 12-v, n)
			}
		case "W":
			_, err = fcParseInt(&out.w, &s, nodes, i)
			s = skipTH(s, n.suffix)
		case "J":
			_, err = fcParseInt(&out.j, &s, nodes, i)
			s = skipTH(s, n.suffix)
		}
		if err != nil {
			return nil, err
		}
		if !fx {
			extraSkip = 0
			for s != "" && isCSpace(s[0]) {
				s = s[1:]
				extraSkip++
			}
		}
	}
	return out, nil
}

// parsedTm is the outcome of do_to_timestamp.
type parsedTm struct {
	year, mon, mday, hour, min, sec, fsec int64
	hasTZ                                 bool
	tzOff                                 int64 // seconds east of UTC
	fprec                                 int64
}

func fieldOverflow(in string) error {
	return sqlerr.New(sqlerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", in)
}

// doToTimestamp is do_to_timestamp.
func doToTimestamp(in, format string) (*parsedTm, error) {
	t := &parsedTm{mon: 1, mday: 1}
	tm := &tmFromChar{}
	if format != "" {
		var err error
		if tm, err = dchFromChar(parsedDCHFormat(format), in); err != nil {
			return nil, err
		}
	}
	const (
		mYear = 1 << iota
		mMonth
		mDay
	)
	fmask := 0
	if tm.ssss != 0 {
		x := tm.ssss
		t.hour = x / 3600
		x %= 3600
		t.min = x / 60
		t.sec = x % 60
	}
	if tm.ss != 0 {
		t.sec = tm.ss
	}
	if tm.mi != 0 {
		t.min = tm.mi
	}
	if tm.hh != 0 {
		t.hour = tm.hh
	}
	if tm.clock == 12 {
		if t.hour < 1 || t.hour > 12 {
			return nil, sqlerr.New(sqlerr.InvalidDatetimeFormat, "hour \"%d\" is invalid for the 12-hour clock", t.hour).
				WithHint("Use the 24-hour clock, or give an hour between 1 and 12.")
		}
		if tm.pm != 0 && t.hour < 12 {
			t.hour += 12
		} else if tm.pm == 0 && t.hour == 12 {
			t.hour = 0
		}
	}
	if tm.year != 0 {
		if tm.cc != 0 && tm.yysz <= 2 {
			if tm.bc != 0 {
				tm.cc = -tm.cc
			}
			t.year = tm.year % 100
			if t.year != 0 {
				if tm.cc >= 0 {
					t.year += (tm.cc - 1) * 100
				} else {
					t.year = (tm.cc+1)*100 - t.year + 1
				}
			} else {
				t.year = tm.cc*100 + pick(tm.cc >= 0, int64(0), 1)
			}
		} else {
			t.year = tm.year
			if tm.bc != 0 {
				t.year = -t.year
			}
			if t.year < 0 {
				t.year++
			}
		}
		fmask |= mYear
	} else if tm.cc != 0 {
		if tm.bc != 0 {
			tm.cc = -tm.cc
		}
		if tm.cc >= 0 {
			t.year = (tm.cc-1)*100 + 1
		} else {
			t.year = tm.cc*100 + 1
		}
		fmask |= mYear
	}
	if tm.j != 0 {
		t.year, t.mon, t.mday = civil(tm.j - 2440588)
		fmask |= mYear | mMonth | mDay
	}
	if tm.ww != 0 {
		if tm.mode == fmtDateISO {
			mon1 := isoWeek1Monday(t.year)
			d := mon1 + (tm.ww-1)*7
			if tm.d != 0 {
				// d is Gregorian numbered (Sunday = 1); ISO day: Monday=1..Sunday=7
				iso := tm.d - 1
				if iso == 0 {
					iso = 7
				}
				d += iso - 1
			}
			t.year, t.mon, t.mday = civil(d)
			fmask |= mYear | mMonth | mDay
		} else {
			tm.ddd = (tm.ww-1)*7 + 1
		}
	}
	if tm.w != 0 {
		tm.dd = (tm.w-1)*7 + 1
	}
	if tm.dd != 0 {
		t.mday = tm.dd
		fmask |= mDay
	}
	if tm.mm != 0 {
		t.mon = tm.mm
		fmask |= mMonth
	}
	if tm.ddd != 0 && (t.mon <= 1 || t.mday <= 1) {
		if t.year == 0 && tm.bc == 0 {
			return nil, sqlerr.New(sqlerr.InvalidDatetimeFormat, "cannot calculate day of year without year information")
		}
		if tm.mode == fmtDateISO {
			t.year, t.mon, t.mday = civil(isoWeek1Monday(t.year) - 1 + tm.ddd)
			fmask |= mYear | mMonth | mDay
		} else {
			cum := int64(0)
			mi := int64(1)
			for ; mi <= 12; mi++ {
				dm := daysInMonth(t.year, mi)
				if tm.ddd <= cum+dm {
					break
				}
				cum += dm
			}
			if mi > 12 {
				// past the end of the year: ysum[12] is the year length
				mi = 13
			}
			if t.mon <= 1 {
				t.mon = mi
			}
			if t.mday <= 1 {
				t.mday = tm.ddd - cum
			}
			fmask |= mMonth | mDay
		}
	}
	t.fsec = tm.ms*1000 + tm.us
	t.fprec = tm.ff
	if fmask != 0 {
		if fmask&mMonth != 0 && (t.mon < 1 || t.mon > 12) {
			return nil, fieldOverflow(in)
		}
		if fmask&mDay != 0 && (t.mday < 1 || t.mday > 31) {
			return nil, fieldOverflow(in)
		}
		if fmask == mYear|mMonth|mDay && t.mday > daysInMonth(t.year, t.mon) {
			return nil, fieldOverflow(in)
		}
	}
	if t.hour < 0 || t.hour >= 24 || t.min < 0 || t.min >= 60 || t.sec < 0 || t.sec >= 60 || t.fsec < 0 || t.fsec >= usPerSec {
		return nil, fieldOverflow(in)
	}
	if tm.tzsign != 0 {
		if tm.tzh < 0 || tm.tzh > 15 || tm.tzm < 0 || tm.tzm >= 60 {
			return nil, sqlerr.New("22009", "time zone displacement out of range: \"%s\"", in)
		}
		t.hasTZ = true
		t.tzOff = tm.tzsign * (tm.tzh*3600 + tm.tzm*60)
	}
	return t, nil
}

func (t *parsedTm) days() int64 { return daysFromCivil(t.year, t.mon, t.mday) }

func toTimestampText(ctx *Ctx, in, format string) (Datum, error) {
	t, err := doToTimestamp(in, format)
	if err != nil {
		return nil, err
	}
	wall := t.days()*usPerDay + t.hour*usPerHour + t.min*usPerMin + t.sec*usPerSec + t.fsec
	var us int64
	if t.hasTZ {
		us = wall - t.tzOff*usPerSec
	} else {
		us = types.LocalToUTC(wall, ctx.location())
	}
	if us < minTimestampUs || t.year > 294276 {
		return nil, sqlerr.New(sqlerr.DatetimeFieldOverflow, "timestamp out of range")
	}
	if t.fprec != 0 {
		us = types.RoundMicros(us, int32(t.fprec))
	}
	return us, nil
}

func toDateText(in, format string) (Datum, error) {
	t, err := doToTimestamp(in, format)
	if err != nil {
		return nil, err
	}
	d := t.days()
	if t.year < -4713 || t.year > 5874897 || !types.ValidDate(d) {
		return nil, sqlerr.New(sqlerr.DatetimeFieldOverflow, "date out of range: \"%s\"", in)
	}
	return d, nil
}

func init() {
	RegisterScalar("to_char",
		Overload{Args: []types.T{types.Timestamp, types.Text}, Ret: types.Text, Impl: toCharTimestampKernel(types.Timestamp, Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
			return timestampToChar(i0(a, 0), false, 0, nil, s0(a, 1))
		}))},
		Overload{Args: []types.T{types.TimestampTZ, types.Text}, Ret: types.Text, Impl: toCharTimestampKernel(types.TimestampTZ, Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
			us := i0(a, 0)
			loc := ctx.location()
			return timestampToChar(types.UTCToLocal(us, loc), true, us, loc, s0(a, 1))
		}))},
		Overload{Args: []types.T{types.Interval, types.Text}, Ret: types.Text, Impl: Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
			if s0(a, 1) == "" {
				return nil, nil
			}
			t := tmFromInterval(a[0].(arrow.MonthDayNanoInterval))
			s, err := dchToChar(parseFormat(s0(a, 1), dchKeys, true), &t)
			if err != nil {
				return nil, err
			}
			return s, nil
		})},
	)
	// to_timestamp(text, text) and to_date(text, text) are registered in
	// funcs_spark_datetime.go: the format tells PostgreSQL's templates from
	// Spark's patterns (funcs_spark_dialect.go).
}
