package copyformat

import (
	"errors"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/types"
)

// decodeAll decodes input fed in pieces of size step (0: all at once).
func decodeAll(t *testing.T, f Format, cols []types.T, input []byte, step int) ([]arrow.RecordBatch, error) {
	t.Helper()
	d := NewDecoder(f, cols, types.FormatSettings{Location: time.UTC, ExtraFloatDigits: 1})
	defer d.Release()
	rest := input
	if step == 0 {
		step = len(input) + 1
	}
	var out []arrow.RecordBatch
	for {
		ok, err := d.ReadRow()
		if errors.Is(err, ErrMoreInput) {
			if len(rest) == 0 {
				d.Finish()
				continue
			}
			n := min(step, len(rest))
			d.Feed(rest[:n])
			rest = rest[n:]
			continue
		}
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if b := d.Flush(); b != nil {
			out = append(out, b)
		}
	}
	return out, nil
}

func textOf(bs []arrow.RecordBatch) []string {
	var out []string
	for _, b := range bs {
		for i := 0; i < int(b.NumRows()); i++ {
			row := ""
			for c := 0; c < int(b.NumCols()); c++ {
				if b.Column(c).IsNull(i) {
					row += "|NULL"
				} else {
					row += "|" + b.Column(c).ValueStr(i)
				}
			}
			out = append(out, row)
		}
	}
	return out
}

func TestDecodeInAnyPieces(t *testing.T) {
	cols := []types.T{types.Int4, types.Text}
	names := []string{"a", "b"}
	for _, tc := range []struct {
		name  string
		f     Format
		input string
		want  []string
	}{
		{"text", Format{Kind: 't', Delimiter: '\t', Null: []byte(`\N`), Table: "t", Names: names},
			"1\tx\\ty\n2\t\\N\r\n3\tlast", []string{"|1|x\ty", "|2|NULL", "|3|last"}},
		{"text marker", Format{Kind: 't', Delimiter: '\t', Null: []byte(`\N`), Table: "t", Names: names},
			"1\ta\n\\.\n2\tb\n", []string{"|1|a"}},
		{"csv", Format{Kind: 'c', Delimiter: ',', Quote: '"', Escape: '"', Null: []byte{}, Header: true, Table: "t", Names: names},
			"a,b\n1,\"x\ny\"\n2,\n3,\"\"\"q\"\n", []string{"|1|x\ny", "|2|NULL", "|3|\"q"}},
		{"binary", Format{Kind: 'b', Table: "t", Names: names},
			string(BinarySignature) + "\x00\x00\x00\x00\x00\x00\x00\x00" +
				"\x00\x02\x00\x00\x00\x04\x00\x00\x00\x07\x00\x00\x00\x02hi" +
				"\x00\x02\xff\xff\xff\xff\x00\x00\x00\x00" +
				"\xff\xff", []string{"|7|hi", "|NULL|"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, step := range []int{0, 1, 2, 5} {
				got, err := decodeAll(t, tc.f, cols, []byte(tc.input), step)
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				g := textOf(got)
				if len(g) != len(tc.want) {
					t.Fatalf("step %d: rows %q, want %q", step, g, tc.want)
				}
				for i := range g {
					if g[i] != tc.want[i] {
						t.Errorf("step %d: row %d = %q, want %q", step, i, g[i], tc.want[i])
					}
				}
			}
		})
	}
}

func TestDecodeErrorsHaveContext(t *testing.T) {
	f := Format{Kind: 't', Delimiter: '\t', Null: []byte(`\N`), Table: "t", Names: []string{"a"}}
	_, err := decodeAll(t, f, []types.T{types.Int4}, []byte("1\nx\n"), 1)
	var de *DataError
	if !errors.As(err, &de) || de.Err.Code != "22P02" || de.Context != `COPY t, line 2, column a: "x"` {
		t.Fatalf("error %v (%+v)", err, de)
	}
	_, err = decodeAll(t, Format{Kind: 'c', Delimiter: ',', Quote: '"', Escape: '"', Table: "t", Names: []string{"a"}},
		[]types.T{types.Text}, []byte("\"open\n"), 0)
	if !errors.As(err, &de) || de.Err.Message != "unterminated CSV quoted field" {
		t.Fatalf("unterminated quote: %v", err)
	}
}
