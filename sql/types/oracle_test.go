package types

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/internal/pgtest"
	"github.com/weir-sql/weir/sql/sqlerr"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

// testType resolves a SQL type spelling such as "varchar(3)", "numeric(5,2)"
// or "int4[]" to a T.
func testType(t *testing.T, name string) T {
	t.Helper()
	isArray := strings.HasSuffix(name, "[]")
	name = strings.TrimSuffix(name, "[]")
	typmod := int32(-1)
	if k := strings.IndexByte(name, '('); k >= 0 {
		args := strings.Split(strings.TrimSuffix(name[k+1:], ")"), ",")
		name = name[:k]
		a, _ := strconv.Atoi(strings.TrimSpace(args[0]))
		switch {
		case name == "numeric":
			s := 0
			if len(args) > 1 {
				s, _ = strconv.Atoi(strings.TrimSpace(args[1]))
			}
			typmod = NumericTypmod(a, s)
		case name == "varchar" || name == "bpchar" || name == "char":
			typmod = int32(a + 4)
		default:
			typmod = int32(a)
		}
	}
	typ, ok := ByName(name)
	if !ok {
		t.Fatalf("unknown type %q", name)
	}
	typ.Typmod = typmod
	if isArray {
		typ = T{ArrayOf(typ).OID, typmod}
	}
	return typ
}

// ours runs weir's input function then its output function.
func ours(typ T, in string, fs *FormatSettings) (string, []byte, error) {
	b := array.NewBuilder(memory.DefaultAllocator, typ.Arrow())
	defer b.Release()
	if err := AppendParsedText(b, typ, []byte(in), fs); err != nil {
		return "", nil, err
	}
	arr := b.NewArray()
	defer arr.Release()
	if arr.Len() != 1 {
		return "", nil, errors.New("builder has " + strconv.Itoa(arr.Len()) + " values")
	}
	txt := AppendText(nil, typ, arr, 0, fs)
	bin, err := AppendBinary(nil, typ, arr, 0)
	if err != nil {
		return string(txt), nil, err
	}
	return string(txt), bin, nil
}

type oracle struct {
	conn   *pgx.Conn
	zone   string
	tables map[string]string
}

// table returns a temporary table with one column v of type typ.
func (o *oracle) table(typ string) string {
	if n, ok := o.tables[typ]; ok {
		return n
	}
	if o.tables == nil {
		o.tables = map[string]string{}
	}
	n := "tv" + strconv.Itoa(len(o.tables))
	if _, err := o.conn.Exec(context.Background(), "CREATE TEMP TABLE "+n+" (v "+typ+")"); err != nil {
		panic(err)
	}
	o.tables[typ] = n
	return n
}

func newOracle(t *testing.T) *oracle {
	pg := pgtest.Shared(t)
	c := pg.Connect(t)
	if _, err := c.Exec(context.Background(), "SET extra_float_digits = 1"); err != nil {
		t.Fatal(err)
	}
	return &oracle{conn: c, zone: "UTC"}
}

func (o *oracle) setZone(t *testing.T, zone string) {
	if zone == o.zone {
		return
	}
	if _, err := o.conn.Exec(context.Background(), "SET TimeZone = '"+zone+"'"); err != nil {
		t.Fatal(err)
	}
	o.zone = zone
}

// pg returns PostgreSQL's text output and binary output of in::typ.
func (o *oracle) pg(typ, in string) (string, []byte, *pgconn.PgError) {
	ctx := context.Background()
	// An unknown-typed parameter is read by the type's input function.
	// A type modifier is applied the way an INSERT applies it (an
	// explicit cast would truncate strings instead of failing).
	sql := "SELECT $1::" + typ + ", $1::" + typ
	if strings.Contains(typ, "(") {
		tbl := o.table(typ)
		sql = "INSERT INTO " + tbl + " VALUES ($1) RETURNING v, v"
	}
	rr := o.conn.PgConn().ExecParams(ctx, sql, [][]byte{[]byte(in)}, nil, nil, []int16{0, 1}).Read()
	if rr.Err != nil {
		var pe *pgconn.PgError
		if errors.As(rr.Err, &pe) {
			return "", nil, pe
		}
		return "", nil, &pgconn.PgError{Code: "?", Message: rr.Err.Error()}
	}
	return string(rr.Rows[0][0]), rr.Rows[0][1], nil
}

type textCase struct {
	typ string
	ins []string
}

var textCases = []textCase{
	{"bool", []string{"t", "true", " TRUE ", "yes", "y", "on", "1", "f", "false", "no", "off", "0", "of", "tr", "x", "", "o", "2", "truex"}},
	{"int2", []string{"0", "-32768", "32767", "32768", " 12 ", "+5", "abc", "", "1.5", "-", "1e3"}},
	{"int4", []string{"0", "-2147483648", "2147483647", "99999999999", "2147483648", " -7", "abc", "12 34"}},
	{"int8", []string{"0", "-9223372036854775808", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "42"}},
	{"oid", []string{"0", "4294967295", "4294967296", "-1", "-2147483648", "-2147483649", "12", "x"}},
	{"float8", []string{"0", "-0", "1", "1.5", "0.1", "1e20", "1e+20", "1.5e-7", "123456789012345", "1234567890123456", "1e15", "1e-4", "0.0001", "0.00001",
		"3.141592653589793", "Infinity", "-Infinity", "inf", "-inf", "NaN", "nan", "1e308", "1e309", "1e-320", "1e-400", "2.2250738585072014e-308", "x", "", " 12.5 ", "1e", "100", "1e14", "0.000123", "-1.7976931348623157e308"}},
	{"float4", []string{"0", "-0", "1.5", "0.1", "1e20", "3.4028235e38", "3.5e38", "1e-46", "123456", "1234567", "1e6", "1e5", "0.0001", "0.00001", "NaN", "-Infinity", "1.1754944e-38", "16777217"}},
	{"numeric", []string{"0", "-0", "1.50", "1e3", "1.5e-3", "0.00", "-0.00", ".5", "5.", "007.500", "-12.345", "NaN", "nan", "Infinity", "-Infinity", "inf", "1e-20", "12345678901234567890.123456789", "x", "", "1e", "1.2.3", "  3.0  ", "0.0001", "10000", "99990000", "1E+2", "-1e-2", "123.4567e2"}},
	{"numeric(5,2)", []string{"1.5", "123.456", "999.994", "999.995", "-999.995", "0.001", "0.005", "NaN", "Infinity", "12345"}},
	{"numeric(3,0)", []string{"1.5", "2.5", "-2.5", "999.4", "999.5"}},
	{"numeric(2,2)", []string{"0.99", "0.995", "1", "-0.5"}},
	{"numeric(2,-3)", []string{"12345", "99499", "99500", "1"}},
	{"text", []string{"", "hello", "a b", "ünïcödé", "\\x41"}},
	{"varchar(3)", []string{"ab", "abc", "abcd", "abc  ", "ab   ", "äöü", "äöüx"}},
	{"bpchar(3)", []string{"a", "abc", "abcd", "abc ", ""}},
	{"bpchar", []string{"a  ", "abc"}},
	{"name", []string{"abc", strings.Repeat("x", 70), strings.Repeat("é", 40)}},
	{"\"char\"", []string{"a", "abc", "", "\\101", "é", "\\377"}},
	{"bytea", []string{"\\x", "\\x0102ff", "\\xDEADbeef", "\\x 01 02", "\\x012", "\\x0g", "abc", "a\\\\b", "a\\001b", "a\\b", "\\", "\\x01 0"}},
	{"uuid", []string{"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "A0EEBC999C0B4EF8BB6D6BB9BD380A11", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", "a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11", "x", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}},
	{"date", []string{"2024-01-02", "2024-02-29", "2023-02-29", "2024-13-01", "2024-00-10", "Jan 2 2024", "January 2, 2024", "2 Jan 2024", "2024-01-02 BC", "0001-01-01 BC", "4713-01-01 BC", "4714-11-24 BC", "4714-11-23 BC",
		"epoch", "infinity", "-infinity", "1/2/2024", "01/02/24", "2024/01/02", "20240102", "2024.01.02", "x", "", "2024-01-02 03:04:05", "5874897-12-31", "5874898-01-01", "0000-01-01", "99-01-02", "Jan-02-2024", "2024-Jan-02", "12-31-1999", "31-12-1999", "1999-12-31T00:00:00"}},
	{"time", []string{"03:04:05", "03:04:05.5", "03:04:05.123456", "03:04:05.1234567", "24:00:00", "24:00:01", "23:59:59.9999999", "03:04", "3:04 PM", "12:00 AM", "allballs", "25:00", "03:60:00", "x", "2024-01-02 03:04:05", "03:04:05+01", "04:05:06.789-8"}},
	{"timestamp", []string{"2024-01-02 03:04:05", "2024-01-02T03:04:05", "2024-01-02 03:04:05.123456", "2024-01-02 03:04:05.1234565", "2024-01-02 03:04:05.9999996", "2024-01-02", "2024-01-02 03:04:05+05", "2024-01-02 03:04:05 Europe/Paris",
		"epoch", "infinity", "-infinity", "0001-01-01 00:00:00 BC", "4714-11-24 00:00:00 BC", "4714-11-23 23:59:59 BC", "294246-12-31 23:59:59", "Jan 2 2024 3:04pm", "2024-01-02 24:00:00", "2024-02-30 00:00:00", "x", "2024-01-02 03:04:05 xyz", "2024-01-02T03:04:05Z", "19990108 040506", "1999-01-08 04:05:06.789 -8:00"}},
	{"timestamptz", []string{"2024-01-02 03:04:05", "2024-01-02 03:04:05.123+01", "2024-01-02 03:04:05+0530", "2024-01-02 03:04:05+05:30", "2024-01-02 03:04:05-03:30", "2024-01-02T03:04:05Z", "2024-01-02 03:04:05 UTC", "2024-01-02 03:04:05 Europe/Paris", "2024-07-02 03:04:05 America/New_York",
		"2024-03-10 02:30:00 America/New_York", "2024-11-03 01:30:00 America/New_York", "2024-03-10 02:30:00", "2024-11-03 01:30:00", "2024-03-31 02:30:00", "epoch", "infinity", "-infinity", "1900-01-01 00:00:00", "1800-06-01 12:00:00", "0010-01-01 00:00:00 BC", "x", "2024-01-02 03:04:05+16", "2024-01-02 03:04:05 Mars/Base",
		"2024-01-02 03:04:05 EST", "2024-01-02 03:04:05 PST", "2060-07-01 12:00:00", "2024-01-02 03:04:05+01:30:15"}},
	{"interval", []string{"1 day 02:03:04", "5 minutes", "1 year 2 months", "-1 hour", "1.5 hours", "P1DT2H", "P1Y2M3DT4H5M6.5S", "@ 1 hour ago", "10 min", "2 weeks", "3 mons", "00:05:00", "0", "10", "-1 days +02:00:00", "1 year 2 mons 3 days 04:05:06.5",
		"1.5 months", "1.5 years", "1.01 years", "1.5 weeks", "1.5 days", "-1.5 days", "1 day -02:00:00", "-1 day -02:00:00", "1-2", "-1-2", "1 2:03:04", "100:00:00", "1 hour 2 hours", "x", "", "1 fortnight", "P1W", "PT1.5S", "P0001-02-03T04:05:06", "1 day ago", "1 mon -1 day", "-1 year -2 mons +3 days",
		"1 millennium", "2 centuries", "3 decades", "1.5 centuries", "5 ms", "7 us", "1.5 ms", "0.5 us", "3000000000 days", "2147483647 months", "2147483648 months", "178956970 years", "178956971 years", "1 day 1 day", "1:2:3", "1 microseconds", "1 milliseconds", "1day", "1 d 2 h", "-00:00:01", "+1 day", "- 1 day", "1:00:60", "1:60"}},
	{"json", []string{`{"b":1,"a":[1,2]}`, `[1, 2 ,3]`, `"x"`, `1e2`, `null`, `{"a":}`, `{`, ``, `01`, `{"a":"\u0000"}`, `"\ud83d\ude00"`, `tru`, `[1,]`}},
	{"jsonb", []string{`{"b":1,"a":[1,2]}`, `{"aa":1,"b":2,"a":3}`, `{"a":1,"a":2}`, `[1,2,3]`, `[]`, `{}`, `"x\ty"`, `"\u00e9\/"`, `1e2`, `1.50`, `-0`, `1E-2`, `0.1e1`, `true`, `null`, `{"a":{"c":1,"b":[true,null,"s"]}}`, `{"a":}`, `{"a":"\u0000"}`, `"\ud83d\ude00"`, `"\ud83d"`, `[1,]`, `  {"x" : 1 }  `, `{"\u0001":1}`, `"a\"b\\c"`, `12345678901234567890`, `{"k":-1.5e+3}`}},
	{"int4[]", []string{"{1,2,3}", "{}", "{1,NULL,3}", " { 1 , 2 } ", "{1,x}", "{1,2", "{1,,2}", "1,2", "{1,2}x", "[1:2]={1,2}", "{null,NULL}", "{\"1\",\"2\"}", "{99999999999}"}},
	{"text[]", []string{`{a,"a b","x\"y",NULL,""}`, `{"NULL",null,"null"}`, `{\\,"\\"}`, `{ a b , c }`, `{"{}",",",x\ y}`, `{a"b}`, `{}`, `{é,ü}`}},
	{"varchar(2)[]", []string{"{ab,c}", "{abc}"}},
	{"float8[]", []string{"{1.5,NaN,-Infinity,1e20}"}},
	{"numeric[]", []string{"{1.50,NaN,-0}"}},
	{"bool[]", []string{"{t,f,yes,NULL}"}},
	{"bytea[]", []string{`{"\\x0102",NULL,abc}`}},
	{"timestamptz[]", []string{`{"2024-01-02 03:04:05+01",infinity}`}},
	{"date[]", []string{`{2024-01-02,"2024-01-02 BC"}`}},
	{"interval[]", []string{`{"1 day","-1 days +02:00:00"}`}},
	{"uuid[]", []string{`{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}`}},
	{"jsonb[]", []string{`{"{\"b\":1,\"a\":2}",null}`}},
	{"json[]", []string{`{"{\"b\":1}","[1, 2]"}`}},
	{"\"char\"[]", []string{`{a,b}`}},
	{"int2[]", []string{`{1,-2}`}},
	{"int8[]", []string{`{1,-2}`}},
	{"oid[]", []string{`{1,2}`}},
	{"time[]", []string{`{03:04:05,24:00:00}`}},
	{"timestamp[]", []string{`{"2024-01-02 03:04:05",-infinity}`}},
	{"float4[]", []string{`{1.5,0.1}`}},
	{"name[]", []string{`{a,b}`}},
	{"bpchar(2)[]", []string{`{a,bc}`}},
}

// moreCases widen the edge cases of textCases.
var moreCases = []textCase{
	{"interval", []string{"1 year -1 mons", "1.999999999 seconds", "0.0000005 seconds", "0.0000015 seconds", "-0.5 seconds", "1 hour 30 minutes", "2 days 25:00:00", "P-1Y", "PT-1H", "P1.5Y", "P1M1.5D", "1 day 01:30",
		"1 week 1 day", "@ 1 year 2 mons -3 days 4 hours 5 mins 6 secs ago", "5 hours ago", "23:59:59.9999999", "-1 year", "1 mon", "1 year 1 mon 1 day 00:00:01", "-1 days -00:00:01", "0.1 months", "1.3 months", "-1.3 months", "0.333 years",
		"1.1 days", "2562047 hours", "P1Y-2M", "PT1H30M", "P", "PT", "p1d", "P1D2", "1:2:3.5", "12:34.5", "1 2", "1 hours 2"}},
	{"date", []string{"2000-02-29", "1900-02-29", "0099-01-01", "99-01-01", "Feb 30 2024", "2024-1-2", "1-2-2024", "Jan 2, 2024 BC", "2024-01-02 +05", "Monday, Jan 2 2024", "040102", "2024001", "1 1 2024", "2024-01-32", "13/01/2024"}},
	{"timestamp", []string{"2024-01-02 03:04:05.000001", "2024-01-02 03:04", "2024-01-02T03:04:05.5+05:30", "2024-01-02 3:4:5", "2024-01-02 12:00 PM", "2024-01-02 12:00 AM", "2024-01-02 13:00 PM", "1999-12-31 23:59:60", "2024-01-02 03:04:05 America/St_Johns", "2024-01-02 t 03:04"}},
	{"timestamptz", []string{"2024-01-02T03:04:05.5+05:30", "2024-01-02 03:04:05 -5", "2024-01-02 03:04:05 +1", "2024-01-02 03:04:05 America/St_Johns", "2024-01-02 03:04:05 asia/kolkata", "1883-11-18 12:00:00 America/New_York", "2038-01-19 03:14:08", "1970-01-01 00:00:00"}},
	{"float8", []string{"4.9e-324", "5e-324", "1.7976931348623157e308", "0.30000000000000004", "-1e-10", "1e16", "9007199254740993", "  nan  ", "+Infinity", "infinityx", "1,5", "0.1e-5", "123e-2"}},
	{"float4", []string{"1.4e-45", "1e-45", "0.1", "16777216", "3.4028234e38", "1e-40", "-0.000123", "100000"}},
	{"numeric", []string{"0.000000000000000000001", "-0.0", "+1.5", "1e+0", "9999.9999", "12345.6789e-10", "1e100", "1e-100", "-Inf", "+inf", "+NaN", " NaN ", "1 000", "1e1001", "1e-1001"}},
	{"timestamp(3)", []string{"2024-01-02 03:04:05.1235", "2024-01-02 03:04:05.9995", "1969-12-31 23:59:59.9995"}},
	{"timestamptz(0)", []string{"2024-01-02 03:04:05.5+01", "2024-01-02 03:04:05.4"}},
	{"time(2)", []string{"03:04:05.125", "23:59:59.999"}},
	{"numeric(4,4)", []string{"0.99995", "-0.99994", "0"}},
	{"numeric(10,5)", []string{"3.14159265", "-2.000005", "12345.678915"}},
	{"text[]", []string{`{"a,b","c}d","e{f"}`, `{"  lead","trail  "}`, `{NULLx,xNULL," NULL"}`, "{a	b}", `{"\\x"}`}},
	{"jsonb", []string{`{"a": [1, {"b": 2, "a": 1}], "": 0}`, `"\u001f"`, `{"b":1, "a":{"z":1,"y":[]}}`, `1.0E+2`, `-1.23e-5`, `[1e400]`, `{"é":1,"e":2,"ee":3}`, `[1,[2,[3,[]]]]`, `"\ud83d\ude00x"`, `nul`, `[1 2]`, `{"a" 1}`, `{1:2}`}},
}

var zones = []string{"UTC", "Asia/Kolkata", "America/St_Johns", "Europe/Paris", "America/New_York"}

func zoneDependent(typ string) bool { return strings.HasPrefix(typ, "timestamptz") }

// TestTextAgainstPostgres compares input+output and binary output with
// PostgreSQL 15 for every case, and error SQLSTATEs and messages for
// invalid input.
func TestTextAgainstPostgres(t *testing.T) {
	o := newOracle(t)
	compared, errorsCompared := 0, 0
	defer func() { t.Logf("%d values and %d errors compared", compared, errorsCompared) }()
	for _, tc := range append(textCases, moreCases...) {
		typ := testType(t, tc.typ)
		zs := []string{"UTC"}
		if zoneDependent(tc.typ) {
			zs = zones
		}
		for _, zone := range zs {
			o.setZone(t, zone)
			loc, _ := LoadLocation(zone)
			fs := &FormatSettings{Location: loc, ExtraFloatDigits: 1}
			for _, in := range tc.ins {
				wantText, wantBin, pgErr := o.pg(tc.typ, in)
				gotText, gotBin, err := ours(typ, in, fs)
				name := tc.typ + " " + strconv.Quote(in) + " in " + zone
				if pgErr != nil {
					if err == nil {
						t.Errorf("%s: PostgreSQL fails with %s %q, weir gives %q", name, pgErr.Code, pgErr.Message, gotText)
						continue
					}
					errorsCompared++
					e := sqlerr.From(err)
					if e.Code != pgErr.Code || e.Message != pgErr.Message {
						t.Errorf("%s: error\n weir %s %q\n   pg %s %q", name, e.Code, e.Message, pgErr.Code, pgErr.Message)
					}
					if e.Detail != pgErr.Detail && !strings.Contains(tc.typ, "json") && !strings.Contains(tc.typ, "[]") {
						t.Errorf("%s: error detail\n weir %q\n   pg %q", name, e.Detail, pgErr.Detail)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s: weir fails with %v, PostgreSQL gives %q", name, err, wantText)
					continue
				}
				compared++
				if gotText != wantText {
					t.Errorf("%s: text\n weir %q\n   pg %q", name, gotText, wantText)
				}
				if !bytes.Equal(gotBin, wantBin) {
					t.Errorf("%s: binary\n weir %x\n   pg %x", name, gotBin, wantBin)
				}
				// Binary input of PostgreSQL's bytes gives the same value back.
				b := array.NewBuilder(memory.DefaultAllocator, typ.Arrow())
				if err := AppendParsedBinary(b, typ, wantBin); err != nil {
					t.Errorf("%s: binary input: %v", name, err)
				} else {
					arr := b.NewArray()
					if got := string(AppendText(nil, typ, arr, 0, fs)); got != wantText {
						t.Errorf("%s: binary round trip gives %q, want %q", name, got, wantText)
					}
					arr.Release()
				}
				b.Release()
			}
		}
	}
}

// TestRegistryMatchesPgType checks the registry's OIDs, names, lengths,
// categories and array types against pg_type.
func TestRegistryMatchesPgType(t *testing.T) {
	o := newOracle(t)
	rows, err := o.conn.Query(context.Background(),
		"SELECT oid, typname, typlen, typbyval, typcategory, typarray, typelem FROM pg_type WHERE oid < 10000")
	if err != nil {
		t.Fatal(err)
	}
	type pgt struct {
		name     string
		length   int16
		byval    bool
		category string
		array    uint32
		elem     uint32
	}
	byOid := map[uint32]pgt{}
	for rows.Next() {
		var oid uint32
		var p pgt
		if err := rows.Scan(&oid, &p.name, &p.length, &p.byval, &p.category, &p.array, &p.elem); err != nil {
			t.Fatal(err)
		}
		byOid[oid] = p
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	for _, info := range All() {
		p, ok := byOid[info.OID]
		if !ok {
			t.Errorf("oid %d (%s) not in pg_type", info.OID, info.Name)
			continue
		}
		if p.name != info.Name || p.length != info.Len || p.byval != info.ByVal || p.category != string(info.Category) || p.array != info.Array {
			t.Errorf("oid %d: registry %s len %d byval %v cat %c array %d; pg_type %s len %d byval %v cat %s array %d",
				info.OID, info.Name, info.Len, info.ByVal, info.Category, info.Array, p.name, p.length, p.byval, p.category, p.array)
		}
		if info.Category == 'A' && p.elem != info.Elem {
			t.Errorf("oid %d: elem %d, pg_type %d", info.OID, info.Elem, p.elem)
		}
	}
}

// TestFloatOutputSettings checks extra_float_digits <= 0 output.
func TestFloatOutputSettings(t *testing.T) {
	o := newOracle(t)
	defer o.conn.Exec(context.Background(), "SET extra_float_digits = 1")
	for _, efd := range []int{0, -3} {
		if _, err := o.conn.Exec(context.Background(), "SET extra_float_digits = "+strconv.Itoa(efd)); err != nil {
			t.Fatal(err)
		}
		fs := &FormatSettings{Location: time.UTC, ExtraFloatDigits: efd}
		for _, typ := range []string{"float8", "float4"} {
			for _, in := range []string{"0.1", "1e20", "123456789012345678", "1.5e-7", "3.141592653589793", "100", "1e15", "0.0001"} {
				want, _, pgErr := o.pg(typ, in)
				got, _, err := ours(testType(t, typ), in, fs)
				if pgErr != nil || err != nil {
					t.Fatalf("%s %s: %v %v", typ, in, pgErr, err)
				}
				if got != want {
					t.Errorf("%s %q efd %d: weir %q pg %q", typ, in, efd, got, want)
				}
			}
		}
	}
}
