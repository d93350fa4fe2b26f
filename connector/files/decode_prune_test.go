package files

import (
	"fmt"
	"strings"
	"testing"
)

// Pruned decoding (Options.ReadColumns): the same batches and rows, the
// columns read as a whole decode gives them, the others all NULL; with
// the rescued column read, exactly the whole decode.
func TestDecodePruned(t *testing.T) {
	var js, cs strings.Builder
	cs.WriteString("id,kind,amount,n\n")
	for i := 0; i < 50; i++ {
		amount := fmt.Sprintf("%d.5", i)
		if i%4 == 3 {
			amount = "bad"
		}
		if i%9 == 8 {
			js.WriteString("{not json\n")
			cs.WriteString("1,2\n")
			continue
		}
		fmt.Fprintf(&js, `{"id": %d, "kind": "k%d", "amount": "%s", "n": %d, "new": %d}`+"\n", i, i%3, amount, i%5, i)
		fmt.Fprintf(&cs, "%d,k%d,%s,%d\n", i, i%3, amount, i%5)
	}
	s := schemaOf(t, "id BIGINT, kind STRING, amount DOUBLE, n INT")
	cases := []struct {
		info FileInfo
		o    Options
		s    Schema
	}{
		{writeFile(t, "a.json", []byte(js.String())), Options{Format: "json", InferColumnTypes: true}, s},
		{writeFile(t, "a.csv", []byte(cs.String())), Options{Format: "csv", Header: true, InferColumnTypes: true}, s},
		{writeFile(t, "p.parquet", parquetBytes(t, 40)), Options{Format: "parquet"}, schemaOf(t, "id STRING, n BIGINT, ts TIMESTAMP, amount DECIMAL(10,2), big INT")},
	}
	for _, c := range cases {
		whole := decodeAll(t, c.info, c.o, c.s, 7)
		for _, reads := range [][]string{{"amount"}, {"kind", "n"}, {}, {"id", "_rescued_data"}, {"ts", "big", "n"}} {
			o := c.o
			o.ReadColumns = reads
			got := decodeAll(t, c.info, o, c.s, 7)
			if len(got.recs) != len(whole.recs) || len(got.rows) != len(whole.rows) {
				t.Fatalf("%s %v: %d batches %d rows, whole %d batches %d rows", c.info.Name, reads, len(got.recs), len(got.rows), len(whole.recs), len(whole.rows))
			}
			for i := range got.recs {
				if got.recs[i].NumRows() != whole.recs[i].NumRows() {
					t.Fatalf("%s %v: batch %d has %d rows, whole %d", c.info.Name, reads, i, got.recs[i].NumRows(), whole.recs[i].NumRows())
				}
			}
			read := map[string]bool{}
			for _, r := range reads {
				read[r] = true
			}
			all := read["_rescued_data"]
			names := append(columnNamesOf(c.s), "_rescued_data")
			for r := range got.rows {
				for k, name := range names {
					want := whole.rows[r][k]
					if !all && !read[name] {
						want = "NULL"
					}
					if got.rows[r][k] != want {
						t.Fatalf("%s %v: row %d column %s is %s, want %s", c.info.Name, reads, r, name, got.rows[r][k], want)
					}
				}
			}
			if fmt.Sprint(got.stats.NewColumns) != fmt.Sprint(whole.stats.NewColumns) {
				t.Fatalf("%s %v: new columns %v, whole %v", c.info.Name, reads, got.stats.NewColumns, whole.stats.NewColumns)
			}
		}
	}
}

func columnNamesOf(s Schema) []string {
	var out []string
	for _, c := range s.Columns {
		out = append(out, c.Name)
	}
	return out
}
