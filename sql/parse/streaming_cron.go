package parse

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// QuartzCron is a Quartz cron schedule, the form Databricks' SCHEDULE CRON
// takes: seconds minutes hours day-of-month month day-of-week [year], each
// field *, a value, a range a-b, a step x/n or a list of those; ? in
// exactly one of the two day fields; L, W and # in the day fields as
// Quartz has them (L: last day, nW: the weekday nearest day n, LW: the
// last weekday, dL: the last day d of the month, d#k: the k-th day d).
type QuartzCron struct {
	fields []cronField // seconds .. year; year is * when not given
}

// cronField matches one field's value v of time t.
type cronField func(v int, t time.Time) bool

// ParseQuartzCron reads a Quartz cron string; the error says which field
// is wrong.
func ParseQuartzCron(s string) (*QuartzCron, error) {
	f := strings.Fields(s)
	if len(f) != 6 && len(f) != 7 {
		return nil, errors.New("expected 6 or 7 fields (seconds minutes hours day-of-month month day-of-week [year]), got " + strconv.Itoa(len(f)))
	}
	if len(f) == 6 {
		f = append(f, "*")
	}
	if f[3] == "?" && f[5] == "?" {
		return nil, errors.New("only one of day-of-month and day-of-week may be '?'")
	}
	if f[3] != "?" && f[5] != "?" {
		return nil, errors.New("one of day-of-month and day-of-week must be '?' (Quartz does not take both)")
	}
	specs := []cronSpec{
		{name: "seconds", lo: 0, hi: 59},
		{name: "minutes", lo: 0, hi: 59},
		{name: "hours", lo: 0, hi: 23},
		{name: "day-of-month", lo: 1, hi: 31, index: 3},
		{name: "month", lo: 1, hi: 12, names: []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}},
		{name: "day-of-week", lo: 1, hi: 7, names: []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}, index: 5},
		{name: "year", lo: 1970, hi: 2099},
	}
	c := &QuartzCron{}
	for i, v := range f {
		m, err := specs[i].compile(v)
		if err != nil {
			return nil, err
		}
		c.fields = append(c.fields, m)
	}
	return c, nil
}

func checkQuartzCron(s string) error {
	_, err := ParseQuartzCron(s)
	return err
}

// Matches reports whether the schedule fires at t (to the second, in t's
// location).
func (c *QuartzCron) Matches(t time.Time) bool {
	vals := []int{t.Second(), t.Minute(), t.Hour(), t.Day(), int(t.Month()), int(t.Weekday()) + 1, t.Year()}
	for i, m := range c.fields {
		if !m(vals[i], t) {
			return false
		}
	}
	return true
}

type cronSpec struct {
	name   string
	lo, hi int
	names  []string // value lo+i is names[i]
	index  int      // 3: day-of-month, 5: day-of-week (their specials)
}

func (s cronSpec) value(x string) (int, bool) {
	x = strings.ToUpper(x)
	for i, n := range s.names {
		if x == n {
			return s.lo + i, true
		}
	}
	n, err := strconv.Atoi(x)
	return n, err == nil && n >= s.lo && n <= s.hi
}

func (s cronSpec) compile(v string) (cronField, error) {
	bad := errors.New("bad " + s.name + " field \"" + v + "\"")
	if v == "?" {
		if s.index == 0 {
			return nil, errors.New("'?' is allowed only in the day-of-month and day-of-week fields")
		}
		return func(int, time.Time) bool { return true }, nil
	}
	var parts []cronField
	for _, part := range strings.Split(v, ",") {
		m, ok := s.part(part)
		if !ok {
			return nil, bad
		}
		parts = append(parts, m)
	}
	return func(x int, t time.Time) bool {
		for _, m := range parts {
			if m(x, t) {
				return true
			}
		}
		return false
	}, nil
}

func lastDay(t time.Time) int {
	return time.Date(t.Year(), t.Month()+1, 0, 0, 0, 0, 0, t.Location()).Day()
}

// part compiles one element of a field's list.
func (s cronSpec) part(part string) (cronField, bool) {
	switch {
	case part == "*":
		return func(int, time.Time) bool { return true }, true
	case s.index == 3 && part == "L":
		return func(x int, t time.Time) bool { return x == lastDay(t) }, true
	case s.index == 3 && part == "LW":
		return func(x int, t time.Time) bool { return x == nearestWeekday(t, lastDay(t)) }, true
	case s.index == 3 && strings.HasSuffix(part, "W"):
		n, ok := s.value(strings.TrimSuffix(part, "W"))
		return func(x int, t time.Time) bool { return x == nearestWeekday(t, min(n, lastDay(t))) }, ok
	case s.index == 5 && part == "L":
		return func(x int, _ time.Time) bool { return x == 7 }, true
	case s.index == 5 && strings.HasSuffix(part, "L"):
		d, ok := s.value(strings.TrimSuffix(part, "L"))
		return func(x int, t time.Time) bool { return x == d && t.Day()+7 > lastDay(t) }, ok
	case s.index == 5 && strings.Contains(part, "#"):
		ds, ks, _ := strings.Cut(part, "#")
		d, ok := s.value(ds)
		k, err := strconv.Atoi(ks)
		return func(x int, t time.Time) bool { return x == d && (t.Day()-1)/7+1 == k }, ok && err == nil && k >= 1 && k <= 5
	case strings.Contains(part, "/"):
		base, step, _ := strings.Cut(part, "/")
		n, err := strconv.Atoi(step)
		if err != nil || n < 1 {
			return nil, false
		}
		from, to := s.lo, s.hi
		if base != "*" {
			var ok bool
			if a, b, isRange := strings.Cut(base, "-"); isRange {
				var ok2 bool
				from, ok = s.value(a)
				to, ok2 = s.value(b)
				ok = ok && ok2
			} else {
				from, ok = s.value(base)
			}
			if !ok {
				return nil, false
			}
		}
		return func(x int, _ time.Time) bool { return x >= from && x <= to && (x-from)%n == 0 }, true
	case strings.Contains(part, "-"):
		a, b, _ := strings.Cut(part, "-")
		from, ok1 := s.value(a)
		to, ok2 := s.value(b)
		return func(x int, _ time.Time) bool { return x >= from && x <= to }, ok1 && ok2
	}
	n, ok := s.value(part)
	return func(x int, _ time.Time) bool { return x == n }, ok
}

// nearestWeekday is the weekday (Monday to Friday) nearest day d of t's
// month, not leaving the month (Quartz's W).
func nearestWeekday(t time.Time, d int) int {
	day := time.Date(t.Year(), t.Month(), d, 0, 0, 0, 0, t.Location())
	switch day.Weekday() {
	case time.Saturday:
		if d == 1 {
			return 3
		}
		return d - 1
	case time.Sunday:
		if d == lastDay(t) {
			return d - 2
		}
		return d + 1
	}
	return d
}
