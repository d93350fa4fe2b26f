package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/sourcetest"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
)

// The source's tests use their own tiny decoder, so that they test the
// source half alone: a file is lines of integers (one row each, column n
// of sourcetest.Schema); a line "new:NAME" is a field the schema lacks
// (reported in NewColumns unless the schema has it); a line "damaged"
// makes the file damaged (XX001).
func srcTestDecode(f FileInfo, o Options, s Schema, batchRows int) ([]arrow.RecordBatch, DecodeStats, error) {
	data, err := os.ReadFile(f.Path)
	if err != nil {
		return nil, DecodeStats{}, accessError("could not open file", f.Path, err)
	}
	var st DecodeStats
	var vals []int64
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case line == "damaged":
			return nil, DecodeStats{}, sqlerr.New(sqlerr.DataCorrupted, "file %s is damaged at line %d", f.Path, i+1)
		case strings.HasPrefix(line, "new:"):
			name := line[4:]
			known := false
			for _, c := range s.Columns {
				known = known || c.Name == name
			}
			for _, c := range st.NewColumns {
				known = known || c.Name == name
			}
			if !known {
				st.NewColumns = append(st.NewColumns, Column{Name: name, Type: types.Text})
			}
		default:
			n, err := strconv.ParseInt(line, 10, 64)
			if err != nil {
				return nil, DecodeStats{}, sqlerr.New(sqlerr.DataCorrupted, "file %s: line %d is not a number", f.Path, i+1)
			}
			vals = append(vals, n)
		}
	}
	var out []arrow.RecordBatch
	for len(vals) > 0 {
		k := min(len(vals), batchRows)
		b := array.NewInt64Builder(memory.DefaultAllocator)
		b.AppendValues(vals[:k], nil)
		out = append(out, array.NewRecordBatch(sourcetest.Schema, []arrow.Array{b.NewArray()}, int64(k)))
		b.Release()
		vals = vals[k:]
	}
	st.Rows = int64(0)
	for _, b := range out {
		st.Rows += b.NumRows()
	}
	return out, st, nil
}

var srcTestSchema = Schema{Columns: []Column{{Name: "n", Type: types.Int8}}, Version: 1}

func newSrcStore(t *testing.T, sync state.SyncPolicy) *state.Store {
	t.Helper()
	st, err := state.Open(t.TempDir(), state.Options{Sync: sync})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func srcOptions(path string) Options {
	return Options{Path: path, Format: "text", Recursive: true, MaxFilesPerTrigger: defaultMaxFilesPerTrigger, EvolutionMode: EvolveAddNewColumns, RescuedColumn: defaultRescuedColumn}
}

type srcUnderTest struct {
	*Source
	t *testing.T
}

// open opens a source with the test decoder; settle and relist as given
// (0: short ones for tests).
func openSrc(t *testing.T, st *state.Store, o Options, settle time.Duration) srcUnderTest {
	t.Helper()
	if settle == 0 {
		settle = 50 * time.Millisecond
	}
	cfg := Tuning{Settle: settle, Relist: 200 * time.Millisecond, BatchRows: 3}.config()
	cfg.decode = srcTestDecode
	s, err := openWith(st, []byte("o/files/test/"), o, srcTestSchema, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return srcUnderTest{s, t}
}

// longAgo is a modification time long enough ago that a file is complete at
// its first observation.
var longAgo = time.Now().Add(-24 * time.Hour).Truncate(time.Second)

// srcWriteRows writes a file of rows first..first+n-1 in place, dated
// `at` (zero: now).
func srcWriteRows(t *testing.T, path string, first, n int, at time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, srcRowsText(first, n), 0o644); err != nil {
		t.Fatal(err)
	}
	if !at.IsZero() {
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
}

// srcRenameRows writes a file as writers should: under a hidden name, then
// renamed into place.
func srcRenameRows(t *testing.T, path string, first, n int) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, srcRowsText(first, n), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func srcRowsText(first, n int) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d\n", first+i)
	}
	return []byte(b.String())
}

// waitUntil polls cond until it holds, failing the test at the deadline.
func waitUntil(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond) // polling interval of the wait, not synchronisation
	}
}

func (s srcUnderTest) read(from int64, max int) connector.Read {
	s.t.Helper()
	rd, err := s.Read(context.Background(), from, max)
	if err != nil {
		s.t.Fatalf("Read(%d, %d): %v", from, max, err)
	}
	return rd
}

// values are the n column's values of batches, in order.
func batchValues(bs []arrow.RecordBatch) []int64 {
	var out []int64
	for _, b := range bs {
		out = append(out, b.Column(0).(*array.Int64).Int64Values()...)
	}
	return out
}

// readUntil reads from `from` (all batches each time) until the rows
// read hold want rows, returning them and the offset after.
func (s srcUnderTest) readUntil(from int64, want int, d time.Duration) ([]int64, int64) {
	s.t.Helper()
	var got []int64
	off := from
	waitUntil(s.t, fmt.Sprintf("%d rows", want), d, func() bool {
		rd := s.read(off, 0)
		got = append(got, batchValues(rd.Batches)...)
		off = rd.Next
		return len(got) >= want
	})
	return got, off
}

func intsFrom(first, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(first + i)
	}
	return out
}

func srcSameInts(t *testing.T, what string, got, want []int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows %v, want %d %v", what, len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: row %d is %d, want %d (got %v)", what, i, got[i], want[i], got)
		}
	}
}

// srcAppendLine adds a line to a file, keeping it dated at.
func srcAppendLine(t *testing.T, path, line string, at time.Time) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}
