package files

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// writeFile writes content to name under a fresh temporary folder and
// describes it as the source half would.
func writeFile(t testing.TB, name string, content []byte) FileInfo {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return FileInfo{Path: p, Name: name, Size: st.Size(), Modified: st.ModTime()}
}

// schemaOf builds a Schema from a Spark DDL string, rescued column on.
func schemaOf(t testing.TB, ddl string) Schema {
	t.Helper()
	cols, err := parseColumns(ddl)
	if err != nil {
		t.Fatal(err)
	}
	return Schema{Columns: cols, Rescued: "_rescued_data", Version: 1}
}

// decoded is a file's rows as PostgreSQL's text of each value ("NULL"
// for null), data columns then the rescued column.
type decodedFile struct {
	rows  [][]string
	stats DecodeStats
	recs  []arrow.RecordBatch
}

func decodeAll(t testing.TB, info FileInfo, o Options, s Schema, batchRows int) decodedFile {
	t.Helper()
	recs, st, err := DecodeFile(info, o, s, batchRows)
	if err != nil {
		t.Fatalf("DecodeFile: %v", err)
	}
	d := decodedFile{stats: st, recs: recs}
	want := ArrowSchema(s)
	var total int64
	for _, r := range recs {
		if !r.Schema().Equal(want) {
			t.Fatalf("batch schema %v, want %v", r.Schema(), want)
		}
		total += r.NumRows()
		for i := 0; i < int(r.NumRows()); i++ {
			var row []string
			for c := 0; c < int(r.NumCols())-1; c++ {
				typ := types.JSONB
				if c < len(s.Columns) {
					typ = s.Columns[c].Type
				}
				col := r.Column(c)
				if col.IsNull(i) {
					row = append(row, "NULL")
					continue
				}
				row = append(row, string(types.AppendText(nil, typ, col, i, nil)))
			}
			d.rows = append(d.rows, row)
		}
	}
	if total != st.Rows {
		t.Fatalf("stats say %d rows, batches hold %d", st.Rows, total)
	}
	return d
}

func decodeString(t testing.TB, format, content string, o Options, s Schema) decodedFile {
	t.Helper()
	o.Format = format
	info := writeFile(t, "f."+format, []byte(content))
	return decodeAll(t, info, o, s, 0)
}

func checkRows(t *testing.T, got [][]string, want ...string) {
	t.Helper()
	var g []string
	for _, r := range got {
		g = append(g, strings.Join(r, " | "))
	}
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
}

// rescued returns the rescued column of each row with the file path
// replaced by "P", so expectations can be written down.
func rescuedOf(d decodedFile, path string) []string {
	var out []string
	for _, r := range d.rows {
		out = append(out, strings.ReplaceAll(r[len(r)-1], path, "P"))
	}
	return out
}


func TestDecodeJSON(t *testing.T) {
	s := schemaOf(t, "id STRING, n BIGINT, small INT, amount DECIMAL(10,2), ts TIMESTAMP, ok BOOLEAN, f DOUBLE, d DATE")
	s.Columns = append(s.Columns, Column{Name: "j", Type: types.JSONB})
	content := strings.Join([]string{
		`{"id":"a","n":1,"small":2,"amount":12.50,"ts":"2024-01-01T10:00:00Z","ok":true,"f":1.5,"d":"2024-02-29","j":{"b":[1,2],"a":null}}`,
		``,
		`{"id":"b\n\u00e9\"","n":-9223372036854775808,"amount":"3.1","ts":"2024-01-01 10:00:00","ok":false,"f":-0.0,"j":"str"}`,
		`{"ts":1704103200, "amount": 1e2, "n": null, "f": 1e308}`,
		"\t{ \"id\" : \"spaces\" } \r",
	}, "\n")
	d := decodeString(t, "json", content, Options{}, s)
	checkRows(t, d.rows,
		`a | 1 | 2 | 12.50 | 2024-01-01 10:00:00+00 | t | 1.5 | 2024-02-29 | {"a": null, "b": [1, 2]} | NULL`,
		"b\n\u00e9\" | -9223372036854775808 | NULL | 3.10 | 2024-01-01 10:00:00+00 | f | -0 | NULL | \"str\" | NULL",
		`NULL | NULL | NULL | 100.00 | 2024-01-01 10:00:00+00 | NULL | 1e+308 | NULL | NULL | NULL`,
		`spaces | NULL | NULL | NULL | NULL | NULL | NULL | NULL | NULL | NULL`,
	)
	if d.stats.Rows != 4 || d.stats.Rescued != 0 || len(d.stats.NewColumns) != 0 {
		t.Fatalf("stats %+v", d.stats)
	}
}

func TestDecodeJSONRescue(t *testing.T) {
	s := schemaOf(t, "id STRING, n INT, ts TIMESTAMP, ok BOOLEAN")
	content := strings.Join([]string{
		`{"id":"a","n":"12x","extra":{"k":1},"ts":"yesterday-ish","ok":1}`,
		`{"id":"b","n":4000000000,"ID":"case","more":[1,"x"],"extra":2}`,
		`not json at all`,
		`{"id":"c"} trailing`,
		`[1,2,3]`,
		`{"id":"d","id":"again","n":1.5}`,
	}, "\n")
	o := Options{Format: "json", InferColumnTypes: true}
	info := writeFile(t, "r.json", []byte(content))
	d := decodeAll(t, info, o, s, 0)
	checkRows(t, dataOnly(d.rows),
		`a | NULL | NULL | NULL`,
		`b | NULL | NULL | NULL`,
		`NULL | NULL | NULL | NULL`,
		`NULL | NULL | NULL | NULL`,
		`NULL | NULL | NULL | NULL`,
		`d | NULL | NULL | NULL`,
	)
	want := []string{
		`{"n": "12x", "ok": 1, "ts": "yesterday-ish", "_line": 1, "extra": {"k": 1}, "_file_path": "P"}`,
		`{"n": 4000000000, "ID": "case", "more": [1, "x"], "_line": 2, "extra": 2, "_file_path": "P"}`,
		`{"_line": 3, "_file_path": "P", "_corrupt_record": "not json at all"}`,
		`{"_line": 4, "_file_path": "P", "_corrupt_record": "{\"id\":\"c\"} trailing"}`,
		`{"_line": 5, "_file_path": "P", "_corrupt_record": "[1,2,3]"}`,
		`{"n": 1.5, "id": "again", "_line": 6, "_file_path": "P"}`,
	}
	if got := rescuedOf(d, info.Path); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rescued:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d.stats.Rescued != 6 {
		t.Fatalf("rescued %d rows", d.stats.Rescued)
	}
	got := ""
	for _, c := range d.stats.NewColumns {
		got += c.Name + " " + c.Type.String() + ";"
	}
	if got != "extra text;more jsonb;" {
		t.Fatalf("new columns %s", got)
	}
}

func dataOnly(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r[:len(r)-1]
	}
	return out
}

// Timestamps as Spark's JSON reader takes them: ISO text with 'T' or a
// space, with or without a zone (UTC then), and numbers of seconds.
func TestDecodeJSONTimestamps(t *testing.T) {
	s := schemaOf(t, "ts TIMESTAMP, ntz TIMESTAMP_NTZ")
	content := strings.Join([]string{
		`{"ts":"2024-01-01T10:00:00Z","ntz":"2024-01-01T10:00:00"}`,
		`{"ts":"2024-01-01 10:00:00","ntz":"2024-01-01 10:00:00.123456"}`,
		`{"ts":1704103200,"ntz":1704103200}`,
		`{"ts":1704103200.5,"ntz":"2024-01-01T12:00:00+02:00"}`,
		`{"ts":"2024-01-01T11:00:00+01:00","ntz":"2024-01-01"}`,
	}, "\n")
	d := decodeString(t, "json", content, Options{}, s)
	checkRows(t, dataOnly(d.rows),
		`2024-01-01 10:00:00+00 | 2024-01-01 10:00:00`,
		`2024-01-01 10:00:00+00 | 2024-01-01 10:00:00.123456`,
		`2024-01-01 10:00:00+00 | 2024-01-01 10:00:00`,
		`2024-01-01 10:00:00.5+00 | 2024-01-01 12:00:00`,
		`2024-01-01 10:00:00+00 | 2024-01-01 00:00:00`,
	)
}

func TestDecodeJSONArrays(t *testing.T) {
	s := schemaOf(t, "a ARRAY<INT>, s ARRAY<STRING>")
	content := `{"a":[1,2,null],"s":["x","y \"q\" \\ z"]}` + "\n" + `{"a":[1,[2]],"s":"notarray"}` + "\n"
	d := decodeString(t, "json", content, Options{}, s)
	checkRows(t, dataOnly(d.rows),
		`{1,2,NULL} | {x,"y \"q\" \\ z"}`,
		`NULL | NULL`,
	)
}

func TestDecodeHostileJSON(t *testing.T) {
	s := schemaOf(t, "id STRING, n BIGINT")
	long := `{"id":"` + strings.Repeat("x", 10<<20) + `","n":1}`
	deep := `{"id":"deep","n":` + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + `}`
	deepObj := `{"id":"deepobj","z":` + strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000) + `}`
	unclosed := `{"id":"open","n":` + strings.Repeat("[", 100000)
	content := strings.Join([]string{
		"{\"id\":\"bad\xff\xfe utf8\",\"n\":1}",
		`{"id":"nul\u0000","n":2}`,
		"{\"id\":\"raw\x00nul\",\"n\":3}",
		"{\"bad\xffkey\":1,\"n\":4}",
		`{"id":"\ud800 lone","n":5}`,
		long,
		deep,
		deepObj,
		unclosed,
		"\x00\x00\x00",
	}, "\n")
	info := writeFile(t, "hostile.json", []byte(content))
	d := decodeAll(t, info, Options{Format: "json"}, s, 3)
	if len(d.rows) != 10 {
		t.Fatalf("%d rows", len(d.rows))
	}
	want := []string{"NULL", "NULL", "NULL", "NULL", "\uFFFD lone", "", "deep", "deepobj", "NULL", "NULL"}
	for i, r := range d.rows {
		id := r[0]
		if i == 5 {
			if len(id) != 10<<20 {
				t.Fatalf("long line: id of %d bytes", len(id))
			}
			continue
		}
		if id != want[i] {
			t.Errorf("row %d: id %q, want %q", i, id, want[i])
		}
	}
	for _, i := range []int{0, 1, 2, 3, 6, 7, 8, 9} {
		if d.rows[i][2] == "NULL" {
			t.Errorf("row %d not rescued", i)
		}
	}
	if !strings.Contains(d.rows[0][2], `"id": "bad\ufffd\ufffd utf8"`) && !strings.Contains(d.rows[0][2], "\"id\": \"bad\uFFFD\uFFFD utf8\"") {
		t.Errorf("row 0 rescued %s", d.rows[0][2])
	}
}

func TestDecodeEmptyFiles(t *testing.T) {
	for _, f := range []string{"json", "csv", "text"} {
		d := decodeString(t, f, "", Options{Header: true}, schemaOf(t, "a STRING"))
		if len(d.recs) != 0 || d.stats.Rows != 0 {
			t.Fatalf("%s: %d batches, %+v", f, len(d.recs), d.stats)
		}
	}
	d := decodeString(t, "csv", "a,b\r\n", Options{Header: true}, schemaOf(t, "a STRING, b STRING"))
	if d.stats.Rows != 0 {
		t.Fatalf("header only: %+v", d.stats)
	}
}

func TestDecodeBatchesAndMetadata(t *testing.T) {
	s := schemaOf(t, "n INT")
	info := writeFile(t, "m.json", []byte("{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n{\"n\":4}\n{\"n\":5}\n"))
	info.Modified = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	d := decodeAll(t, info, Options{Format: "json"}, s, 2)
	if len(d.recs) != 3 || d.recs[0].NumRows() != 2 || d.recs[2].NumRows() != 1 {
		t.Fatalf("batches: %d", len(d.recs))
	}
	last := d.recs[2]
	m := last.Column(int(last.NumCols()) - 1)
	txt := string(types.AppendText(nil, MetadataType, m, 0, nil))
	want := `(` + info.Path + `,m.json,` + itoa(info.Size) + `,"2024-03-01 12:00:00+00")`
	if txt != want {
		t.Fatalf("_metadata %s, want %s", txt, want)
	}
	st := m.(*array.Struct)
	if st.Field(0).(*array.String).Value(0) != info.Path || MetadataType.FieldIndex("file_path") != 0 {
		t.Fatal("file_path")
	}
	for _, r := range d.recs {
		r.Release()
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestDecodeMissingFile(t *testing.T) {
	_, _, err := DecodeFile(FileInfo{Path: filepath.Join(t.TempDir(), "gone.json")}, Options{Format: "json"}, schemaOf(t, "a INT"), 0)
	if e, ok := err.(*sqlerr.Error); !ok || e.Code != codeUndefinedFile {
		t.Fatalf("err %v", err)
	}
	_, _, err = DecodeFile(FileInfo{Path: "/"}, Options{Format: "json"}, schemaOf(t, "a INT"), 0)
	if e, ok := err.(*sqlerr.Error); !ok || e.Code != sqlerr.IOError {
		t.Fatalf("err %v", err)
	}
	_, _, err = DecodeFile(FileInfo{Path: "/"}, Options{Format: "xml"}, schemaOf(t, "a INT"), 0)
	if e, ok := err.(*sqlerr.Error); !ok || e.Code != sqlerr.FeatureNotSupported {
		t.Fatalf("err %v", err)
	}
}

func TestDecodeText(t *testing.T) {
	s := Schema{Columns: []Column{{Name: "value", Type: types.Text}}, Rescued: "_rescued_data"}
	d := decodeString(t, "text", "one\r\n\ntwo \xff\nthree", Options{}, s)
	checkRows(t, dataOnly(d.rows), "one", "", "NULL", "three")
	if !strings.Contains(d.rows[2][1], "two \uFFFD") {
		t.Fatalf("rescued %s", d.rows[2][1])
	}
}

func TestDecodeWithoutRescuedColumn(t *testing.T) {
	s := schemaOf(t, "n INT")
	s.Rescued = ""
	info := writeFile(t, "n.json", []byte("{\"n\":1,\"x\":2}\n{\"n\":\"bad\"}\nnot json\n"))
	recs, st, err := DecodeFile(info, Options{Format: "json"}, s, 0)
	if err != nil || len(recs) != 1 || recs[0].NumCols() != 2 || st.Rows != 3 || st.Rescued != 0 {
		t.Fatalf("%v %d %+v", err, len(recs), st)
	}
	if len(st.NewColumns) != 1 || st.NewColumns[0].Name != "x" {
		t.Fatalf("%+v", st.NewColumns)
	}
	recs[0].Release()
}

// Files decode concurrently, each on its own goroutine, to the same
// result as one by one.
func TestDecodeConcurrently(t *testing.T) {
	s := schemaOf(t, "id STRING, n BIGINT, ts TIMESTAMP")
	var infos []FileInfo
	for f := 0; f < 8; f++ {
		var b strings.Builder
		for i := 0; i < 2000; i++ {
			b.WriteString(`{"id":"f` + itoa(int64(f)) + `","n":` + itoa(int64(i)) + `,"ts":"2024-01-01T00:00:00Z","x":` + itoa(int64(i%3)) + "}\n")
		}
		infos = append(infos, writeFile(t, "c"+itoa(int64(f))+".json", []byte(b.String())))
	}
	want := make([]decodedFile, len(infos))
	for i, info := range infos {
		want[i] = decodeAll(t, info, Options{Format: "json"}, s, 500)
	}
	errs := make(chan string, len(infos))
	for i, info := range infos {
		go func() {
			recs, st, err := DecodeFile(info, Options{Format: "json"}, s, 500)
			switch {
			case err != nil:
				errs <- err.Error()
			case st.Rows != want[i].stats.Rows || st.Rescued != want[i].stats.Rescued || len(recs) != len(want[i].recs):
				errs <- "different result for " + info.Name
			default:
				for k := range recs {
					if !array.RecordEqual(recs[k], want[i].recs[k]) {
						errs <- "different batch for " + info.Name
						return
					}
				}
				errs <- ""
			}
		}()
	}
	for range infos {
		if e := <-errs; e != "" {
			t.Fatal(e)
		}
	}
}

func TestDecodeJSONStructs(t *testing.T) {
	s := schemaOf(t, "s STRUCT<a: INT, b: STRING, ts: TIMESTAMP, inner: STRUCT<x: DOUBLE, tags: ARRAY<STRING>>, j: STRING>")
	content := strings.Join([]string{
		`{"s":{"a":1,"b":"x \"q\" (y), z","ts":1704103200,"inner":{"x":1.5,"tags":["p","q r"]},"j":{"k":[1]}}}`,
		`{"s":{"B":"case","a":null,"extra":1}}`,
		`{"s":{"a":"notint"}}`,
		`{"s":[1,2]}`,
		`{"s":{}}`,
	}, "\n")
	d := decodeString(t, "json", content, Options{}, s)
	checkRows(t, dataOnly(d.rows),
		`(1,"x ""q"" (y), z","2024-01-01 10:00:00+00","(1.5,""{p,""""q r""""}"")","{""k"":[1]}")`,
		`(,case,,,)`,
		`NULL`,
		`NULL`,
		`(,,,,)`,
	)
	if d.stats.Rescued != 2 {
		t.Fatalf("%+v", d.stats)
	}
}

func TestDecodeCSVStructCells(t *testing.T) {
	s := schemaOf(t, "s STRUCT<a: INT, b: STRING>, n INT")
	d := decodeString(t, "csv", "\"(1,x)\",1\n\"(x,y)\",2\n\"(3,)\",3\n", Options{}, s)
	checkRows(t, dataOnly(d.rows), `(1,x) | 1`, `NULL | 2`, `(3,) | 3`)
}

func TestDecodeJSONNestedIntoText(t *testing.T) {
	s := schemaOf(t, "id STRING")
	d := decodeString(t, "json", "{\"id\":{\"a\":[1,\"x\"]}}\n{\"id\":{\"a\":\"\xff\"}}\n{\"id\":12.50}\n{\"id\":true}\n", Options{}, s)
	checkRows(t, dataOnly(d.rows), `{"a":[1,"x"]}`, `NULL`, `12.50`, `true`)
	if !strings.Contains(d.rows[1][1], `"id"`) {
		t.Fatalf("not rescued: %s", d.rows[1][1])
	}
}
