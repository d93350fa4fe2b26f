package types

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/sqlerr"
)

func TestStructTypesAreInternedAndSurviveJSON(t *testing.T) {
	inner := StructOf([]StructField{{"x", Int4}})
	st := StructOf([]StructField{{"start", Timestamp}, {"end", Timestamp}, {"in", inner}})
	if again := StructOf([]StructField{{"start", Timestamp}, {"end", Timestamp}, {"in", inner}}); again != st {
		t.Fatalf("equal field lists gave %v and %v", st, again)
	}
	if other := StructOf([]StructField{{"start", Timestamp}, {"stop", Timestamp}, {"in", inner}}); other == st {
		t.Fatal("different field names gave one type")
	}
	if !st.IsStruct() || Record.IsStruct() || st.String() != "record" || st.PGTypmod() != -1 {
		t.Fatalf("struct %v: IsStruct %v, bare record IsStruct %v, name %q, typmod %d", st, st.IsStruct(), Record.IsStruct(), st.String(), st.PGTypmod())
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back T
	if err := json.Unmarshal(b, &back); err != nil || back != st {
		t.Fatalf("JSON %s read back as %v (%v), want %v", b, back, err, st)
	}
	// Other types keep the encoding they had before struct types existed.
	if b, _ := json.Marshal(Int4); string(b) != `{"OID":23,"Typmod":-1}` {
		t.Fatalf("int4 JSON: %s", b)
	}
	if st.FieldIndex("END") != 1 || st.FieldIndex("nope") != -1 {
		t.Fatal("FieldIndex")
	}
}

func TestStructTextRoundTrip(t *testing.T) {
	st := StructOf([]StructField{{"a", Int4}, {"b", Text}, {"c", Text}})
	b := array.NewBuilder(memory.DefaultAllocator, st.Arrow())
	defer b.Release()
	inputs := []string{`(1,x,y)`, ` (2,"a b","") `, `(,,)`, `(3,"q""r\\s","(p)")`}
	want := []string{`(1,x,y)`, `(2,"a b","")`, `(,,)`, `(3,"q""r\\s","(p)")`}
	for _, in := range inputs {
		if err := AppendParsedText(b, st, []byte(in), nil); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
	}
	arr := b.NewArray()
	defer arr.Release()
	for i, w := range want {
		if got := string(AppendText(nil, st, arr, i, nil)); got != w {
			t.Errorf("%q printed %q, want %q", inputs[i], got, w)
		}
	}
	for _, bad := range []string{`(1,x)`, `(1,x,y,z)`, `1,x,y`, `(1,x,y)z`, `(1,"x,y)`} {
		err := AppendParsedText(b, st, []byte(bad), nil)
		if se, ok := err.(*sqlerr.Error); !ok || se.Code != sqlerr.InvalidTextRepresentation {
			t.Errorf("%q: %v, want 22P02", bad, err)
		}
	}
}

func TestParseSparkType(t *testing.T) {
	cases := map[string]string{
		"INT":                              "integer",
		"string":                           "text",
		"DECIMAL(10,2)":                    "numeric(10,2)",
		"decimal":                          "numeric(10,0)",
		"ARRAY<BIGINT>":                    "bigint[]",
		"TIMESTAMP":                        "timestamp with time zone",
		"timestamp_ntz":                    "timestamp without time zone",
		"FLOAT":                            "real",
		"STRUCT<a: INT, `b c` STRING>":     "record",
		"STRUCT<a: STRUCT<b: ARRAY<INT>>>": "record",
	}
	for in, want := range cases {
		got, err := ParseSparkType(in)
		if err != nil || got.String() != want {
			t.Errorf("%s: %v %v, want %s", in, got, err, want)
		}
	}
	st, _ := ParseSparkType("STRUCT<a: INT NOT NULL COMMENT 'it''s', `b c` STRING>")
	if fs := st.Fields(); len(fs) != 2 || fs[1].Name != "b c" || fs[1].Type != Text {
		t.Errorf("fields: %+v", fs)
	}
	for in, code := range map[string]string{
		"MAP<STRING, INT>":     sqlerr.FeatureNotSupported,
		"STRUCT<a INT, a INT>": sqlerr.DuplicateColumn,
		"NOPE":                 sqlerr.UndefinedObject,
		"STRUCT<a INT":         sqlerr.SyntaxError,
		"ARRAY<ARRAY<INT>>":    sqlerr.FeatureNotSupported,
	} {
		_, err := ParseSparkType(in)
		if se, ok := err.(*sqlerr.Error); !ok || se.Code != code {
			t.Errorf("%s: %v, want %s", in, err, code)
		}
	}
	fs, err := ParseSparkSchema("a INT, b: STRING")
	if err != nil || len(fs) != 2 || fs[0].Type != Int4 || fs[1].Type != Text {
		t.Errorf("schema: %+v %v", fs, err)
	}
}

func TestSparkName(t *testing.T) {
	st, err := ParseSparkType("STRUCT<start: TIMESTAMP, n: ARRAY<DECIMAL(10,2)>, s STRING, b BINARY, x TIMESTAMP_NTZ>")
	if err != nil {
		t.Fatal(err)
	}
	if got := SparkName(st); got != "struct<start:timestamp,n:array<decimal(10,2)>,s:string,b:binary,x:timestamp_ntz>" {
		t.Errorf("SparkName: %s", got)
	}
	// What SparkName prints, ParseSparkType reads back as the same type.
	if back, err := ParseSparkType(SparkName(st)); err != nil || back != st {
		t.Errorf("round trip: %v %v", back, err)
	}
}

func TestParseSparkTypeDepthIsBounded(t *testing.T) {
	deep := strings.Repeat("STRUCT<a: ", 100000) + "INT" + strings.Repeat(">", 100000)
	if _, err := ParseSparkType(deep); err == nil {
		t.Fatal("100000 nested structs parsed")
	}
}

// A struct's text and binary forms are written into the caller's buffer
// without allocating, as the scalar types' are.
func TestStructOutputDoesNotAllocate(t *testing.T) {
	st := StructOf([]StructField{{"start", Timestamp}, {"end", Timestamp}, {"n", Int8}, {"s", Text}})
	b := array.NewBuilder(memory.DefaultAllocator, st.Arrow())
	defer b.Release()
	if err := AppendParsedText(b, st, []byte(`("2024-01-01 00:00:00","2024-01-01 00:00:10",7,"a b")`), nil); err != nil {
		t.Fatal(err)
	}
	arr := b.NewArray()
	defer arr.Release()
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { buf = AppendText(buf[:0], st, arr, 0, nil) }); n != 0 {
		t.Errorf("AppendText of a struct allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { buf, _ = AppendBinary(buf[:0], st, arr, 0) }); n != 0 {
		t.Errorf("AppendBinary of a struct allocates %v times", n)
	}
	if got := string(AppendText(nil, st, arr, 0, nil)); got != `("2024-01-01 00:00:00","2024-01-01 00:00:10",7,"a b")` {
		t.Errorf("text: %s", got)
	}
}
