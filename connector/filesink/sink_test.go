package filesink

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/sinktest"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
)

// testRowJSON is a stand-in for the engine's row_to_json encoder.
func testRowJSON(cols []Column) func(buf []byte, arrs []arrow.Array, i int) []byte {
	return func(buf []byte, arrs []arrow.Array, i int) []byte {
		buf = append(buf, '{')
		for k, a := range arrs {
			if k > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendQuote(buf, cols[k].Name)
			buf = append(buf, ':')
			switch {
			case a.IsNull(i):
				buf = append(buf, "null"...)
			case cols[k].Type.OID == types.OidText:
				buf = strconv.AppendQuote(buf, a.(*array.String).Value(i))
			default:
				buf = types.AppendText(buf, cols[k].Type, a, i, nil)
			}
		}
		return append(buf, '}')
	}
}

func openStore(t *testing.T) *state.Store {
	st, err := state.Open(t.TempDir(), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestConformance(t *testing.T) {
	for _, format := range []string{FormatParquet, FormatJSON, FormatCSV} {
		t.Run(format, func(t *testing.T) {
			sinktest.Run(t, func(t *testing.T) sinktest.Fixture {
				dir := t.TempDir()
				cols := []Column{{Name: "n", Type: types.Int8}}
				o := Options{Dir: dir, Format: format, Columns: cols, RowJSON: testRowJSON(cols)}
				open := func() connector.Sink {
					s, err := Open(o)
					if err != nil {
						t.Fatal(err)
					}
					return s
				}
				return sinktest.Fixture{Sink: open(), Store: openStore(t), Reopen: open}
			})
		})
	}
}

// The rows of a test table: n bigint, region text, note text.
var testCols = []Column{{Name: "n", Type: types.Int8}, {Name: "region", Type: types.Text}, {Name: "note", Type: types.Text}}

func testBatch(from, to int64) arrow.RecordBatch {
	fields := make([]arrow.Field, len(testCols))
	for i, c := range testCols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: true}
	}
	nb := array.NewInt64Builder(memory.DefaultAllocator)
	rb := array.NewStringBuilder(memory.DefaultAllocator)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	for n := from; n < to; n++ {
		nb.Append(n)
		rb.Append([]string{"eu", "us", "a/b=c"}[n%3])
		switch n % 4 {
		case 0:
			sb.AppendNull()
		case 1:
			sb.Append("")
		case 2:
			sb.Append("comma, \"quote\"\nline")
		default:
			sb.Append(strings.Repeat("x", int(n%50)))
		}
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), []arrow.Array{nb.NewArray(), rb.NewArray(), sb.NewArray()}, to-from)
}

// readBack reads the rows of the files the manifests make up, as text
// ("n|region|note", NULL as \N), sorted; and checks that no other data
// file is in the folder (what a glob of part-* reads is the same set).
func readBack(t *testing.T, o Options) []string {
	t.Helper()
	ms, err := ReadManifests(o.Dir)
	if err != nil {
		t.Fatal(err)
	}
	live := LiveFiles(ms)
	want := map[string]bool{}
	var rows []string
	for _, f := range live {
		want[f.Path] = true
		var region string
		if f.Partition != "" {
			region = strings.TrimPrefix(f.Partition, "region=")
			region = strings.NewReplacer("%2F", "/", "%3D", "=").Replace(region)
		}
		got := readFile(t, o, filepath.Join(o.Dir, filepath.FromSlash(f.Path)), region)
		if int64(len(got)) != f.Rows {
			t.Errorf("%s: %d rows, the manifest says %d", f.Path, len(got), f.Rows)
		}
		rows = append(rows, got...)
	}
	filepath.WalkDir(o.Dir, func(p string, d os.DirEntry, err error) error {
		if d.IsDir() {
			if d.Name() == ManifestDir {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(o.Dir, p)
		if !want[filepath.ToSlash(rel)] {
			t.Errorf("file %s is in the folder but not in the manifests", rel)
		}
		return nil
	})
	sort.Strings(rows)
	return rows
}

func readFile(t *testing.T, o Options, path, region string) []string {
	t.Helper()
	partitioned := len(o.PartitionBy) > 0
	row := func(n, reg, note string) string {
		if partitioned {
			reg = region
		}
		return n + "|" + reg + "|" + note
	}
	var out []string
	switch o.Format {
	case FormatParquet:
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		tbl, err := pqarrow.ReadTable(context.Background(), f, nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		defer tbl.Release()
		tr := array.NewTableReader(tbl, 1024)
		defer tr.Release()
		for tr.Next() {
			b := tr.RecordBatch()
			val := func(name string, i int) string {
				idx := b.Schema().FieldIndices(name)
				if len(idx) == 0 {
					return ""
				}
				c := b.Column(idx[0])
				if c.IsNull(i) {
					return `\N`
				}
				return c.ValueStr(i)
			}
			for i := 0; i < int(b.NumRows()); i++ {
				out = append(out, row(val("n", i), val("region", i), val("note", i)))
			}
		}
	case FormatCSV:
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		// encoding/csv cannot tell "" from an empty field: read the raw
		// fields too.
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs[1:] {
			if partitioned {
				note := r[1]
				out = append(out, row(r[0], "", csvNull(note)))
			} else {
				out = append(out, row(r[0], r[1], csvNull(r[2])))
			}
		}
	default:
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			out = append(out, sc.Text())
		}
	}
	return out
}

// csvNull: the test's notes are never an empty string in CSV terms except
// n%4 == 1, written quoted; encoding/csv reads both as "". The comparison
// below maps the expected rows the same way.
func csvNull(s string) string {
	if s == "" {
		return `\N`
	}
	return s
}

func expectRows(o Options, from, to int64) []string {
	var out []string
	b := testBatch(from, to)
	defer b.Release()
	for i := 0; i < int(b.NumRows()); i++ {
		n := fmt.Sprint(b.Column(0).(*array.Int64).Value(i))
		reg := b.Column(1).(*array.String).Value(i)
		note := `\N`
		if !b.Column(2).IsNull(i) {
			note = b.Column(2).(*array.String).Value(i)
		}
		switch o.Format {
		case FormatCSV:
			note = csvNull(note)
		case FormatJSON:
			cols := testCols
			var arrs []arrow.Array
			var cs []Column
			for k, c := range cols {
				if len(o.PartitionBy) > 0 && c.Name == "region" {
					continue
				}
				arrs = append(arrs, b.Column(k))
				cs = append(cs, c)
			}
			out = append(out, string(testRowJSON(cs)(nil, arrs, i)))
			continue
		}
		out = append(out, n+"|"+reg+"|"+note)
	}
	sort.Strings(out)
	return out
}

func sameRows(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// Rolling, partitions and compaction, in every format: 40 epochs of 25
// rows with a small target size, so that files roll within an epoch and
// the small files of later epochs are merged.
func TestEpochsRollPartitionCompact(t *testing.T) {
	for _, format := range []string{FormatParquet, FormatJSON, FormatCSV} {
		for _, partitioned := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s partitioned=%v", format, partitioned), func(t *testing.T) {
				o := Options{Dir: t.TempDir(), Format: format, Columns: testCols, TargetFileSize: 8192, CompactFiles: 4, ReplacedRetention: -1}
				if partitioned {
					o.PartitionBy = []string{"region"}
				}
				var data []Column
				for _, c := range testCols {
					if !partitioned || c.Name != "region" {
						data = append(data, c)
					}
				}
				o.RowJSON = testRowJSON(data)
				st := openStore(t)
				s, err := Open(o)
				if err != nil {
					t.Fatal(err)
				}
				const epochs, per = 40, 25
				for e := int64(1); e <= epochs; e++ {
					b := testBatch((e-1)*per, e*per)
					if err := connector.WriteEpoch(st, s, e, []arrow.RecordBatch{b}); err != nil {
						t.Fatalf("epoch %d: %v", e, err)
					}
					b.Release()
				}
				// A big epoch rolls into several files.
				big := testBatch(epochs*per, epochs*per+2000)
				if err := connector.WriteEpoch(st, s, epochs+1, []arrow.RecordBatch{big}); err != nil {
					t.Fatal(err)
				}
				big.Release()
				want := expectRows(o, 0, epochs*per+2000)
				sameRows(t, readBack(t, o), want)
				ms, _ := ReadManifests(o.Dir)
				// Read in LiveFiles' order, each partition's rows come in the
				// order they were written (compaction keeps epoch order).
				if format != FormatJSON {
					lastN := map[string]int64{}
					for _, f := range LiveFiles(ms) {
						for _, r := range readFile(t, o, filepath.Join(o.Dir, filepath.FromSlash(f.Path)), "") {
							n, _ := strconv.ParseInt(strings.SplitN(r, "|", 2)[0], 10, 64)
							if prev, ok := lastN[f.Partition]; ok && n <= prev {
								t.Fatalf("%s: row %d after row %d", f.Path, n, prev)
							}
							lastN[f.Partition] = n
						}
					}
				}
				var compacted, removed int
				for _, m := range ms {
					removed += len(m.Removed)
					for _, f := range m.Added {
						if f.Compacted {
							compacted++
						}
					}
				}
				if compacted == 0 || removed == 0 {
					t.Errorf("no compaction: %d compacted files, %d removed", compacted, removed)
				}
				if m := ms[len(ms)-1]; len(m.Added) < 3 {
					t.Errorf("the big epoch wrote %d files, want it to roll", len(m.Added))
				}
			})
		}
	}
}

// errCrash is what the test's crash hook panics with.
type errCrash string

// TestCrashPoints stops the sink at each crash point of an epoch (by a
// panic out of the hook, leaving the folder as a kill would), opens it
// again as a restart does, re-writes what LastCommitted says is missing,
// and checks that the folder holds every row exactly once.
func TestCrashPoints(t *testing.T) {
	points := []string{"filesink-after-write", "filesink-after-manifest", "filesink-after-rename"}
	for _, format := range []string{FormatParquet, FormatCSV} {
		for _, point := range points {
			for _, partitioned := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s %s partitioned=%v", format, point, partitioned), func(t *testing.T) {
					o := Options{Dir: t.TempDir(), Format: format, Columns: testCols, TargetFileSize: 8192, CompactFiles: 3, ReplacedRetention: -1}
					if partitioned {
						o.PartitionBy = []string{"region"}
					}
					st := openStore(t)
					const per = 20
					write := func(s *Sink, e int64) (crashed bool) {
						defer func() {
							if r := recover(); r != nil {
								if _, ok := r.(errCrash); !ok {
									panic(r)
								}
								crashed = true
							}
						}()
						b := testBatch((e-1)*per, e*per)
						defer b.Release()
						if err := connector.WriteEpoch(st, s, e, []arrow.RecordBatch{b}); err != nil {
							t.Fatalf("epoch %d: %v", e, err)
						}
						return false
					}
					// Crash at the point in every third epoch, once: the
					// compaction epochs crash too.
					crashed := map[int64]bool{}
					var cur int64
					o2 := o
					o2.Crash = func(p string) {
						if p == point && cur%3 == 0 && !crashed[cur] {
							crashed[cur] = true
							panic(errCrash(p))
						}
					}
					for restarts := 0; ; restarts++ {
						if restarts > 10 {
							t.Fatal("no progress")
						}
						s, err := Open(o2)
						if err != nil {
							t.Fatal(err)
						}
						last, _ := s.LastCommitted()
						if last == 12 {
							break
						}
						for cur = last + 1; cur <= 12; cur++ {
							if write(s, cur) {
								break
							}
						}
					}
					s, err := Open(o)
					if err != nil {
						t.Fatal(err)
					}
					if last, _ := s.LastCommitted(); last != 12 {
						t.Fatalf("LastCommitted = %d", last)
					}
					sameRows(t, readBack(t, o), expectRows(o, 0, 12*per))
				})
			}
		}
	}
}

func TestEscapePartition(t *testing.T) {
	if got := string(appendEscapedPartition(nil, []byte("a/b=c %d\n#x"))); got != "a%2Fb%3Dc %25d%0A%23x" {
		t.Errorf("escaped: %s", got)
	}
}
