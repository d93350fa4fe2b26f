package expr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/internal/pgtest"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// fmtEval resolves name over the argument types and evaluates one row with
// the session time zone loc.
func fmtEval(t *testing.T, loc *time.Location, name string, args []arg) (Datum, types.T, error) {
	t.Helper()
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.t
	}
	r, err := ResolveScalar(name, ts)
	if err != nil {
		t.Fatalf("resolve %s%v: %v", name, ts, err)
	}
	ctx := &Ctx{Location: loc}
	arrs := make([]arrow.Array, len(args))
	for i, a := range args {
		arrs[i] = ArrayFromDatums(nil, a.t, []Datum{a.d})
		if r.ArgTypes[i].OID != a.t.OID {
			c, err := LookupCast(a.t, r.ArgTypes[i])
			if err != nil {
				t.Fatal(err)
			}
			if arrs[i], err = c(ctx, arrs[i], a.t, r.ArgTypes[i]); err != nil {
				t.Fatalf("cast: %v", err)
			}
		}
	}
	out, err := r.Overload.Impl(ctx, arrs, 1)
	if err != nil {
		return nil, r.Ret, err
	}
	return DatumAt(out, 0), r.Ret, nil
}

// fmtText renders a result as PostgreSQL's ::text would.
func fmtText(d Datum, rt types.T, loc *time.Location) string {
	if d == nil {
		return "<NULL>"
	}
	switch rt.OID {
	case types.OidTimestampTZ:
		return types.FormatTimestampTZ(d.(int64), loc)
	case types.OidDate:
		return types.FormatDate(int32(d.(int64)))
	}
	return fmt.Sprint(d)
}

type fmtCase struct {
	sql  string // PostgreSQL expression
	name string
	args []arg
}

func runFmtCases(t *testing.T, conn *pgx.Conn, zone string, cases []fmtCase) {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "SET TimeZone = '"+zone+"'"); err != nil {
		t.Fatal(err)
	}
	loc, ok := types.LoadLocation(zone)
	if !ok {
		t.Fatalf("zone %s", zone)
	}
	fails, errs := 0, 0
	defer func() { t.Logf("[%s] %d cases, %d PostgreSQL errors, %d mismatches", zone, len(cases), errs, fails) }()
	for _, c := range cases {
		var want *string
		var wantErr *pgconn.PgError
		if err := conn.QueryRow(ctx, "SELECT ("+c.sql+")::text", pgx.QueryExecModeSimpleProtocol).Scan(&want); err != nil {
			if !errors.As(err, &wantErr) {
				t.Fatalf("%s: %v", c.sql, err)
			}
		}
		got, rt, err := fmtEval(t, loc, c.name, c.args)
		if wantErr != nil {
			errs++
			e := sqlerr.From(err)
			if err == nil || e.Code != wantErr.Code || e.Message != wantErr.Message {
				t.Errorf("[%s] %s: got %v, PostgreSQL error %s %s", zone, c.sql, pick(err == nil, any(fmt.Sprintf("%q", fmtText(got, rt, loc))), any(err)), wantErr.Code, wantErr.Message)
				fails++
			}
		} else if err != nil {
			t.Errorf("[%s] %s: error %v, PostgreSQL %q", zone, c.sql, err, deref(want))
			fails++
		} else if g, w := fmtText(got, rt, loc), deref(want); g != w {
			t.Errorf("[%s] %s: got %q, PostgreSQL %q", zone, c.sql, g, w)
			fails++
		}
		if fails > 60 {
			t.Fatal("too many failures")
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<NULL>"
	}
	return *s
}

func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

var dchFormats = []string{
	"YYYY-MM-DD HH24:MI:SS", "YYYY YYY YY Y", "IYYY IYY IY I", "Y,YYY", "MM Mon MON mon", "Month|MONTH|month|",
	"FMMonth|FMDay|", "DD DDD D ID", "Day|DAY|day|Dy DY dy", "HH HH12 HH24 MI SS", "FMHH12:FMMI am AM a.m. P.M. pm",
	"MS US FF1 FF2 FF3 FF4 FF5 FF6", "SSSS SSSSS", "Q WW IW W CC J", "DDth DDTH Mth FMDDth MMth YYYYth", "FMDD FMMM FMYYYY FMHH24 FMSS",
	"TZ tz OF TZH:TZM", "FMOF", "\"Year\" YYYY \"quoted \\\" dq\"", "\\\"YYYY\\\"", "RM rm FMRM", "AD BC ad a.d. B.C.",
	"FXYYYY", "HH24 \"h\" MI \"m\"", "IDDD", "xyz!@#", "fmMonth dd", "Dy, DD Mon YYYY HH24:MI:SS OF", "", "FMQth FMWth FMCCth",
	"HHth HH12TH SSth MIth USth", "YYYYMMDD", "D-ID-IW", "TMMonth", "SP", "FMx",
}

var timestampValues = []string{
	"2024-03-05 14:07:09.123456", "2000-01-01 00:00:00", "1999-12-31 23:59:59.999999", "2021-01-03 12:00:00",
	"2020-12-31 00:30:00.5", "1970-01-01 01:02:03", "0010-06-15 11:00:00", "2010-01-04 08:09:10.01", "2008-12-29 23:00:00",
	"2001-09-11 12:00:01.000001", "2100-02-28 13:13:13", "2024-02-29 07:00:00", "1900-11-22 22:22:22",
}

func TestFormatToCharTimestamp(t *testing.T) {
	pg := pgtest.Shared(t)
	conn := pg.Connect(t)
	var cases []fmtCase
	for _, v := range timestampValues {
		us, err := types.ParseTimestamp(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range dchFormats {
			cases = append(cases, fmtCase{
				sql:  fmt.Sprintf("to_char(timestamp %s, %s)", sqlQuote(v), sqlQuote(f)),
				name: "to_char", args: []arg{ts(us), txt(f)},
			})
		}
	}
	runFmtCases(t, conn, "UTC", cases)
}

func TestFormatToCharTimestampTZ(t *testing.T) {
	pg := pgtest.Shared(t)
	conn := pg.Connect(t)
	for _, zone := range []string{"UTC", "America/New_York", "Asia/Kolkata", "Europe/Berlin", "Australia/Adelaide", "America/Sao_Paulo", "Asia/Kathmandu"} {
		loc, _ := types.LoadLocation(zone)
		var cases []fmtCase
		for _, v := range append(timestampValues[:10:10], "2024-03-10 06:59:59+00", "2024-11-03 05:30:00+00", "2024-07-01 12:00:00+00") {
			us, err := types.ParseTimestampTZ(v, loc)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range dchFormats {
				cases = append(cases, fmtCase{
					sql:  fmt.Sprintf("to_char(timestamptz %s, %s)", sqlQuote(v), sqlQuote(f)),
					name: "to_char", args: []arg{{types.TimestampTZ, us}, txt(f)},
				})
			}
		}
		// date arguments resolve to the timestamptz overload
		for _, f := range []string{"YYYY-MM-DD HH24:MI TZ OF", "Day DD Month"} {
			cases = append(cases, fmtCase{
				sql:  fmt.Sprintf("to_char(date '2024-05-06', %s)", sqlQuote(f)),
				name: "to_char", args: []arg{{types.Date, int64(19849)}, txt(f)},
			})
		}
		runFmtCases(t, conn, zone, cases)
	}
}

func TestFormatToCharInterval(t *testing.T) {
	pg := pgtest.Shared(t)
	conn := pg.Connect(t)
	vals := []string{"1 year 2 mons 3 days 04:05:06.789", "-1 year -2 mons 3 days -04:05:06.5", "100 hours", "0", "14 mons", "-14 mons", "25:00:00", "-00:00:01.5", "12 years"}
	formats := []string{"YYYY MM DD HH24:MI:SS.MS", "HH HH12 HH24 AM", "FMHH24:MI", "DDD WW Y,YYY YYY YY Y CC", "SSSS US FF3", "RM rm", "MMth DDth", "Q", "Mon", "TZ", "Day", "D", "OF"}
	var cases []fmtCase
	for _, v := range vals {
		iv, err := types.ParseInterval(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range formats {
			cases = append(cases, fmtCase{
				sql:  fmt.Sprintf("to_char(interval %s, %s)", sqlQuote(v), sqlQuote(f)),
				name: "to_char", args: []arg{{types.Interval, iv}, txt(f)},
			})
		}
	}
	runFmtCases(t, conn, "UTC", cases)
}

var numFormats = []string{
	"999", "9999", "999.99", "0000", "0000.00", "FM999.99", "FM9990.0099", "9G999D99", "9,999.99", "S999", "999S", "S9999.99",
	"999MI", "MI999", "999PL", "PL999", "SG999", "999PR", "FM999PR", "L999", "FM9999", "9.99EEEE", "9.999999EEEE", "99.9EEEE",
	"FM999th", "999TH", "RN", "FMrn", "99V99", "9999V9", "\"Total: \"999", "00.00", "FM00.00", "9", ".99", "0.9", "FM0.9",
	"9.9", "FM9.", "99999999999999999999.99999", "SG0000.00", "FMS9999", "9 9 9", "B999", "x999y", "FM9G999G999", "",
}

var numValues = []string{
	"0", "1", "-1", "5", "12", "-12", "123", "-123", "1234", "-1234.5", "0.5", "-0.5", "0.05", "12.345", "12.355",
	"999.995", "1234567", "-0.001", "0.4", "-0.4", "11", "13", "22", "3999", "99.95", "100",
}

func TestFormatToCharNumbers(t *testing.T) {
	pg := pgtest.Shared(t)
	conn := pg.Connect(t)
	var cases []fmtCase
	for _, v := range numValues {
		n, err := types.ParseNumeric([]byte(v))
		if err != nil {
			t.Fatal(err)
		}
		var f8v float64
		fmt.Sscan(v, &f8v)
		for _, f := range numFormats {
			cases = append(cases,
				fmtCase{fmt.Sprintf("to_char(%s::numeric, %s)", sqlQuote(v), sqlQuote(f)), "to_char", []arg{num(n), txt(f)}},
				fmtCase{fmt.Sprintf("to_char(%s::float8, %s)", sqlQuote(v), sqlQuote(f)), "to_char", []arg{f8(f8v), txt(f)}},
				fmtCase{fmt.Sprintf("to_char(%s::float4, %s)", sqlQuote(v), sqlQuote(f)), "to_char", []arg{{types.Float4, float64(float32(f8v))}, txt(f)}},
			)
			if !strings.Contains(v, ".") {
				var iv int64
				fmt.Sscan(v, &iv)
				cases = append(cases,
					fmtCase{fmt.Sprintf("to_char(%s::int4, %s)", v, sqlQuote(f)), "to_char", []arg{i4(iv), txt(f)}},
					fmtCase{fmt.Sprintf("to_char(%s::int8, %s)", v, sqlQuote(f)), "to_char", []arg{i8(iv), txt(f)}},
				)
			}
		}
	}
	for _, c := range []struct{ v, f string }{
		{"123456789012345.678", "999999999999999.999"}, {"1e300", "9.99EEEE"}, {"1.5e-10", "9.999EEEE"},
		{"9.9999", "9.99EEEE"}, {"123.456", "FM999999.999999"}, {"0.1", "FM9.99"}, {"0", "FM9.99"}, {"0", "FM0.99"},
	} {
		var f8v float64
		fmt.Sscan(c.v, &f8v)
		cases = append(cases, fmtCase{fmt.Sprintf("to_char(%s::float8, %s)", sqlQuote(c.v), sqlQuote(c.f)), "to_char", []arg{f8(f8v), txt(c.f)}})
		n, _ := types.ParseNumeric([]byte(c.v))
		cases = append(cases, fmtCase{fmt.Sprintf("to_char(%s::numeric, %s)", sqlQuote(c.v), sqlQuote(c.f)), "to_char", []arg{num(n), txt(c.f)}})
	}
	for _, f := range []string{"9.9.9", "999S S", "9PR9", "EEEE9", "99V9.9", "S999MI"} {
		cases = append(cases, fmtCase{fmt.Sprintf("to_char(1::int4, %s)", sqlQuote(f)), "to_char", []arg{i4(1), txt(f)}})
	}
	runFmtCases(t, conn, "UTC", cases)
}

func TestFormatToTimestamp(t *testing.T) {
	pg := pgtest.Shared(t)
	conn := pg.Connect(t)
	inputs := []struct{ in, f string }{
		{"2024-03-05 14:07:09", "YYYY-MM-DD HH24:MI:SS"},
		{"2024-03-05 02:07:09 PM", "YYYY-MM-DD HH12:MI:SS AM"},
		{"2024-03-05 12:07:09 am", "YYYY-MM-DD HH:MI:SS pm"},
		{"05 Mar 2024", "DD Mon YYYY"},
		{"5 march 2024", "DD Month YYYY"},
		{"March 5, 2024", "Month DD, YYYY"},
		{"Tuesday 05 MAR 2024", "Day DD MON YYYY"},
		{"20240305", "YYYYMMDD"},
		{"240305", "YYMMDD"},
		{"2024-3-5", "YYYY-MM-DD"},
		{"2024  03   05", "YYYY MM DD"},
		{"2024/03/05", "YYYY-MM-DD"},
		{"2024-03-05 14:07:09.123", "YYYY-MM-DD HH24:MI:SS.MS"},
		{"2024-03-05 14:07:09.5", "YYYY-MM-DD HH24:MI:SS.MS"},
		{"2024-03-05 14:07:09.123456", "YYYY-MM-DD HH24:MI:SS.US"},
		{"2024-03-05 14:07:09.12", "YYYY-MM-DD HH24:MI:SS.US"},
		{"2024-03-05 14:07:09.123456", "YYYY-MM-DD HH24:MI:SS.FF3"},
		{"2024-03-05 14:07:09 +05:30", "YYYY-MM-DD HH24:MI:SS TZH:TZM"},
		{"2024-03-05 14:07:09 -08", "YYYY-MM-DD HH24:MI:SS TZH"},
		{"2024-03-05 14:07:09-03", "YYYY-MM-DD HH24:MI:SSTZH"},
		{"2024-13-05", "YYYY-MM-DD"},
		{"2024-02-30", "YYYY-MM-DD"},
		{"2024-xx-05", "YYYY-MM-DD"},
		{"2024 Foo 05", "YYYY Mon DD"},
		{"13:00 PM", "HH12:MI PM"},
		{"25:00", "HH24:MI"},
		{"10:30", "HH24:MI"},
		{"2024 100", "YYYY DDD"},
		{"2024-W10-2", "IYYY-\"W\"IW-ID"},
		{"2460375", "J"},
		{"21 24", "CC YY"},
		{"2024-03-05T10:11:12", "YYYY-MM-DD\"T\"HH24:MI:SS"},
		{"  2024-03-05", "YYYY-MM-DD"},
		{"2024-03-05", "FXYYYY-MM-DD"},
		{"2024-03-05", "FXYYYY MM DD"},
		{"2,024-03-05", "Y,YYY-MM-DD"},
		{"2024-03-05 1:2:3", "YYYY-MM-DD FMHH24:FMMI:FMSS"},
		{"5th March 2024", "DDth Month YYYY"},
		{"2024-03-05 14", "YYYY-MM-DD TZ"},
		{"2024-03-10 02:30", "YYYY-MM-DD HH24:MI"},
		{"2024-11-03 01:30", "YYYY-MM-DD HH24:MI"},
		{"2024 3 5 6", "YYYY MM DD D"},
		{"2024", "YYYY"},
		{"99", "YY"},
		{"abc", "YYYY"},
		{"2024-03", "YYYY-MM-DD"},
		{"12345", "YYYY"},
		{"2024-03-05", ""},
	}
	for _, zone := range []string{"UTC", "America/New_York", "Asia/Kolkata"} {
		var cases []fmtCase
		for _, c := range inputs {
			cases = append(cases,
				fmtCase{fmt.Sprintf("to_timestamp(%s, %s)", sqlQuote(c.in), sqlQuote(c.f)), "to_timestamp", []arg{txt(c.in), txt(c.f)}},
				fmtCase{fmt.Sprintf("to_date(%s, %s)", sqlQuote(c.in), sqlQuote(c.f)), "to_date", []arg{txt(c.in), txt(c.f)}},
			)
		}
		runFmtCases(t, conn, zone, cases)
	}
}

func TestFormatEdgeCases(t *testing.T) {
	pg := pgtest.Shared(t)
	conn := pg.Connect(t)
	var cases []fmtCase
	for _, c := range []struct{ in, f string }{
		{"2024-03-05", "YYYY-MMDD"}, {"2024-03-05", "YYYY-MM-DD-YYYY"}, {"2024-03-05 2023", "YYYY-MM-DD YYYY"},
		{"2024-03-05 10", "IYYY-MM-DD"}, {"2,0x4", "Y,YYY"}, {"0:30 AM", "HH12:MI AM"}, {"100", "DDD"},
		{"44 BC 03 15", "YYYY BC MM DD"}, {"44 b.c. 03 15", "YYYY B.C. MM DD"}, {"2024-03-05 10:00:00.1234567", "YYYY-MM-DD HH24:MI:SS.FF6"},
		{"2024-03-05 10:00:00.123456", "YYYY-MM-DD HH24:MI:SS.FF2"}, {"2024-03-05 10:00 30", "YYYY-MM-DD HH24:MI TZM"},
		{"2024-03-05 10:00-05", "YYYY-MM-DD HH24:MI-TZH"}, {"2024-03-05 10:00 -05:30", "YYYY-MM-DD HH24:MI TZH:TZM"},
		{"2024-03-05 10:00 +16", "YYYY-MM-DD HH24:MI TZH"}, {"2024-100", "IYYY-IDDD"}, {"2024-10", "YYYY-WW"},
		{"2024-10-3", "YYYY-WW-D"}, {"2024-10-3", "IYYY-IW-ID"}, {"2024 3", "YYYY W"}, {"2024-03 2", "YYYY-MM W"},
		{"XII 2024", "RM YYYY"}, {"iv 2024", "rm YYYY"}, {"2024-03-05 99:00", "YYYY-MM-DD HH24:MI"},
		{"2024-03-05 10:60", "YYYY-MM-DD HH24:MI"}, {"2024-03-05 43200", "YYYY-MM-DD SSSS"}, {"20 05", "CC YY"},
		{"-20 05", "CC YY"}, {"2024-03-05 Q1", "YYYY-MM-DD \"Q\"Q"}, {"1-2-3", "MM-DD-YY"}, {"2024-03-05 1st", "YYYY-MM-DD DDth"},
		{"2024Mar05", "YYYYMonDD"}, {"2024March05", "YYYYMonthDD"}, {"2024-03-05 +3", "YYYY-MM-DD TZH"},
		{"2024-03-05 99999999999", "YYYY-MM-DD SSSS"}, {"2024-03-05 x", "YYYY-MM-DD SSSS"}, {"0", "YYYY"}, {"2024-03-05", "OF"},
	} {
		cases = append(cases,
			fmtCase{fmt.Sprintf("to_timestamp(%s, %s)", sqlQuote(c.in), sqlQuote(c.f)), "to_timestamp", []arg{txt(c.in), txt(c.f)}},
			fmtCase{fmt.Sprintf("to_date(%s, %s)", sqlQuote(c.in), sqlQuote(c.f)), "to_date", []arg{txt(c.in), txt(c.f)}},
		)
	}
	for _, c := range []struct{ v, f string }{
		{"infinity", "YYYY"}, {"0044-03-15 10:00:00 BC", "YYYY-MM-DD AD B.C. bc CC Y,YYY YY IYYY"}, {"2024-03-05", ""},
	} {
		us, err := types.ParseTimestamp(c.v)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, fmtCase{fmt.Sprintf("to_char(timestamp %s, %s)", sqlQuote(c.v), sqlQuote(c.f)), "to_char", []arg{ts(us), txt(c.f)}})
	}
	for _, c := range []struct{ v, f string }{
		{"NaN", "999.99"}, {"NaN", "9.99EEEE"}, {"Infinity", "9.99EEEE"}, {"-Infinity", "999"}, {"Infinity", "999"},
		{"123456789012345678901234567890.123", "999999999999999999999999999999999.99"}, {"-0.000001", "9.99EEEE"},
		{"0", "9.99EEEE"}, {"1e-20", "9.99EEEE"}, {"5000", "RN"}, {"-5", "FMRN"}, {"1.5", "9.9th"}, {"-3", "9th"},
	} {
		n, err := types.ParseNumeric([]byte(c.v))
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, fmtCase{fmt.Sprintf("to_char(%s::numeric, %s)", sqlQuote(c.v), sqlQuote(c.f)), "to_char", []arg{num(n), txt(c.f)}})
		if f, err := strconvParse(c.v); err == nil {
			cases = append(cases, fmtCase{fmt.Sprintf("to_char(%s::float8, %s)", sqlQuote(c.v), sqlQuote(c.f)), "to_char", []arg{f8(f), txt(c.f)}})
		}
	}
	for _, v := range []int64{9223372036854775807, -9223372036854775808, 2147483647, -2147483648} {
		for _, f := range []string{"9.99EEEE", "9999999999999999999", "FM999,999,999,999,999,999,999", "S9G999G999G999G999G999G999"} {
			cases = append(cases, fmtCase{fmt.Sprintf("to_char((%d)::int8, %s)", v, sqlQuote(f)), "to_char", []arg{i8(v), txt(f)}})
			if v == int64(int32(v)) {
				cases = append(cases, fmtCase{fmt.Sprintf("to_char((%d)::int4, %s)", v, sqlQuote(f)), "to_char", []arg{i4(v), txt(f)}})
			}
		}
	}
	runFmtCases(t, conn, "Europe/Berlin", cases)
}

func strconvParse(s string) (float64, error) {
	var f float64
	switch s {
	case "NaN":
		return math.NaN(), nil
	case "Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	}
	_, err := fmt.Sscan(s, &f)
	return f, err
}
