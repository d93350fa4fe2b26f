package parse

import (
	"math"
	"strconv"
	"strings"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Streaming clauses take an interval in any of the three spellings people
// bring along — INTERVAL '5 minutes' (PostgreSQL), INTERVAL '5' MINUTE (SQL
// standard) and INTERVAL 5 MINUTES (Databricks, ksqlDB) — and weir writes
// back only the first.

// intervalUnits are the fixed-length units accepted in interval text.
var intervalUnits = map[string]time.Duration{
	"microsecond": time.Microsecond, "microseconds": time.Microsecond, "us": time.Microsecond, "usec": time.Microsecond, "usecs": time.Microsecond,
	"millisecond": time.Millisecond, "milliseconds": time.Millisecond, "ms": time.Millisecond, "msec": time.Millisecond, "msecs": time.Millisecond,
	"second": time.Second, "seconds": time.Second, "sec": time.Second, "secs": time.Second, "s": time.Second,
	"minute": time.Minute, "minutes": time.Minute, "min": time.Minute, "mins": time.Minute, "m": time.Minute,
	"hour": time.Hour, "hours": time.Hour, "hr": time.Hour, "hrs": time.Hour, "h": time.Hour,
	"day": 24 * time.Hour, "days": 24 * time.Hour, "d": 24 * time.Hour,
	"week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour, "w": 7 * 24 * time.Hour,
}

// calendarUnits have no fixed length: fine in ordinary SQL, not as a
// window size or a watermark delay.
var calendarUnits = map[string]bool{
	"month": true, "months": true, "mon": true, "mons": true,
	"year": true, "years": true, "decade": true, "decades": true,
	"century": true, "centuries": true, "millennium": true, "millennia": true,
}

// unitWord reports whether w is a unit keyword of the INTERVAL 5 MINUTES form.
func unitWord(w string) bool {
	_, ok := intervalUnits[w]
	if ok {
		return len(w) > 2 // "s", "m", "ms" ... are too ambiguous after a bare number
	}
	return calendarUnits[w]
}

// parseDurationText reads PostgreSQL interval text made of fixed units:
// "5 minutes", "1 hour 30 minutes", "1.5 hours", "00:05:00".
// calendar is true when it names months or years.
func parseDurationText(s string) (d time.Duration, ok, calendar bool) {
	f := strings.Fields(strings.ToLower(strings.TrimSpace(s)))
	if len(f) == 0 {
		return 0, false, false
	}
	if strings.HasPrefix(f[0], "@") { // PostgreSQL's "@ 5 minutes" output style
		f[0] = strings.TrimPrefix(f[0], "@")
		if f[0] == "" {
			f = f[1:]
		}
	}
	var total float64
	for i := 0; i < len(f); i++ {
		tok := f[i]
		if strings.Contains(tok, ":") {
			v, ok := parseClock(tok)
			if !ok {
				return 0, false, false
			}
			total += v
			continue
		}
		// "5minutes" as well as "5 minutes"
		num, unit := splitNumber(tok)
		if num == "" {
			return 0, false, false
		}
		if unit == "" {
			if i+1 >= len(f) {
				// A bare number is seconds, as in PostgreSQL.
				unit = "seconds"
			} else {
				i++
				unit = f[i]
			}
		}
		n, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			return 0, false, false
		}
		if calendarUnits[unit] {
			return 0, true, true
		}
		u, known := intervalUnits[strings.TrimSuffix(unit, ",")]
		if !known {
			return 0, false, false
		}
		total += n * float64(u)
	}
	if math.Abs(total) >= math.MaxInt64/2 {
		return 0, false, false
	}
	return time.Duration(math.Round(total)), true, false
}

func splitNumber(s string) (num, unit string) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
		digits++
	}
	if digits == 0 {
		return "", ""
	}
	return s[:i], s[i:]
}

// parseClock reads [-]hh:mm[:ss[.frac]] as a number of nanoseconds.
func parseClock(s string) (float64, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	mult := []float64{float64(time.Hour), float64(time.Minute), float64(time.Second)}
	var v float64
	for i, p := range parts {
		n, err := strconv.ParseFloat(p, 64)
		if err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) {
			return 0, false
		}
		v += n * mult[i]
	}
	if neg {
		v = -v
	}
	return v, true
}

// formatInterval is the one canonical spelling weir writes:
// INTERVAL '<n> <unit>' in the largest unit that divides the duration.
func formatInterval(d time.Duration) string {
	return "INTERVAL '" + formatDuration(d) + "'"
}

func formatDuration(d time.Duration) string {
	units := []struct {
		d    time.Duration
		name string
	}{
		{24 * time.Hour, "day"}, {time.Hour, "hour"}, {time.Minute, "minute"},
		{time.Second, "second"}, {time.Millisecond, "millisecond"}, {time.Microsecond, "microsecond"},
	}
	for _, u := range units {
		if d%u.d == 0 && d != 0 {
			n := int64(d / u.d)
			name := u.name
			if n != 1 && n != -1 {
				name += "s"
			}
			return strconv.FormatInt(n, 10) + " " + name
		}
	}
	if d == 0 {
		return "0 seconds"
	}
	return strconv.FormatInt(int64(d), 10) + " microseconds"
}

// intervalLit is an interval literal found at a token index.
type intervalLit struct {
	d        time.Duration
	next     int  // index after the literal
	calendar bool // months or years: no fixed length
}

// interval reads an interval literal at i in any accepted spelling; the
// INTERVAL keyword may be left out (ksqlDB writes SIZE 5 MINUTES).
// ok is false when the tokens at i are not an interval literal.
func (ts *tokenStream) interval(i int) (lit intervalLit, ok bool) {
	j := i
	if ts.is(j, pg_query.Token_INTERVAL) {
		j++
	}
	neg := false
	if ts.is(j, tokMinus) {
		neg = true
		j++
	}
	t := ts.at(j)
	switch t.kind {
	case pg_query.Token_SCONST:
		text, sok := stringValue(t.text)
		if !sok {
			return lit, false
		}
		j++
		if u := ts.word(j); unitWord(u) {
			// INTERVAL '5' MINUTE
			text = strings.TrimSpace(text) + " " + u
			j++
		}
		d, dok, cal := parseDurationText(text)
		if !dok {
			return lit, false
		}
		if neg {
			d = -d
		}
		return intervalLit{d: d, next: j, calendar: cal}, true
	case pg_query.Token_ICONST, pg_query.Token_FCONST:
		u := ts.word(j + 1)
		if !unitWord(u) {
			return lit, false
		}
		d, dok, cal := parseDurationText(t.text + " " + u)
		if !dok {
			return lit, false
		}
		if neg {
			d = -d
		}
		return intervalLit{d: d, next: j + 2, calendar: cal}, true
	}
	return lit, false
}

// stringValue unquotes a plain or E” string constant.
func stringValue(text string) (string, bool) {
	if len(text) >= 3 && (text[0] == 'e' || text[0] == 'E') && text[1] == '\'' {
		body := text[2 : len(text)-1]
		return strings.NewReplacer(`\\`, `\`, `\'`, `'`, `''`, `'`, `\n`, "\n", `\t`, "\t").Replace(body), true
	}
	if len(text) >= 2 && text[0] == '\'' && text[len(text)-1] == '\'' {
		return strings.ReplaceAll(text[1:len(text)-1], "''", "'"), true
	}
	return "", false
}

// canonicalIntervals records a small edit for every INTERVAL <number> <unit>
// in tokens [from, to): PostgreSQL's grammar rejects that spelling, so it
// becomes INTERVAL '<number> <unit>' wherever it appears.
func (ts *tokenStream) canonicalIntervals(rw *rewriter, from, to int) {
	for i := from; i < to; i++ {
		if !ts.is(i, pg_query.Token_INTERVAL) {
			continue
		}
		j := i + 1
		neg := ""
		if ts.is(j, tokMinus) {
			neg = "-"
			j++
		}
		t := ts.at(j)
		if t.kind != pg_query.Token_ICONST && t.kind != pg_query.Token_FCONST || j+1 >= to {
			continue
		}
		u := ts.word(j + 1)
		if !unitWord(u) {
			continue
		}
		rw.small = append(rw.small, edit{start: ts.toks[i].start, end: ts.toks[j+1].end,
			text: "INTERVAL '" + neg + t.text + " " + u + "'"})
		i = j + 1
	}
}
