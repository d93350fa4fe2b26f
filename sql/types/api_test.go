package types

import (
	"math"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// The hot output paths append into a caller's buffer without allocating.
func TestAppendTextDoesNotAllocate(t *testing.T) {
	mem := memory.DefaultAllocator
	ib := array.NewInt64Builder(mem)
	ib.Append(-1234567890123)
	ints := ib.NewArray()
	fb := array.NewFloat64Builder(mem)
	fb.Append(1.5e-7)
	floats := fb.NewArray()
	tb := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"})
	tb.Append(arrow.Timestamp(1704164645123456))
	stamps := tb.NewArray()
	kolkata, _ := LoadLocation("Asia/Kolkata")
	fs := &FormatSettings{Location: kolkata, ExtraFloatDigits: 1}
	buf := make([]byte, 0, 256)
	for _, c := range []struct {
		typ T
		arr arrow.Array
	}{{Int8, ints}, {Float8, floats}, {Timestamp, stamps}, {TimestampTZ, stamps}} {
		n := testing.AllocsPerRun(100, func() { buf = AppendText(buf[:0], c.typ, c.arr, 0, fs) })
		if n != 0 {
			t.Errorf("AppendText(%s) allocates %v times", c.typ, n)
		}
	}
	if got := string(AppendText(nil, TimestampTZ, stamps, 0, fs)); got != "2024-01-02 08:34:05.123456+05:30" {
		t.Errorf("timestamptz in Asia/Kolkata: %q", got)
	}
}

func TestExportedHelpers(t *testing.T) {
	if s := FormatFloat64(1e20); s != "1e+20" {
		t.Errorf("FormatFloat64(1e20) = %q", s)
	}
	if s := FormatFloat64(math.Copysign(0, -1)); s != "-0" {
		t.Errorf("FormatFloat64(-0) = %q", s)
	}
	if s := FormatFloat32(0.1); s != "0.1" {
		t.Errorf("FormatFloat32(0.1) = %q", s)
	}
	if s, err := CoerceNumeric("999.995", NumericTypmod(5, 2)); err == nil {
		t.Errorf("CoerceNumeric overflow gave %q", s)
	} else if e := sqlerr.From(err); e.Code != sqlerr.NumericValueOutOfRange || e.Detail != "A field with precision 5, scale 2 must round to an absolute value less than 10^3." {
		t.Errorf("CoerceNumeric error %+v", e)
	}
	if s, _ := CoerceNumeric("-1.005", NumericTypmod(5, 2)); s != "-1.01" {
		t.Errorf("CoerceNumeric(-1.005) = %q", s)
	}
	if s, _ := CoerceNumeric("1.5", NumericTypmod(5, 3)); s != "1.500" {
		t.Errorf("CoerceNumeric(1.5, 5,3) = %q", s)
	}
	iv, err := ParseInterval("1 year 2 mons 3 days 04:05:06.5")
	if err != nil || iv != (arrow.MonthDayNanoInterval{Months: 14, Days: 3, Nanoseconds: 14706500000000}) {
		t.Errorf("ParseInterval = %+v, %v", iv, err)
	}
	if s := FormatInterval(arrow.MonthDayNanoInterval{Days: -1, Nanoseconds: 2 * 3600e9}); s != "-1 days +02:00:00" {
		t.Errorf("FormatInterval = %q", s)
	}
	if s, _ := NormalizeJSONB(`{"b": 1, "a": {"y": 1e2, "x": [1,2]}, "a": 0}`); s != `{"a": 0, "b": 1}` {
		t.Errorf("NormalizeJSONB = %q", s)
	}
	us, err := ParseTimestampTZ("2024-01-02 03:04:05", mustLoc(t, "America/St_Johns"))
	if err != nil || FormatTimestampTZ(us, time.UTC) != "2024-01-02 06:34:05+00" {
		t.Errorf("ParseTimestampTZ = %d %v", us, err)
	}
	ts, err := ParseTimestamp("0044-03-15 12:00 BC")
	if err != nil || FormatTimestamp(ts) != "0044-03-15 12:00:00 BC" {
		t.Errorf("ParseTimestamp BC = %d %v", ts, err)
	}
	d, err := ParseDate("2024-02-29")
	if err != nil || FormatDate(d) != "2024-02-29" || int64(d) != DaysFromCivil(2024, 2, 29) {
		t.Errorf("ParseDate = %d %v", d, err)
	}
	if LocalToUTC(0, mustLoc(t, "Asia/Kolkata")) != -(5*3600+1800)*MicrosPerSecond {
		t.Errorf("LocalToUTC")
	}
	if got := FormatArray([][]byte{[]byte("a b"), nil, []byte(""), []byte(`x"y`)}); got != `{"a b",NULL,"","x\"y"}` {
		t.Errorf("FormatArray = %s", got)
	}
	if els, err := SplitArrayLiteral([]byte(`{a,"b c",NULL}`)); err != nil || len(els) != 3 || els[2] != nil || string(els[1]) != "b c" {
		t.Errorf("SplitArrayLiteral = %q %v", els, err)
	}
}

func mustLoc(t *testing.T, name string) *time.Location {
	l, ok := LoadLocation(name)
	if !ok {
		t.Fatalf("no zone %s", name)
	}
	return l
}

// Known limits of the fixed Arrow representations, which must fail
// cleanly rather than wrap around.
func TestRepresentationLimits(t *testing.T) {
	for _, c := range []struct {
		typ  T
		in   string
		code string
	}{
		{Interval, "2562048 hours", sqlerr.DatetimeFieldOverflow},
		{Timestamp, "294248-01-01 00:00:00", sqlerr.DatetimeFieldOverflow},
		{T{1007, -1}, "{{1,2},{3,4}}", sqlerr.FeatureNotSupported},
		{T{1007, -1}, "[0:1]={1,2}", sqlerr.FeatureNotSupported},
	} {
		b := array.NewBuilder(memory.DefaultAllocator, c.typ.Arrow())
		err := AppendParsedText(b, c.typ, []byte(c.in), nil)
		if sqlerr.Code(err) != c.code {
			t.Errorf("%s %q: %v, want %s", c.typ, c.in, err, c.code)
		}
		if b.Len() != 0 {
			t.Errorf("%s %q: failed input left %d values in the builder", c.typ, c.in, b.Len())
		}
		b.Release()
	}
}

// A failing element leaves nothing behind in an array builder.
func TestArrayInputIsAtomic(t *testing.T) {
	typ := T{1007, -1}
	b := array.NewListBuilder(memory.DefaultAllocator, arrow.PrimitiveTypes.Int32)
	defer b.Release()
	if err := AppendParsedText(b, typ, []byte("{1,2,x}"), nil); sqlerr.Code(err) != sqlerr.InvalidTextRepresentation {
		t.Fatalf("got %v", err)
	}
	if err := AppendParsedText(b, typ, []byte("{3}"), nil); err != nil {
		t.Fatal(err)
	}
	arr := b.NewArray()
	defer arr.Release()
	if arr.Len() != 1 || string(AppendText(nil, typ, arr, 0, nil)) != "{3}" {
		t.Errorf("builder holds %d values: %s", arr.Len(), AppendText(nil, typ, arr, 0, nil))
	}
}

// Malformed binary input fails with PostgreSQL's codes, never panics.
func TestBinaryInputErrors(t *testing.T) {
	for _, c := range []struct {
		typ  T
		data []byte
		code string
	}{
		{Int4, []byte{0, 0, 1}, sqlerr.ProtocolViolation},
		{Int4, []byte{0, 0, 0, 1, 2}, "22P03"},
		{Numeric, []byte{0, 1, 0, 0, 0x12, 0x34, 0, 0, 0, 1}, "22P03"},
		{Numeric, []byte{0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x10}, "22P03"},
		{Text, []byte{0xff}, "22021"},
		{JSONB, []byte{2, '1'}, sqlerr.InternalError},
		{T{1007, -1}, []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 1, 0, 0, 0, 1}, sqlerr.DatatypeMismatch},
		{T{1007, -1}, []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 23, 0x7f, 0, 0, 0, 0, 0, 0, 1}, sqlerr.ProtocolViolation},
		{Timestamp, []byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, sqlerr.DatetimeFieldOverflow},
	} {
		b := array.NewBuilder(memory.DefaultAllocator, c.typ.Arrow())
		err := AppendParsedBinary(b, c.typ, c.data)
		if sqlerr.Code(err) != c.code {
			t.Errorf("%s %x: %v (%s), want %s", c.typ, c.data, err, sqlerr.Code(err), c.code)
		}
		b.Release()
	}
}

func BenchmarkAppendTextTimestampTZ(b *testing.B) {
	tb := array.NewTimestampBuilder(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"})
	tb.Append(arrow.Timestamp(1704164645123456))
	arr := tb.NewArray()
	loc, _ := LoadLocation("Europe/Paris")
	fs := &FormatSettings{Location: loc, ExtraFloatDigits: 1}
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = AppendText(buf[:0], TimestampTZ, arr, 0, fs)
	}
}

func BenchmarkParseTimestamp(b *testing.B) {
	tb := array.NewTimestampBuilder(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Microsecond})
	in := []byte("2024-01-02 03:04:05.123456")
	for i := 0; i < b.N; i++ {
		if err := AppendParsedText(tb, Timestamp, in, nil); err != nil {
			b.Fatal(err)
		}
	}
}
