package files

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// onePassInfer is inference as one pass over the sample sees it: every
// value observed in the fieldSet in file order, the budget spent file by
// file (the reference observeSample must agree with).
func onePassInfer(t *testing.T, files []FileInfo, o Options, sampleBytes int64) []Column {
	t.Helper()
	var fs fieldSet
	left := sampleBytes
	for _, f := range files {
		if left <= 0 {
			break
		}
		data, done, err := readSample(f.Path, left)
		if err != nil {
			t.Fatal(err)
		}
		defer done()
		left -= int64(len(data))
		data = bytes.TrimPrefix(data, utf8BOM)
		switch o.Format {
		case "json":
			var sc jsonScanner
			for _, l := range bytes.Split(data, []byte("\n")) {
				if !sc.parseLine(l) {
					continue
				}
				sc.scratch = sc.scratch[:0]
				for k := range sc.fields {
					f := &sc.fields[k]
					fs.observe(sc.content(f.key, f.keyEsc), jsonInferKind(f, !o.InferColumnTypes))
				}
			}
		case "csv":
			r := newCSVReader(o)
			var names []string
			for pos := 0; pos < len(data); {
				end, next, _, ok := r.record(data, pos)
				raw := data[pos:end]
				pos = next
				if len(raw) == 0 || !ok {
					continue
				}
				if names == nil {
					for _, c := range r.cells {
						names = append(names, string(r.text(data, c)))
						fs.observe([]byte(names[len(names)-1]), inferNull)
					}
					continue
				}
				if len(r.cells) != len(names) {
					continue
				}
				for k, c := range r.cells {
					v := r.text(data, c)
					kind := inferNull
					if c.quoted || len(v) > 0 && string(v) != o.NullValue {
						if kind = csvInferKind(v, !o.InferColumnTypes); kind == inferNull {
							kind = inferText
						}
					}
					fs.observe([]byte(names[k]), kind)
				}
			}
		}
	}
	cols, err := applyHints(fs.columns(), o.SchemaHints)
	if err != nil {
		t.Fatal(err)
	}
	return cols
}

// Inference file by file on every core gives the schema one pass gives:
// spellings of a name in another case spread over files, kinds widening
// across files, hinted columns, and budgets that cut the sample in any
// file.
func TestInferSampleMatchesOnePass(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewSource(5))
	names := []string{"a", "A", "b", "B", "ts", "Ts", "n", "x y", `q"`}
	values := []string{`1`, `2.5`, `"s"`, `true`, `null`, `{"k":1}`, `[1]`, `"2024-01-01"`, `99999999999999999999`}
	csvValues := []string{"1", "2.5", "s", "true", "", "2024-01-01", "2024-01-01 10:00:00", "99999999999999999999", `"q"`}
	var jsonFiles, csvFiles []FileInfo
	for k := 0; k < 12; k++ {
		var jb, cb bytes.Buffer
		hdr := r.Perm(len(names))[:1+r.Intn(4)]
		for i, h := range hdr {
			if i > 0 {
				cb.WriteByte(',')
			}
			fmt.Fprintf(&cb, "%q", names[h])
		}
		cb.WriteByte('\n')
		for line := 0; line < 1+r.Intn(30); line++ {
			jb.WriteByte('{')
			for i, f := range r.Perm(len(names))[:r.Intn(4)] {
				if i > 0 {
					jb.WriteByte(',')
				}
				fmt.Fprintf(&jb, "%q:%s", names[f], values[r.Intn(len(values))])
			}
			jb.WriteString("}\n")
			if r.Intn(10) == 0 {
				jb.WriteString("not json\n")
			}
			for i := range hdr {
				if i > 0 {
					cb.WriteByte(',')
				}
				cb.WriteString(csvValues[r.Intn(len(csvValues))])
			}
			cb.WriteByte('\n')
		}
		for _, f := range []struct {
			ext  string
			data []byte
			list *[]FileInfo
		}{{"json", jb.Bytes(), &jsonFiles}, {"csv", cb.Bytes(), &csvFiles}} {
			p := filepath.Join(dir, fmt.Sprintf("f%02d.%s", k, f.ext))
			if err := os.WriteFile(p, f.data, 0o644); err != nil {
				t.Fatal(err)
			}
			*f.list = append(*f.list, FileInfo{Path: p, Name: filepath.Base(p), Size: int64(len(f.data)), Modified: time.Now()})
		}
	}
	var total int64
	for _, f := range jsonFiles {
		total += f.Size
	}
	for _, o := range []Options{
		{Format: "json", InferColumnTypes: true},
		{Format: "json", InferColumnTypes: false},
		{Format: "json", InferColumnTypes: true, SchemaHints: "a DOUBLE, TS timestamp, extra INT"},
		{Format: "csv", Header: true, InferColumnTypes: true},
		{Format: "csv", Header: true, InferColumnTypes: true, SchemaHints: "b STRING"},
	} {
		files := jsonFiles
		if o.Format == "csv" {
			files = csvFiles
		}
		for _, budget := range []int64{1 << 40, total / 2, total / 7, 1, files[0].Size} {
			want := onePassInfer(t, files, o, budget)
			got, err := Infer(files, o, len(files), budget)
			if err != nil {
				if len(want) == 0 {
					continue
				}
				t.Fatalf("%+v budget %d: %v", o, budget, err)
			}
			if !reflect.DeepEqual(got.Columns, want) {
				t.Errorf("%+v budget %d:\n got %v\nwant %v", o, budget, got.Columns, want)
			}
		}
	}
}
