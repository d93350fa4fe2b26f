package parse

import (
	"errors"
	"strconv"
	"strings"
)

// checkQuartzCron checks a Quartz cron string, the form Databricks'
// SCHEDULE CRON takes: seconds minutes hours day-of-month month
// day-of-week [year], each field *, a value, a range a-b, a step x/n or a
// list of those; ? in exactly one of the two day fields; L, W and # in the
// day fields as Quartz has them. The error says which field is wrong.
func checkQuartzCron(s string) error {
	f := strings.Fields(s)
	if len(f) != 6 && len(f) != 7 {
		return errors.New("expected 6 or 7 fields (seconds minutes hours day-of-month month day-of-week [year]), got " + strconv.Itoa(len(f)))
	}
	fields := []struct {
		name     string
		lo, hi   int
		names    []string // month or day names, index+lo is the value
		dayField bool
	}{
		{name: "seconds", lo: 0, hi: 59},
		{name: "minutes", lo: 0, hi: 59},
		{name: "hours", lo: 0, hi: 23},
		{name: "day-of-month", lo: 1, hi: 31, dayField: true},
		{name: "month", lo: 1, hi: 12, names: []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}},
		{name: "day-of-week", lo: 1, hi: 7, names: []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}, dayField: true},
		{name: "year", lo: 1970, hi: 2099},
	}
	for i, v := range f {
		fd := fields[i]
		if v == "?" {
			if !fd.dayField {
				return errors.New("'?' is allowed only in the day-of-month and day-of-week fields")
			}
			continue
		}
		value := func(x string) bool {
			x = strings.ToUpper(x)
			for _, n := range fd.names {
				if x == n {
					return true
				}
			}
			n, err := strconv.Atoi(x)
			return err == nil && n >= fd.lo && n <= fd.hi
		}
		for _, part := range strings.Split(v, ",") {
			ok := false
			switch {
			case part == "*":
				ok = true
			case fd.dayField && (part == "L" || part == "LW" || strings.HasSuffix(part, "L") && value(strings.TrimSuffix(part, "L"))):
				ok = true
			case i == 3 && strings.HasSuffix(part, "W") && value(strings.TrimSuffix(part, "W")):
				ok = true
			case i == 5 && strings.Contains(part, "#"):
				d, n, _ := strings.Cut(part, "#")
				k, err := strconv.Atoi(n)
				ok = value(d) && err == nil && k >= 1 && k <= 5
			case strings.Contains(part, "/"):
				base, step, _ := strings.Cut(part, "/")
				n, err := strconv.Atoi(step)
				ok = (base == "*" || value(base) || isRange(base, value)) && err == nil && n >= 1
			case strings.Contains(part, "-"):
				ok = isRange(part, value)
			default:
				ok = value(part)
			}
			if !ok {
				return errors.New("bad " + fd.name + " field \"" + v + "\"")
			}
		}
	}
	if f[3] == "?" && f[5] == "?" {
		return errors.New("only one of day-of-month and day-of-week may be '?'")
	}
	if f[3] != "?" && f[5] != "?" {
		return errors.New("one of day-of-month and day-of-week must be '?' (Quartz does not take both)")
	}
	return nil
}

func isRange(s string, value func(string) bool) bool {
	a, b, ok := strings.Cut(s, "-")
	return ok && value(a) && value(b)
}
