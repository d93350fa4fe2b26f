package expr

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Spark's datetime patterns (Databricks SQL reference, "Datetime
// patterns"; the letters of Java's DateTimeFormatter as Spark 3 restricts
// them): compiled once into a list of fields, then used to format a
// timestamp (date_format, from_unixtime) or to parse text
// (to_timestamp(str, fmt), to_date, unix_timestamp). The rules are
// Spark's in its default, non-legacy parser: a field of n letters reads
// exactly n digits (one letter: one or two, a year: any number), text
// fields (MMM, EEE, a, G) read case-insensitively, the whole input must be
// consumed, and week-based letters (Y w W u e c) and letters Spark does
// not know are errors of the pattern (22007), as Databricks raises
// INVALID_DATETIME_PATTERN.

// sparkField is one element of a compiled pattern: a run of one pattern
// letter (letter != 0), a literal (letter 0), or an optional section
// '[...]' (letter '[' with its fields in opt).
type sparkField struct {
	letter byte
	width  int
	lit    string
	opt    []sparkField
}

// sparkPattern is a compiled Spark datetime pattern.
type sparkPattern struct {
	fields []sparkField
	// formatOnly is a letter Spark allows in formatting only (E, F, q,
	// Q: "not allowed for datetime parsing"), 0 if none.
	formatOnly byte
}

// sparkPatternCache keeps compiled patterns by their text: a query's
// format is nearly always a constant, so each is compiled once per
// process, not once per row or batch.
var sparkPatternCache sync.Map // string -> *sparkPattern

func errSparkPattern(format, why string) error {
	return sqlerr.New(sqlerr.InvalidDatetimeFormat, "invalid datetime pattern '%s': %s", format, why)
}

// sparkMaxWidth is the longest run Spark accepts for each letter it
// supports (a missing letter is not a pattern letter).
var sparkMaxWidth = [128]int{
	'G': 5, 'y': 10, 'M': 5, 'L': 5, 'd': 2, 'D': 3, 'Q': 4, 'q': 4, 'E': 5, 'F': 1,
	'a': 1, 'h': 2, 'K': 2, 'k': 2, 'H': 2, 'm': 2, 's': 2, 'S': 9,
	'V': 2, 'z': 4, 'O': 4, 'X': 5, 'x': 5, 'Z': 5,
}

// compileSparkPattern compiles format (cached).
func compileSparkPattern(format string) (*sparkPattern, error) {
	if p, ok := sparkPatternCache.Load(format); ok {
		return p.(*sparkPattern), nil
	}
	fields, rest, err := compileSparkFields(format, format, 0)
	if err != nil {
		return nil, err
	}
	if rest != "" {
		return nil, errSparkPattern(format, "']' without '['")
	}
	p := &sparkPattern{fields: fields, formatOnly: formatOnlyLetter(fields)}
	sparkPatternCache.Store(format, p)
	return p, nil
}

func formatOnlyLetter(fields []sparkField) byte {
	for i := range fields {
		switch f := &fields[i]; f.letter {
		case 'E', 'F', 'q', 'Q':
			return f.letter
		case '[':
			if c := formatOnlyLetter(f.opt); c != 0 {
				return c
			}
		}
	}
	return 0
}

// compileSparkFields compiles s up to the end or an unmatched ']' (depth
// > 0: inside '['); it returns the fields and the text from that ']' on.
func compileSparkFields(format, s string, depth int) ([]sparkField, string, error) {
	var out []sparkField
	addLit := func(t string) {
		if n := len(out); n > 0 && out[n-1].letter == 0 {
			out[n-1].lit += t
			return
		}
		out = append(out, sparkField{lit: t})
	}
	for len(s) > 0 {
		c := s[0]
		switch {
		case c == '\'':
			if len(s) > 1 && s[1] == '\'' {
				addLit("'")
				s = s[2:]
				continue
			}
			var lit strings.Builder
			i := 1
			for {
				if i >= len(s) {
					return nil, "", errSparkPattern(format, "unterminated quoted literal")
				}
				if s[i] == '\'' {
					if i+1 < len(s) && s[i+1] == '\'' {
						lit.WriteByte('\'')
						i += 2
						continue
					}
					break
				}
				lit.WriteByte(s[i])
				i++
			}
			addLit(lit.String())
			s = s[i+1:]
		case c == '[':
			sub, rest, err := compileSparkFields(format, s[1:], depth+1)
			if err != nil {
				return nil, "", err
			}
			if rest == "" {
				return nil, "", errSparkPattern(format, "'[' without ']'")
			}
			out = append(out, sparkField{letter: '[', opt: sub})
			s = rest[1:]
		case c == ']':
			if depth == 0 {
				return nil, "", errSparkPattern(format, "']' without '['")
			}
			return out, s, nil
		case c == '{' || c == '}' || c == '#':
			return nil, "", errSparkPattern(format, "'"+string(c)+"' is reserved")
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			n := 1
			for n < len(s) && s[n] == c {
				n++
			}
			switch c {
			case 'Y', 'w', 'W', 'u', 'e', 'c':
				return nil, "", errSparkPattern(format, "week-based pattern letter '"+string(c)+"' is not supported; use extract")
			}
			max := sparkMaxWidth[c]
			if max == 0 {
				return nil, "", errSparkPattern(format, "unknown pattern letter '"+string(c)+"'")
			}
			if n > max || c == 'V' && n != 2 || c == 'O' && n != 1 && n != 4 {
				return nil, "", errSparkPattern(format, "too many pattern letters: "+s[:n])
			}
			out = append(out, sparkField{letter: c, width: n})
			s = s[n:]
		default:
			// Other characters stand for themselves (UTF-8 bytes stay
			// together: none of them is a pattern character).
			addLit(s[:1])
			s = s[1:]
		}
	}
	return out, "", nil
}

var (
	sparkMonthShort = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	sparkMonthLong  = [12]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	sparkDayShort   = [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	sparkDayLong    = [7]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	sparkQuarter    = [4]string{"1st quarter", "2nd quarter", "3rd quarter", "4th quarter"}
)

// sparkInstant is what formatting needs of one value: its wall clock,
// the offset of its zone (seconds east of UTC) and the zone's names.
type sparkInstant struct {
	wall   int64 // microseconds, wall clock
	offset int64
	abbrev string // zone abbreviation (z)
	zoneID string // zone id (VV)
}

func digitCount(v int64) int {
	n := 1
	for v >= 10 {
		v /= 10
		n++
	}
	return n
}

func appendPadded(buf []byte, v int64, width int) []byte {
	if v < 0 {
		buf = append(buf, '-')
		v = -v
	}
	var tmp [20]byte
	d := strconv.AppendInt(tmp[:0], v, 10)
	for i := len(d); i < width; i++ {
		buf = append(buf, '0')
	}
	return append(buf, d...)
}

// appendFormat writes v formatted by p to buf.
func (p *sparkPattern) appendFormat(buf []byte, v *sparkInstant) []byte {
	w := splitTimestamp(v.wall)
	return appendSparkFields(buf, p.fields, v, w)
}

func appendSparkFields(buf []byte, fields []sparkField, v *sparkInstant, w wallFields) []byte {
	for i := range fields {
		f := &fields[i]
		n := f.width
		switch f.letter {
		case 0:
			buf = append(buf, f.lit...)
		case '[':
			buf = appendSparkFields(buf, f.opt, v, w)
		case 'G':
			era := "AD"
			if w.y <= 0 {
				era = "BC"
			}
			switch {
			case n == 4 && era == "AD":
				buf = append(buf, "Anno Domini"...)
			case n == 4:
				buf = append(buf, "Before Christ"...)
			case n == 5:
				buf = append(buf, era[0])
			default:
				buf = append(buf, era...)
			}
		case 'y':
			y := w.y
			if y <= 0 {
				y = 1 - y // year of era
			}
			switch {
			case n == 2:
				buf = appendPadded(buf, y%100, 2)
			case n >= 4 && digitCount(y) > n:
				buf = append(buf, '+')
				buf = strconv.AppendInt(buf, y, 10)
			default:
				buf = appendPadded(buf, y, n)
			}
		case 'M', 'L':
			switch n {
			case 1, 2:
				buf = appendPadded(buf, w.mon, n)
			case 3:
				buf = append(buf, sparkMonthShort[w.mon-1]...)
			case 4:
				buf = append(buf, sparkMonthLong[w.mon-1]...)
			default:
				buf = append(buf, sparkMonthLong[w.mon-1][0])
			}
		case 'd':
			buf = appendPadded(buf, w.d, n)
		case 'F':
			buf = appendPadded(buf, (w.d-1)%7+1, 1)
		case 'D':
			doy := daysFromCivil(w.y, w.mon, w.d) - daysFromCivil(w.y, 1, 1) + 1
			buf = appendPadded(buf, doy, n)
		case 'Q', 'q':
			q := (w.mon-1)/3 + 1
			switch n {
			case 1, 2:
				buf = appendPadded(buf, q, n)
			case 3:
				buf = append(buf, 'Q')
				buf = strconv.AppendInt(buf, q, 10)
			default:
				buf = append(buf, sparkQuarter[q-1]...)
			}
		case 'E':
			dow := floorMod(floorDiv(v.wall, usPerDay)+4, 7) // 1970-01-01 was a Thursday
			switch {
			case n <= 3:
				buf = append(buf, sparkDayShort[dow]...)
			case n == 4:
				buf = append(buf, sparkDayLong[dow]...)
			default:
				buf = append(buf, sparkDayLong[dow][0])
			}
		case 'a':
			if w.h < 12 {
				buf = append(buf, "AM"...)
			} else {
				buf = append(buf, "PM"...)
			}
		case 'H':
			buf = appendPadded(buf, w.h, n)
		case 'h':
			h := w.h % 12
			if h == 0 {
				h = 12
			}
			buf = appendPadded(buf, h, n)
		case 'K':
			buf = appendPadded(buf, w.h%12, n)
		case 'k':
			h := w.h
			if h == 0 {
				h = 24
			}
			buf = appendPadded(buf, h, n)
		case 'm':
			buf = appendPadded(buf, w.min, n)
		case 's':
			buf = appendPadded(buf, w.s, n)
		case 'S':
			var frac [9]byte
			ns := w.us * 1000
			for k := 8; k >= 0; k-- {
				frac[k] = byte('0' + ns%10)
				ns /= 10
			}
			buf = append(buf, frac[:n]...)
		case 'V':
			buf = append(buf, v.zoneID...)
		case 'z':
			buf = append(buf, v.abbrev...)
		case 'O':
			buf = append(buf, "GMT"...)
			if v.offset != 0 {
				buf = appendOffset(buf, v.offset, n == 4)
			}
		case 'X', 'x':
			if f.letter == 'X' && v.offset == 0 {
				buf = append(buf, 'Z')
				continue
			}
			switch n {
			case 1:
				buf = appendOffsetHM(buf, v.offset, false, true)
			case 2, 4:
				buf = appendOffsetHM(buf, v.offset, false, false)
				if n == 4 && v.offset%60 != 0 {
					buf = appendPadded(buf, abs64(v.offset)%60, 2)
				}
			default:
				buf = appendOffsetHM(buf, v.offset, true, false)
				if n == 5 && v.offset%60 != 0 {
					buf = append(buf, ':')
					buf = appendPadded(buf, abs64(v.offset)%60, 2)
				}
			}
		case 'Z':
			switch n {
			case 4:
				buf = append(buf, "GMT"...)
				if v.offset != 0 {
					buf = appendOffset(buf, v.offset, true)
				}
			case 5:
				if v.offset == 0 {
					buf = append(buf, 'Z')
				} else {
					buf = appendOffsetHM(buf, v.offset, true, false)
				}
			default:
				buf = appendOffsetHM(buf, v.offset, false, false)
			}
		}
	}
	return buf
}

// appendOffsetHM writes +HH[:]MM (optMinutes: +HH alone when the minutes
// are zero).
func appendOffsetHM(buf []byte, off int64, colon, optMinutes bool) []byte {
	if off < 0 {
		buf = append(buf, '-')
	} else {
		buf = append(buf, '+')
	}
	a := abs64(off)
	buf = appendPadded(buf, a/3600, 2)
	if optMinutes && a/60%60 == 0 {
		return buf
	}
	if colon {
		buf = append(buf, ':')
	}
	return appendPadded(buf, a/60%60, 2)
}

// appendOffset writes the localized offset of O / ZZZZ: +H[:MM] (long:
// +HH:MM).
func appendOffset(buf []byte, off int64, long bool) []byte {
	if off < 0 {
		buf = append(buf, '-')
	} else {
		buf = append(buf, '+')
	}
	a := abs64(off)
	if long {
		buf = appendPadded(buf, a/3600, 2)
		buf = append(buf, ':')
		return appendPadded(buf, a/60%60, 2)
	}
	buf = strconv.AppendInt(buf, a/3600, 10)
	if a/60%60 != 0 {
		buf = append(buf, ':')
		buf = appendPadded(buf, a/60%60, 2)
	}
	return buf
}

// sparkParsed collects the fields parsing found.
type sparkParsed struct {
	year, month, day, doy     int64
	hasYear, hasMonth, hasDay bool
	hasDoy, bc                bool
	hour24, hour12            int64 // H/k, and h/K (as 0-11)
	has24, has12              bool
	pm, hasAmPm               bool
	min, sec, nanos           int64
	offset                    int64
	hasOffset                 bool
	loc                       *time.Location
}

// sparkParseError is Databricks' CANNOT_PARSE_TIMESTAMP (ANSI mode: an
// error, not NULL).
func sparkParseError(in string, at int) error {
	return sqlerr.New(sqlerr.InvalidDatetimeFormat, "Text '%s' could not be parsed at index %d", in, at).
		WithHint("Use try_to_timestamp to tolerate malformed input and return NULL instead.")
}

// parse reads in by p. The result is the wall clock (microseconds) and,
// when the text named its zone or offset, the zone (loc) or the offset;
// ok false with the index where parsing stopped.
func (p *sparkPattern) parse(in string) (sparkParsed, int, bool) {
	var r sparkParsed
	pos, ok := parseSparkFields(in, 0, p.fields, &r)
	if !ok || pos != len(in) {
		return r, pos, false
	}
	return r, 0, true
}

// isDigitField tells whether a field reads digits (so a run of them
// before it must leave its digits to it).
func isDigitField(f *sparkField) bool {
	switch f.letter {
	case 'y', 'd', 'D', 'H', 'h', 'K', 'k', 'm', 's', 'S':
		return true
	case 'M', 'L', 'Q', 'q':
		return f.width <= 2
	}
	return false
}

func readDigits(in string, pos, min, max int) (int64, int, bool) {
	end := pos
	for end < len(in) && end-pos < max && in[end] >= '0' && in[end] <= '9' {
		end++
	}
	if end-pos < min {
		return 0, pos, false
	}
	if end-pos > 18 {
		return 0, pos, false
	}
	var v int64
	for k := pos; k < end; k++ {
		v = v*10 + int64(in[k]-'0')
	}
	return v, end, true
}

// matchWord reads one of words at pos, ignoring case; it returns its
// index.
func matchWord(in string, pos int, words []string) (int, int, bool) {
	best, bestLen := -1, 0
	for i, w := range words {
		if len(w) > bestLen && len(in)-pos >= len(w) && strings.EqualFold(in[pos:pos+len(w)], w) {
			best, bestLen = i, len(w)
		}
	}
	if best < 0 {
		return 0, pos, false
	}
	return best, pos + bestLen, true
}

func parseSparkFields(in string, pos int, fields []sparkField, r *sparkParsed) (int, bool) {
	for i := range fields {
		f := &fields[i]
		n := f.width
		// A numeric field directly followed by another reads exactly its
		// width ("yyyyMMdd"); otherwise a one-letter field takes one or
		// two digits and a year any number.
		adjacent := i+1 < len(fields) && isDigitField(&fields[i+1])
		minD, maxD := n, n
		if n == 1 && !adjacent {
			maxD = 2
		}
		var v int64
		ok := true
		switch f.letter {
		case 0:
			if !strings.HasPrefix(in[pos:], f.lit) {
				return pos, false
			}
			pos += len(f.lit)
			continue
		case '[':
			save := *r
			if end, ok := parseSparkFields(in, pos, f.opt, r); ok {
				pos = end
			} else {
				*r = save
			}
			continue
		case 'G':
			idx, end, ok := matchWord(in, pos, []string{"AD", "BC", "Anno Domini", "Before Christ"})
			if !ok {
				return pos, false
			}
			r.bc = idx == 1 || idx == 3
			pos = end
			continue
		case 'y':
			if n == 2 {
				v, pos, ok = readDigits(in, pos, 2, 2)
				v += 2000
			} else {
				if !adjacent {
					maxD = 9
				}
				v, pos, ok = readDigits(in, pos, minD, maxD)
			}
			r.year, r.hasYear = v, true
		case 'M', 'L':
			if n >= 3 {
				words := sparkMonthShort[:]
				if n == 4 {
					words = sparkMonthLong[:]
				}
				idx, end, okW := matchWord(in, pos, words)
				if !okW || n == 5 {
					return pos, false
				}
				v, pos = int64(idx+1), end
			} else {
				v, pos, ok = readDigits(in, pos, minD, maxD)
			}
			r.month, r.hasMonth = v, true
		case 'd':
			v, pos, ok = readDigits(in, pos, minD, maxD)
			r.day, r.hasDay = v, true
		case 'D':
			if n == 1 && !adjacent {
				maxD = 3
			}
			v, pos, ok = readDigits(in, pos, minD, maxD)
			r.doy, r.hasDoy = v, true
		case 'Q', 'q':
			switch {
			case n <= 2:
				v, pos, ok = readDigits(in, pos, minD, maxD)
			case n == 3:
				if pos < len(in) && (in[pos] == 'Q' || in[pos] == 'q') {
					v, pos, ok = readDigits(in, pos+1, 1, 1)
				} else {
					ok = false
				}
			default:
				_, pos, ok = matchWord(in, pos, sparkQuarter[:])
			}
			// The quarter only checks nothing: Spark resolves the date
			// from the month.
		case 'F':
			_, pos, ok = readDigits(in, pos, 1, 1)
		case 'E':
			words := sparkDayShort[:]
			if n == 4 {
				words = sparkDayLong[:]
			}
			_, pos, ok = matchWord(in, pos, words)
		case 'a':
			var idx int
			idx, pos, ok = matchWord(in, pos, []string{"AM", "PM"})
			r.pm, r.hasAmPm = idx == 1, true
		case 'H':
			v, pos, ok = readDigits(in, pos, minD, maxD)
			ok = ok && v <= 23
			r.hour24, r.has24 = v, true
		case 'k':
			v, pos, ok = readDigits(in, pos, minD, maxD)
			ok = ok && v >= 1 && v <= 24
			r.hour24, r.has24 = v%24, true
		case 'h':
			v, pos, ok = readDigits(in, pos, minD, maxD)
			ok = ok && v >= 1 && v <= 12
			r.hour12, r.has12 = v%12, true
		case 'K':
			v, pos, ok = readDigits(in, pos, minD, maxD)
			ok = ok && v <= 11
			r.hour12, r.has12 = v, true
		case 'm':
			v, pos, ok = readDigits(in, pos, minD, maxD)
			ok = ok && v <= 59
			r.min = v
		case 's':
			v, pos, ok = readDigits(in, pos, minD, maxD)
			ok = ok && v <= 59
			r.sec = v
		case 'S':
			// A fraction of up to n digits (Spark reads fewer too).
			start := pos
			v, pos, ok = readDigits(in, pos, 1, n)
			if ok {
				for k := pos - start; k < 9; k++ {
					v *= 10
				}
				r.nanos = v
			}
		case 'X', 'x', 'Z', 'O':
			pos, ok = parseSparkOffset(in, pos, f, r)
		case 'V', 'z':
			pos, ok = parseSparkZone(in, pos, f.letter == 'z', r)
		}
		if !ok {
			return pos, false
		}
	}
	return pos, true
}

// parseSparkOffset reads an offset: 'Z' (X, ZZZZZ), "GMT" with an optional
// offset (O, ZZZZ), or +HH, +HHMM, +HH:MM, +HH:MM:SS.
func parseSparkOffset(in string, pos int, f *sparkField, r *sparkParsed) (int, bool) {
	if (f.letter == 'X' || f.letter == 'Z' && f.width == 5) && pos < len(in) && in[pos] == 'Z' {
		r.offset, r.hasOffset = 0, true
		return pos + 1, true
	}
	gmt := f.letter == 'O' || f.letter == 'Z' && f.width == 4
	if gmt {
		if !strings.HasPrefix(in[pos:], "GMT") {
			return pos, false
		}
		pos += 3
		if pos >= len(in) || in[pos] != '+' && in[pos] != '-' {
			r.offset, r.hasOffset = 0, true
			return pos, true
		}
	}
	off, end, ok := readOffset(in, pos, gmt)
	if !ok {
		return pos, false
	}
	r.offset, r.hasOffset = off, true
	return end, true
}

// readOffset reads [+-]H[H][[:]MM[[:]SS]] (a one-digit hour only when
// short is allowed, as GMT+8).
func readOffset(in string, pos int, short bool) (int64, int, bool) {
	if pos >= len(in) || in[pos] != '+' && in[pos] != '-' {
		return 0, pos, false
	}
	neg := in[pos] == '-'
	p := pos + 1
	minH := 2
	if short {
		minH = 1
	}
	h, p, ok := readDigits(in, p, minH, 2)
	if !ok || h > 18 {
		return 0, pos, false
	}
	var m, s int64
	colon := p < len(in) && in[p] == ':'
	q := p
	if colon {
		q++
	}
	if mm, e, ok := readDigits(in, q, 2, 2); ok && mm < 60 {
		m, p = mm, e
		q = p
		if colon {
			if q < len(in) && in[q] == ':' {
				q++
			} else {
				q = -1
			}
		}
		if q >= 0 {
			if ss, e, ok := readDigits(in, q, 2, 2); ok && ss < 60 {
				s, p = ss, e
			}
		}
	}
	off := h*3600 + m*60 + s
	if neg {
		off = -off
	}
	return off, p, true
}

// sparkZoneAbbrev maps the zone abbreviations Java resolves by name and
// Go's zone database does not (z parsing).
var sparkZoneAbbrev = map[string]string{
	"PST": "America/Los_Angeles", "PDT": "America/Los_Angeles",
	"MST": "America/Denver", "MDT": "America/Denver",
	"CST": "America/Chicago", "CDT": "America/Chicago",
	"EST": "America/New_York", "EDT": "America/New_York",
	"CET": "Europe/Paris", "CEST": "Europe/Paris",
	"BST": "Europe/London", "JST": "Asia/Tokyo", "IST": "Asia/Kolkata",
}

var sparkZoneCache sync.Map // name -> *time.Location

func loadSparkZone(name string) (*time.Location, bool) {
	if l, ok := sparkZoneCache.Load(name); ok {
		return l.(*time.Location), true
	}
	switch strings.ToUpper(name) {
	case "UTC", "GMT", "Z", "UT":
		return time.UTC, true
	}
	id := name
	if mapped, ok := sparkZoneAbbrev[strings.ToUpper(name)]; ok {
		id = mapped
	}
	l, err := time.LoadLocation(id)
	if err != nil || id == "" || id == "Local" {
		return nil, false
	}
	sparkZoneCache.Store(name, l)
	return l, true
}

// parseSparkZone reads a zone id (VV: Region/City) or a zone name (z).
func parseSparkZone(in string, pos int, name bool, r *sparkParsed) (int, bool) {
	end := pos
	for end < len(in) {
		c := in[end]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '/' || !name && (c == '-' || c == '+' || '0' <= c && c <= '9') {
			end++
			continue
		}
		break
	}
	if end == pos {
		return pos, false
	}
	zone := in[pos:end]
	if (zone == "UTC" || zone == "GMT") && end < len(in) && (in[end] == '+' || in[end] == '-') {
		off, e, ok := readOffset(in, end, true)
		if !ok {
			return pos, false
		}
		r.offset, r.hasOffset = off, true
		return e, true
	}
	l, ok := loadSparkZone(zone)
	if !ok {
		return pos, false
	}
	r.loc = l
	return end, true
}

// wallClock resolves the parsed fields to a wall clock in microseconds,
// with Spark's defaults (1970-01-01 00:00:00 for what the text lacks);
// ok false for a date or time that does not exist.
func (r *sparkParsed) wallClock() (int64, bool) {
	y, m, d := int64(1970), int64(1), int64(1)
	if r.hasYear {
		y = r.year
		if r.bc {
			y = 1 - y
		}
		if y < -4712 || y > 294276 {
			return 0, false // past PostgreSQL's timestamp range
		}
	}
	var days int64
	switch {
	case r.hasDoy && !r.hasMonth && !r.hasDay:
		n := int64(365)
		if isLeap(y) {
			n = 366
		}
		if r.doy < 1 || r.doy > n {
			return 0, false
		}
		days = daysFromCivil(y, 1, 1) + r.doy - 1
	default:
		if r.hasMonth {
			m = r.month
		}
		if r.hasDay {
			d = r.day
		}
		if m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) {
			return 0, false
		}
		days = daysFromCivil(y, m, d)
		if r.hasDoy && days-daysFromCivil(y, 1, 1)+1 != r.doy {
			return 0, false
		}
	}
	var h int64
	switch {
	case r.has24:
		h = r.hour24
		if r.has12 && r.hour12 != h%12 {
			return 0, false
		}
	case r.has12:
		h = r.hour12
		if r.pm {
			h += 12
		}
	}
	return days*usPerDay + h*usPerHour + r.min*usPerMin + r.sec*usPerSec + r.nanos/1000, true
}

// instant is the parsed text as a UTC instant: its own zone or offset
// when it named one, else the session's zone (loc).
func (r *sparkParsed) instant(loc *time.Location) (int64, bool) {
	wall, ok := r.wallClock()
	if !ok {
		return 0, false
	}
	switch {
	case r.hasOffset:
		return wall - r.offset*usPerSec, true
	case r.loc != nil:
		return fromLocal(wall, r.loc), true
	}
	return fromLocal(wall, loc), true
}
