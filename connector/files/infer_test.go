package files

import (
	"strings"
	"testing"
)

func colsString(s Schema) string {
	var out []string
	for _, c := range s.Columns {
		out = append(out, c.Name+" "+c.Type.String())
	}
	return strings.Join(out, ", ")
}

func TestInferJSON(t *testing.T) {
	a := writeFile(t, "a.json", []byte(strings.Join([]string{
		`{"id":"x","n":1,"f":1,"mix":1,"b":true,"o":{"k":1},"arr":[1],"nul":null,"Case":1}`,
		`{"id":"y","n":2,"f":2.5,"mix":"s","b":false,"o":null,"ts":"2024-01-01T00:00:00Z","case":"other"}`,
		`not json`,
		`{"n":99999999999999999999}`,
	}, "\n")))
	b := writeFile(t, "b.json", []byte(`{"late":1}`+"\n"))
	o := Options{Format: "json", InferColumnTypes: true, RescuedColumn: "_rescued_data"}
	s, err := Infer([]FileInfo{a, b}, o, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := "id text, n double precision, f double precision, mix text, b boolean, o jsonb, arr jsonb, nul text, Case bigint, ts text, late bigint"
	if got := colsString(s); got != want {
		t.Fatalf("inferred\n%s\nwant\n%s", got, want)
	}
	if s.Rescued != "_rescued_data" || s.Version != 1 {
		t.Fatalf("%+v", s)
	}
	// Sampling: one file only.
	s, _ = Infer([]FileInfo{a, b}, o, 1, 0)
	if strings.Contains(colsString(s), "late") {
		t.Fatal("sampled the second file")
	}
	// inferColumnTypes = false: every column text.
	o.InferColumnTypes = false
	s, _ = Infer([]FileInfo{b}, o, 0, 0)
	if got := colsString(s); got != "late text" {
		t.Fatal(got)
	}
	// Hints override and add; a given schema wins.
	o.InferColumnTypes = true
	o.SchemaHints = "ts TIMESTAMP, N bigint, added DECIMAL(10,2)"
	s, err = Infer([]FileInfo{a}, o, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := colsString(s); !strings.Contains(got, "n bigint") || !strings.Contains(got, "ts timestamp with time zone") || !strings.HasSuffix(got, "added numeric(10,2)") {
		t.Fatal(got)
	}
	o.Schema = "a INT, `b c` STRING"
	s, err = Infer(nil, o, 0, 0)
	if err != nil || colsString(s) != "a integer, b c text" {
		t.Fatalf("%v %s", err, colsString(s))
	}
	o.Schema = "a INT,"
	if _, err := Infer(nil, o, 0, 0); err == nil {
		t.Fatal("bad schema accepted")
	}
	// Nothing to infer from.
	o.Schema, o.SchemaHints = "", ""
	if _, err := Infer(nil, o, 0, 0); err == nil {
		t.Fatal("inferred from nothing")
	}
	o.SchemaHints = "x INT"
	if s, err := Infer(nil, o, 0, 0); err != nil || colsString(s) != "x integer" {
		t.Fatalf("%v %s", err, colsString(s))
	}
}

func TestInferSampleBytes(t *testing.T) {
	a := writeFile(t, "a.json", []byte(`{"first":1}`+"\n"+`{"second":1}`+"\n"))
	s, err := Infer([]FileInfo{a}, Options{Format: "json", InferColumnTypes: true}, 0, 15)
	if err != nil || colsString(s) != "first bigint" {
		t.Fatalf("%v %s", err, colsString(s))
	}
}

func TestInferCSV(t *testing.T) {
	a := writeFile(t, "a.csv", []byte("i,f,b,d,ts,s,e,q\n1,1.5,true,2024-01-01,2024-01-01 10:00:00,x,,\"\"\n2,2,FALSE,2024-01-02,2024-01-01T10:00:00Z,3,,\"\"\n"))
	o := Options{Format: "csv", Header: true, InferColumnTypes: true}
	s, err := Infer([]FileInfo{a}, o, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := colsString(s); got != "i bigint, f double precision, b boolean, d date, ts timestamp with time zone, s text, e text, q text" {
		t.Fatal(got)
	}
	o.InferColumnTypes = false
	s, _ = Infer([]FileInfo{a}, o, 0, 0)
	if got := colsString(s); got != "i text, f text, b text, d text, ts text, s text, e text, q text" {
		t.Fatal(got)
	}
	o.Header = false
	o.InferColumnTypes = true
	b := writeFile(t, "b.csv", []byte("1,x\n2,y,3\n"))
	s, _ = Infer([]FileInfo{b}, o, 0, 0)
	if got := colsString(s); got != "_c0 bigint, _c1 text, _c2 bigint" {
		t.Fatal(got)
	}
	h := writeFile(t, "h.csv", []byte("only,header\n"))
	s, _ = Infer([]FileInfo{h}, Options{Format: "csv", Header: true, InferColumnTypes: true}, 0, 0)
	if got := colsString(s); got != "only text, header text" {
		t.Fatal(got)
	}
	s, _ = Infer([]FileInfo{h}, Options{Format: "text"}, 0, 0)
	if got := colsString(s); got != "value text" {
		t.Fatal(got)
	}
}

// Inferred schemas decode their own files without rescue.
func TestInferThenDecode(t *testing.T) {
	a := writeFile(t, "a.json", []byte(`{"id":"x","n":1,"f":1.5,"o":{"k":[1,2]},"b":true}`+"\n"))
	o := Options{Format: "json", InferColumnTypes: true, RescuedColumn: "_rescued_data"}
	s, err := Infer([]FileInfo{a}, o, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	d := decodeAll(t, a, o, s, 0)
	checkRows(t, d.rows, `x | 1 | 1.5 | {"k": [1, 2]} | t | NULL`)
}
