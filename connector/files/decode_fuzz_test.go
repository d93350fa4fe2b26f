package files

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/types"
)

// checkRescued checks every rescued value of a decode is a JSON object
// naming the file, and returns whether each row was rescued whole.
func checkRescued(t *testing.T, data []byte, o Options, s Schema) []bool {
	t.Helper()
	info := FileInfo{Path: "/fuzz/f", Name: "f"}
	recs, st, err := decodeBytes(data, info, o, s, 7)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	var corrupt []bool
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
		resc := r.Column(len(s.Columns)).(*array.String)
		for i := 0; i < resc.Len(); i++ {
			if resc.IsNull(i) {
				corrupt = append(corrupt, false)
				continue
			}
			var m map[string]any
			dec := json.NewDecoder(strings.NewReader(resc.Value(i)))
			dec.UseNumber()
			if err := dec.Decode(&m); err != nil {
				t.Fatalf("rescued %q: %v", resc.Value(i), err)
			}
			if m["_file_path"] != "/fuzz/f" {
				t.Fatalf("rescued %q has no _file_path", resc.Value(i))
			}
			if _, err := types.NormalizeJSONB(resc.Value(i)); err != nil {
				t.Fatalf("rescued %q is not jsonb: %v", resc.Value(i), err)
			}
			_, c := m["_corrupt_record"]
			corrupt = append(corrupt, c)
		}
		r.Release()
	}
	if rows != st.Rows || int64(bytes.Count(data, []byte{'\n'})+1) < rows {
		t.Fatalf("%d rows (stats %d) from %d lines", rows, st.Rows, bytes.Count(data, []byte{'\n'})+1)
	}
	return corrupt
}

var fuzzJSONSeeds = []string{
	`{"id":"a","n":1,"ts":"2024-01-01T00:00:00Z","amount":1.25,"ok":true,"j":{"x":[1,2]}}`,
	`{"id":"a\u00e9\n","n":"x","other":[{"a":null}]}` + "\n" + `not json`,
	"{\"id\":\"\xff\",\"n\":1e400}\r\n\n[1]\n{}",
	`{"n":12345678901234567890,"ts":-1,"amount":"1e5","j":"\ud800"}`,
	`{"a":{"b":{"c":[[[[]]]]}}} {"x":1}`,
	`{"id":"dup","id":"dup2","":0,"\"q":1}`,
	"\x00{\"id\":1}",
	`{"ts":1704103200.123456,"ok":"t","amount":-0.00}`,
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range fuzzJSONSeeds {
		f.Add([]byte(s))
	}
	s := Schema{Rescued: "_rescued_data"}
	cols, _ := parseColumns("id STRING, n BIGINT, ts TIMESTAMP, amount DECIMAL(10,2), ok BOOLEAN, arr ARRAY<INT>")
	s.Columns = append(cols, Column{Name: "j", Type: types.JSONB})
	f.Fuzz(func(t *testing.T, data []byte) {
		corrupt := checkRescued(t, data, Options{Format: "json"}, s)
		// Each line's fate against encoding/json's idea of valid JSON.
		data = bytes.TrimPrefix(data, utf8BOM)
		k := 0
		for _, l := range bytes.Split(data, []byte{'\n'}) {
			l = bytes.TrimSuffix(l, []byte{'\r'})
			if skipWS(l, 0) == len(l) {
				continue
			}
			if k >= len(corrupt) {
				t.Fatalf("line %q has no row", l)
			}
			isObj := json.Valid(l) && l[skipWS(l, 0)] == '{'
			if !isObj && !corrupt[k] {
				t.Fatalf("invalid line %q not rescued whole", l)
			}
			if isObj && corrupt[k] && !bytes.Contains(l, []byte(`\u`)) {
				t.Fatalf("valid line %q rescued whole", l)
			}
			k++
		}
		if k != len(corrupt) {
			t.Fatalf("%d rows from %d lines", len(corrupt), k)
		}
	})
}

func FuzzDecodeCSV(f *testing.F) {
	seeds := []string{
		"id,n\n1,2\n",
		"a,\"b\"\"c\",\"d\ne\"\n,,\n\"open",
		"x;y\r\n'1';'2''3'\r\n",
		"\xef\xbb\xbfh1,h2\n\xff,\x00\n1,2,3\n",
		"\"a\"b,c\n\n\n",
	}
	for i, s := range seeds {
		f.Add([]byte(s), i%2 == 0, byte(","[0]), i%3 == 0)
	}
	f.Add([]byte("a;b\n1;2"), true, byte(';'), false)
	s := Schema{Rescued: "_rescued_data"}
	s.Columns, _ = parseColumns("_c0 STRING, _c1 BIGINT, h1 STRING, h2 DOUBLE")
	f.Fuzz(func(t *testing.T, data []byte, header bool, delim byte, multiLine bool) {
		if delim == '\n' || delim == '\r' || delim == '"' {
			delim = ','
		}
		checkRescued(t, data, Options{Format: "csv", Header: header, Delimiter: delim, MultiLine: multiLine}, s)
		// Inference never fails on what decoding takes.
		var fs fieldSet
		inferCSVRecords(data, withCSVDefaults(Options{Header: header, Delimiter: delim, MultiLine: multiLine, InferColumnTypes: true}), &fs)
		for _, n := range fs.names {
			if strings.ContainsRune(n, '\n') && !multiLine {
				t.Fatalf("a name %q spans lines", n)
			}
		}
	})
}

// The word-at-a-time string scan agrees with a byte-by-byte one.
func TestJSONStringScan(t *testing.T) {
	ref := func(s []byte) (int, bool, bool, bool) {
		esc, ascii := false, true
		for i := 1; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '"':
				return i + 1, esc, ascii && !esc, true
			case c == '\\':
				esc = true
				if i+1 >= len(s) {
					return 0, false, false, false
				}
				switch s[i+1] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
					i++
				case 'u':
					if i+6 > len(s) || !isHex(s[i+2]) || !isHex(s[i+3]) || !isHex(s[i+4]) || !isHex(s[i+5]) {
						return 0, false, false, false
					}
					i += 5
				default:
					return 0, false, false, false
				}
			case c < 0x20:
				return 0, false, false, false
			case c >= 0x80:
				ascii = false
			}
		}
		return 0, false, false, false
	}
	alphabet := []byte{'a', 'b', '"', '\\', 'u', '0', 'n', 0x1f, 0x00, 0x80, 0xc3, 0xa9, 0x7f, ' '}
	rng := uint64(1)
	var sc jsonScanner
	for n := 0; n < 200000; n++ {
		rng = rng*6364136223846793005 + 1442695040888963407
		l := int(rng>>58) % 40
		s := []byte{'"'}
		for k := 0; k < l; k++ {
			rng = rng*6364136223846793005 + 1442695040888963407
			s = append(s, alphabet[int(rng>>40)%len(alphabet)])
		}
		e1, esc1, a1, ok1 := sc.str(s, 0)
		e2, esc2, a2, ok2 := ref(s)
		if ok1 != ok2 || ok1 && (e1 != e2 || esc1 != esc2 || a1 != a2) {
			t.Fatalf("%q: scan (%d %v %v %v), reference (%d %v %v %v)", s, e1, esc1, a1, ok1, e2, esc2, a2, ok2)
		}
	}
}
