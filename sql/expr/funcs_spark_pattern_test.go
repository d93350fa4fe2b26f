package expr

import (
	"context"

	"github.com/weir-sql/weir/internal/pgtest"
	"testing"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
)

func TestSparkFormatDialect(t *testing.T) {
	cases := []struct {
		format string
		spark  bool
	}{
		// Databricks' formats.
		{"yyyy-MM-dd HH:mm:ss", true},
		{"yyyy-MM-dd HH:mm:ss.SSS", true},
		{"yyyy-MM-dd'T'HH:mm:ss.SSSXXX", true},
		{"yyyy-MM-dd HH:mm:ss.SSSSSS", true},
		{"dd/MM/yyyy HH:mm", true},
		{"yyyyMMddHHmmss", true},
		{"MM/dd/yyyy hh:mm:ss a", true},
		{"dd-MMM-yyyy", true},
		{"EEE, dd MMM yyyy HH:mm:ss z", true},
		{"M/d/yyyy", true},
		{"HH:mm", true},
		// Read alike by both, or PostgreSQL's.
		{"yyyy-MM-dd", false},
		{"dd/MM/yyyy", false},
		{"yyyyMMdd", false},
		{"yyyy-mm-dd", false},
		{"YYYY-MM-DD", false},
		{"YYYY-MM-DD HH24:MI:SS", false},
		{"yyyy-mm-dd hh24:mi:ss", false},
		{"HH12:MI:SS AM", false},
		{"HH:MI:SS", false},
		{"DD Mon YYYY", false},
		{"Month DD, YYYY", false},
		{`YYYY-MM-DD"T"HH24:MI:SS`, false},
		{"YYYY-MM-DD HH24:MI:SS.US", false},
		{"FMDD.FMMM.YYYY", false},
		{"DDth Mon", false},
		{"HH:MM:SS", false},
		{"YYYY-MM-DD HH", false},
		// The formats of PostgreSQL's documentation and of common use.
		{"DD Mon YYYY HH:MI:SSPM", false},
		{"HH24:MI:SS", false},
		{"Day, DD  HH12:MI:SS", false},
		{"FMMonth", false},
		{"YYYY MM DD", false},
		{"IYYY-IW-ID", false},
		{"J", false},
		{"MM/DD/YY", false},
		{"dd.mm.yyyy", false},
		{"dd.mm.yyyy hh24:mi", false},
		{"yyyy-mm-dd hh:mi:ss", false},
		{"mm/dd/yyyy hh:mi am", false},
		{"YYYY-MM-DD HH24:MI:SS TZH:TZM", false},
		{"YYYY-MM-DD HH24:MI:SS.MS", false},
		{"HH24MISS", false},
		{"YYYY-MM-DDTHH24:MI:SS", false},
		{"Y,YYY", false},
		{"YYYY-MM-DD HH:MI:SS.FF3", false},
		{"DDD YYYY", false},
		{"WW YYYY", false},
		{"CC", false},
		{"RM", false},
		// Spark readings where PostgreSQL's would be nonsense.
		{"yyyy-mm-dd hh:mm:ss", true},
		{"hh:mm", true},
		{"mm:ss", true},
	}
	for _, c := range cases {
		if got := isSparkDatetimeFormat(c.format); got != c.spark {
			t.Errorf("%q: Spark %v, want %v", c.format, got, c.spark)
		}
	}
}

func TestSparkPatternFormat(t *testing.T) {
	// 2016-04-08 13:05:09.123456 UTC, a Friday, shown in Los Angeles
	// (PDT, -07:00) and in UTC.
	inst := time.Date(2016, 4, 8, 13, 5, 9, 123456000, time.UTC).UnixMicro()
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skip(err)
	}
	cases := []struct {
		format string
		loc    *time.Location
		want   string
	}{
		{"yyyy-MM-dd HH:mm:ss", time.UTC, "2016-04-08 13:05:09"},
		{"y", time.UTC, "2016"},
		{"yy=MM=dd HH=mm=ss", time.UTC, "16=04=08 13=05=09"},
		{"MM/dd/yyyy", time.UTC, "04/08/2016"},
		{"dd.MM.yyyy", time.UTC, "08.04.2016"},
		{"yyyy-MM-dd'T'HH:mm:ss.SSSXXX", time.UTC, "2016-04-08T13:05:09.123Z"},
		{"yyyy-MM-dd'T'HH:mm:ss.SSSXXX", la, "2016-04-08T06:05:09.123-07:00"},
		{"HH:mm:ss.SSSSSS Z", la, "06:05:09.123456 -0700"},
		{"EEE, d MMM yyyy h:mm a z", la, "Fri, 8 Apr 2016 6:05 AM PDT"},
		{"EEEE MMMM", time.UTC, "Friday April"},
		{"D Q QQQ QQQQ F", time.UTC, "99 2 Q2 2nd quarter 1"},
		{"k K h a", time.UTC, "13 1 1 PM"},
		{"G yyyy", time.UTC, "AD 2016"},
		{"'It''s' HH 'o''clock'", time.UTC, "It's 13 o'clock"},
		{"''", time.UTC, "'"},
		{"VV O OOOO x xx xxx", la, "America/Los_Angeles GMT-7 GMT-07:00 -07 -0700 -07:00"},
		{"X XX XXX xxx ZZZZ ZZZZZ", time.UTC, "Z Z Z +00:00 GMT Z"},
		{"yyyy-MM-dd[ HH:mm]", time.UTC, "2016-04-08 13:05"},
	}
	for _, c := range cases {
		p, err := compileSparkPattern(c.format)
		if err != nil {
			t.Errorf("%q: %v", c.format, err)
			continue
		}
		zone := zoneMemo{loc: c.loc}
		name, off := zone.at(inst / usPerSec)
		v := sparkInstant{wall: inst + off*usPerSec, offset: off, abbrev: name, zoneID: c.loc.String()}
		if got := string(p.appendFormat(nil, &v)); got != c.want {
			t.Errorf("%q in %s: got %q, want %q", c.format, c.loc, got, c.want)
		}
	}
}

func TestSparkPatternErrors(t *testing.T) {
	for _, f := range []string{"QQQQQ", "YYYY-MM-dd", "ww", "yyyy-MM-dd'T", "dd]", "[dd", "ddd", "HHH", "aa", "ip", "yyyy#", "SSSSSSSSSS", "V", "OO"} {
		_, err := compileSparkPattern(f)
		if e := sqlerr.From(err); err == nil || e.Code != sqlerr.InvalidDatetimeFormat {
			t.Errorf("%q: got %v, want 22007", f, err)
		}
	}
}

func TestSparkPatternParse(t *testing.T) {
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skip(err)
	}
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) int64 {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC).UnixMicro()
	}
	cases := []struct {
		format, in string
		loc        *time.Location
		want       int64
	}{
		{"yyyy-MM-dd", "2016-12-31", time.UTC, utc(2016, 12, 31, 0, 0, 0, 0)},
		{"yyyy-MM-dd HH:mm:ss", "2016-12-31 00:12:00", time.UTC, utc(2016, 12, 31, 0, 12, 0, 0)},
		{"yyyy-MM-dd", "2016-04-08", la, utc(2016, 4, 8, 7, 0, 0, 0)},
		{"yyyyMMddHHmmss", "20160408130509", time.UTC, utc(2016, 4, 8, 13, 5, 9, 0)},
		{"yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "2016-04-08T13:05:09.123+02:00", la, utc(2016, 4, 8, 11, 5, 9, 123000000)},
		{"yyyy-MM-dd'T'HH:mm:ss.SSSX", "2016-04-08T13:05:09.1Z", la, utc(2016, 4, 8, 13, 5, 9, 100000000)},
		{"dd MMM yyyy hh:mm a", "08 apr 2016 01:05 pm", time.UTC, utc(2016, 4, 8, 13, 5, 0, 0)},
		{"dd MMM yyyy HH:mm:ss z", "08 Apr 2016 06:05:09 PDT", time.UTC, utc(2016, 4, 8, 13, 5, 9, 0)},
		{"yyyy-MM-dd HH:mm VV", "2016-04-08 06:05 America/Los_Angeles", time.UTC, utc(2016, 4, 8, 13, 5, 0, 0)},
		{"M/d/yyyy", "4/8/2016", time.UTC, utc(2016, 4, 8, 0, 0, 0, 0)},
		{"HH:mm", "13:05", time.UTC, utc(1970, 1, 1, 13, 5, 0, 0)},
		{"yyyy-MM-dd[ HH:mm]", "2016-04-08", time.UTC, utc(2016, 4, 8, 0, 0, 0, 0)},
		{"yyyy-MM-dd[ HH:mm]", "2016-04-08 13:05", time.UTC, utc(2016, 4, 8, 13, 5, 0, 0)},
		{"yy-D", "16-99", time.UTC, utc(2016, 4, 8, 0, 0, 0, 0)},
	}
	for _, c := range cases {
		p, err := compileSparkPattern(c.format)
		if err != nil {
			t.Errorf("%q: %v", c.format, err)
			continue
		}
		got, err := parseSparkText(p, c.in, c.loc)
		if err != nil {
			t.Errorf("%q %q: %v", c.format, c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("%q %q: got %v, want %v", c.format, c.in, time.UnixMicro(got).UTC(), time.UnixMicro(c.want).UTC())
		}
	}
	bad := []struct{ format, in string }{
		{"yyyy-MM-dd", "2016-1-31"},
		{"yyyy-MM-dd", "2016-02-30"},
		{"yyyy-MM-dd", "2016-12-31 10:00"},
		{"yyyy-MM-dd", "not-a-timestamp"},
		{"HH:mm", "24:00"},
		{"yyyy-MM-dd HH:mm:ss", ""},
		{"EEE, dd MMM yyyy", "Fri, 08 Apr 2016"}, // E, F, q, Q: formatting only
		{"yyyy QQQ", "2016 Q2"},
	}
	for _, c := range bad {
		p, err := compileSparkPattern(c.format)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parseSparkText(p, c.in, time.UTC); sqlerr.From(err).Code != sqlerr.InvalidDatetimeFormat {
			t.Errorf("%q %q: got %v, want 22007", c.format, c.in, err)
		}
	}
}

// FuzzSparkPattern: no pattern or input makes the compiler, the
// formatter, the parser or the dialect test panic.
func FuzzSparkPattern(f *testing.F) {
	for _, s := range []string{"yyyy-MM-dd HH:mm:ss.SSSXXX", "'T'[HH]", "EEE MMM d", "VV z O", "yyyy-MM-dd[ HH:mm]", "QQQQ", "'"} {
		f.Add(s, "2016-04-08 13:05:09.123+02:00")
	}
	f.Fuzz(func(t *testing.T, format, in string) {
		isSparkDatetimeFormat(format)
		p, err := compileSparkPattern(format)
		if err != nil {
			if sqlerr.From(err).Code != sqlerr.InvalidDatetimeFormat {
				t.Fatalf("%q: %v", format, err)
			}
			return
		}
		for _, us := range []int64{0, -62135596800000000, 253402300799999999, 1460120709123456} {
			v := sparkInstant{wall: us, offset: -25200, abbrev: "PDT", zoneID: "America/Los_Angeles"}
			p.appendFormat(nil, &v)
		}
		parseSparkText(p, in, time.UTC)
	})
}

// TestToTimestampPostgresFormatsAgainstPostgres: formats PostgreSQL
// users write keep PostgreSQL's results, checked against PostgreSQL.
func TestToTimestampPostgresFormatsAgainstPostgres(t *testing.T) {
	pg := pgtest.Shared(t)
	conn := pg.Connect(t)
	if _, err := conn.Exec(context.Background(), "SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ in, format string }{
		{"2016-12-31", "yyyy-MM-dd"},
		{"2016-12-31", "yyyy-mm-dd"},
		{"2016-12-31 13:05:09", "YYYY-MM-DD HH24:MI:SS"},
		{"2016-12-31 01:05:09 PM", "YYYY-MM-DD HH12:MI:SS AM"},
		{"31/12/2016", "dd/MM/yyyy"},
		{"20161231", "yyyyMMdd"},
		{"31 Dec 2016", "DD Mon YYYY"},
		{"2016-12-31T13:05:09", `YYYY-MM-DD"T"HH24:MI:SS`},
		{"2016-12-31 13:05:09.25", "YYYY-MM-DD HH24:MI:SS.US"},
		{"2016-12-31 11", "YYYY-MM-DD HH"},
		{"2016-12-31 10:00", "yyyy-MM-dd"},
		{"31 Dec 2016 01:05:09PM", "DD Mon YYYY HH:MI:SSPM"},
		{"31.12.2016", "dd.mm.yyyy"},
		{"2016-12-31 01:05:09", "yyyy-mm-dd hh:mi:ss"},
		{"12/31/2016 01:05 pm", "mm/dd/yyyy hh:mi am"},
		{"2016-12-31 13:05:09 +02:00", "YYYY-MM-DD HH24:MI:SS TZH:TZM"},
		{"2016 366", "YYYY DDD"},
		{"2016-12-31 13:05:09.123", "YYYY-MM-DD HH24:MI:SS.MS"},
		{"December 31, 2016", "FMMonth DD, YYYY"},
	}
	for _, c := range cases {
		if isSparkDatetimeFormat(c.format) {
			t.Errorf("%q is read as Spark's", c.format)
		}
		for _, fn := range []string{"to_timestamp", "to_date"} {
			q := "SELECT (extract(epoch from " + fn + "($1, $2)::timestamptz) * 1000000)::int8"
			var want int64
			if err := conn.QueryRow(context.Background(), q, c.in, c.format).Scan(&want); err != nil {
				t.Errorf("%s(%q, %q): postgres: %v", fn, c.in, c.format, err)
				continue
			}
			got, _, err := evalFunc(t, fn, []arg{txt(c.in), txt(c.format)})
			if err != nil {
				t.Errorf("%s(%q, %q): %v", fn, c.in, c.format, err)
				continue
			}
			g := got.(int64)
			if fn == "to_date" {
				g *= usPerDay
			}
			if g != want {
				t.Errorf("%s(%q, %q): got %d, PostgreSQL %d", fn, c.in, c.format, g, want)
			}
		}
	}
}

// FuzzGetJSONObject: no document or path makes get_json_object panic,
// and a valid path over a valid document finds what encoding/json sees.
func FuzzGetJSONObject(f *testing.F) {
	f.Add(`{"a":{"b":[1,{"c":"x\"y"}]}}`, "$.a.b[1].c")
	f.Add(`{"items":[{"n":1},{"n":2}]}`, "$.items[*].n")
	f.Add(`{"first name":"Ada"}`, `$["first name"]`)
	f.Add(`[[[`, "$[0][0]")
	f.Fuzz(func(t *testing.T, doc, path string) {
		p, ok := parseSparkJSONPath(path)
		if !ok {
			return
		}
		getJSONObject(nil, doc, p, nil)
	})
}

func TestJavaRegexToRE2(t *testing.T) {
	cases := []struct{ java, re2 string }{
		{`(\d+)-(\d+)`, `(\d+)-(\d+)`},
		{`\p{Alpha}+`, `[[:alpha:]]+`},
		{`[\p{Digit}_]`, `[[:digit:]_]`},
		{`\P{Upper}`, `[[:^upper:]]`},
		{`\p{javaLowerCase}\P{javaUpperCase}`, `\p{Ll}\P{Lu}`},
		{`\p{L}\p{IsAlphabetic}`, `\p{L}\pL`},
		{`[\[\]]x`, `[\[\]]x`},
		{`\Q[a\E`, `\Q[a\E`},
	}
	for _, c := range cases {
		got, err := javaRegexToRE2(c.java)
		if err != nil || got != c.re2 {
			t.Errorf("%q: got %q, %v; want %q", c.java, got, err, c.re2)
		}
	}
	for _, bad := range []string{`[a-z&&[^aeiou]]`, `[a-z[0-9]]`, `[[:alpha:]]`, `\p{Alpha`} {
		if _, err := javaRegexToRE2(bad); sqlerr.From(err).Code != sqlerr.InvalidRegularExpression {
			t.Errorf("%q: got %v, want 2201B", bad, err)
		}
	}
}

// FuzzJavaRegex: no pattern makes the translation panic.
func FuzzJavaRegex(f *testing.F) {
	for _, s := range []string{`\p{Alpha}[\p{Digit}]`, `[a-z&&[b]]`, `\Q[\E`, `[^]]`, `\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if re2, err := javaRegexToRE2(p); err == nil {
			compileRegex(re2, false)
		}
	})
}
