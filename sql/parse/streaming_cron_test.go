package parse

import (
	"testing"
	"time"
)

func TestQuartzCron(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse("2006-01-02 15:04:05", s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	tests := []struct {
		cron string
		yes  []string
		no   []string
	}{
		{"0 0 0 * * ? *", []string{"2026-12-01 00:00:00"}, []string{"2026-12-01 00:00:01", "2026-12-01 01:00:00"}},
		{"0 0/15 * * * ?", []string{"2026-12-01 10:00:00", "2026-12-01 10:45:00"}, []string{"2026-12-01 10:10:00"}},
		{"30 5 9-17 ? * MON-FRI", []string{"2026-12-01 09:05:30"}, []string{"2026-12-05 09:05:30", "2026-12-01 18:05:30"}},
		{"0 0 12 L * ?", []string{"2026-02-28 12:00:00", "2026-12-31 12:00:00"}, []string{"2026-12-30 12:00:00"}},
		{"0 0 12 15W * ?", []string{"2026-11-16 12:00:00"}, []string{"2026-11-15 12:00:00"}}, // the 15th is a Sunday
		{"0 0 12 ? * 6#3", []string{"2026-12-18 12:00:00"}, []string{"2026-12-11 12:00:00"}}, // the third Friday
		{"0 0 12 ? * 2L", []string{"2026-12-28 12:00:00"}, []string{"2026-12-21 12:00:00"}},  // the last Monday
		{"0 0 0 1 JAN,JUL ? 2027", []string{"2027-07-01 00:00:00"}, []string{"2026-07-01 00:00:00", "2027-02-01 00:00:00"}},
	}
	for _, tc := range tests {
		c, err := ParseQuartzCron(tc.cron)
		if err != nil {
			t.Fatalf("%s: %v", tc.cron, err)
		}
		for _, s := range tc.yes {
			if !c.Matches(at(s)) {
				t.Errorf("%s does not fire at %s", tc.cron, s)
			}
		}
		for _, s := range tc.no {
			if c.Matches(at(s)) {
				t.Errorf("%s fires at %s", tc.cron, s)
			}
		}
	}
	for _, bad := range []string{"0 0 24 * * ?", "0 60 * * * ?", "* * * * *", "0 0 0 ? * ?", "0 0 0 * * *", "0 0 0 32 * ?", "0 0 0 ? * 8", "0 0 0 ? * 2#6", "0 0/0 * * * ?", "0 0 0 ? FOO *", "? 0 0 1 * ?"} {
		if _, err := ParseQuartzCron(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
