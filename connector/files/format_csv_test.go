package files

import (
	"strings"
	"testing"
)

func TestDecodeCSVHeader(t *testing.T) {
	s := schemaOf(t, "id STRING, n INT, amount DECIMAL(10,2)")
	content := "n,id,amount,extra\r\n" +
		"1,a,1.50,x\r\n" +
		"\"2\",\"b, with \"\"quotes\"\"\",,\r\n" +
		"x3,c,abc,\r\n" +
		"4,d\r\n" +
		"\n" +
		"5,\"open quote,1.00,\r\n" +
		"6,\"\",NA,y\n"
	info := writeFile(t, "h.csv", []byte(content))
	d := decodeAll(t, info, Options{Format: "csv", Header: true, NullValue: "NA", InferColumnTypes: true}, s, 0)
	checkRows(t, dataOnly(d.rows),
		`a | 1 | 1.50`,
		`b, with "quotes" | 2 | NULL`,
		`c | NULL | NULL`,
		`NULL | NULL | NULL`,
		`NULL | NULL | NULL`,
		` | 6 | NULL`,
	)
	want := []string{
		`{"_line": 2, "extra": "x", "_file_path": "P"}`,
		`NULL`,
		`{"n": "x3", "_line": 4, "amount": "abc", "_file_path": "P"}`,
		`{"_line": 5, "_file_path": "P", "_corrupt_record": "4,d"}`,
		`{"_line": 7, "_file_path": "P", "_corrupt_record": "5,\"open quote,1.00,"}`,
		`{"_line": 8, "extra": "y", "_file_path": "P"}`,
	}
	if got := rescuedOf(d, info.Path); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rescued:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(d.stats.NewColumns) != 1 || d.stats.NewColumns[0].Name != "extra" || d.stats.NewColumns[0].Type.String() != "text" {
		t.Fatalf("new columns %+v", d.stats.NewColumns)
	}
}

func TestDecodeCSVOptions(t *testing.T) {
	s := schemaOf(t, "_c0 STRING, _c1 STRING, _c2 BIGINT")
	// Delimiter ';', escape '\\', no header, a quote never closed.
	content := "a;'x\\'y';1\n" +
		"b;'multi\nline';2\n" +
		"c;'tail'after;3\n" +
		"d;plain\"quote;4\n" +
		"e;'never closed;5"
	info := writeFile(t, "o.csv", []byte(content))
	o := Options{Format: "csv", Delimiter: ';', Quote: '\'', Escape: '\\'}
	d := decodeAll(t, info, o, s, 0)
	checkRows(t, dataOnly(d.rows),
		`a | x'y | 1`,
		`NULL | NULL | NULL`,
		`NULL | NULL | NULL`,
		`c | tailafter | 3`,
		`d | plain"quote | 4`,
		`NULL | NULL | NULL`,
	)
	if r := rescuedOf(d, info.Path); r[1] != `{"_line": 2, "_file_path": "P", "_corrupt_record": "b;'multi"}` ||
		r[5] != `{"_line": 6, "_file_path": "P", "_corrupt_record": "e;'never closed;5"}` {
		t.Fatalf("rescued %q", r)
	}
	o.MultiLine = true
	d = decodeAll(t, info, o, s, 0)
	checkRows(t, dataOnly(d.rows),
		`a | x'y | 1`,
		"b | multi\nline | 2",
		`c | tailafter | 3`,
		`d | plain"quote | 4`,
		`NULL | NULL | NULL`,
	)
	if r := rescuedOf(d, info.Path); r[4] != `{"_line": 6, "_file_path": "P", "_corrupt_record": "e;'never closed;5"}` {
		t.Fatalf("rescued %q", r)
	}
}

func TestDecodeHostileCSV(t *testing.T) {
	s := schemaOf(t, "a STRING, b STRING")
	long := strings.Repeat("y", 10<<20)
	content := "x," + long + "\n\xff\xfe,\x00nul\n\"unterminated," + strings.Repeat("z", 1000)
	d := decodeString(t, "csv", content, Options{}, s)
	if len(d.rows) != 3 || len(d.rows[0][1]) != 10<<20 {
		t.Fatalf("%d rows", len(d.rows))
	}
	if d.rows[1][0] != "NULL" || d.rows[1][1] != "NULL" || !strings.Contains(d.rows[1][2], `"a": "\ufffd\ufffd"`) && !strings.Contains(d.rows[1][2], "\"a\": \"\uFFFD\uFFFD\"") {
		t.Fatalf("row 2: %q", d.rows[1])
	}
	if d.rows[2][0] != "NULL" || !strings.Contains(d.rows[2][2], "_corrupt_record") {
		t.Fatalf("row 3: %q", d.rows[2][:2])
	}
}
