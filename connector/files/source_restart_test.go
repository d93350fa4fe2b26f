package files

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

func srcHasSub(s, sub string) bool { return strings.Contains(s, sub) }
func srcCode(err error) string     { return sqlerr.Code(err) }

// TestRestartAtEveryStep reopens the source on the same store before
// every read, as a kill -9 and restart would: the engine's "checkpoint"
// (committed) is the offset its last committed epoch recorded, and an
// epoch commits only sometimes — a kill between the log entry's write and
// the epoch's commit leaves files in the log past the committed offset.
// Re-reading from the committed offset must give the same batches as the
// first read from it did, and across all restarts every file's rows are
// read exactly once, none skipped.
func TestRestartAtEveryStep(t *testing.T) {
	dir := t.TempDir()
	st := newSrcStore(t, state.SyncGroup)
	rng := rand.New(rand.NewSource(7))
	var want []int64
	files := 0
	addFile := func() {
		n := 1 + rng.Intn(7)
		srcWriteRows(t, filepath.Join(dir, fmt.Sprintf("f%03d", files)), files*100, n, longAgo.Add(time.Duration(files)*time.Second))
		want = append(want, intsFrom(files*100, n)...)
		files++
	}
	for i := 0; i < 4; i++ {
		addFile()
	}
	// firstRead[o] is what the first read from offset o returned (its
	// first batch), to compare re-reads against.
	firstRead := map[int64]arrow.RecordBatch{}
	var committed int64
	var got []int64
	o := srcOptions(dir)
	o.MaxFilesPerTrigger = 2
	for step := 0; step < 60; step++ {
		if step%5 == 0 && files < 25 {
			addFile()
		}
		s := openSrc(t, st, o, 0)
		s.Rescan()
		max := 1 + rng.Intn(4)
		rd := s.read(committed, max)
		if rd.From != committed {
			t.Fatalf("step %d: From %d, want %d", step, rd.From, committed)
		}
		for i, b := range rd.Batches {
			off := committed + int64(i)
			if prev, ok := firstRead[off]; ok {
				if !array.RecordEqual(prev, b) {
					t.Fatalf("step %d: offset %d re-read differently: %v, first %v", step, off, b, prev)
				}
			} else {
				firstRead[off] = b
			}
		}
		// The log holds every file whose batches were returned.
		logged, err := ProcessedFiles(st, []byte("o/files/test/"))
		if err != nil {
			t.Fatal(err)
		}
		var end int64
		for _, f := range logged {
			end = f.FirstOffset + f.Batches
		}
		if end < rd.Next {
			t.Fatalf("step %d: Next %d beyond the durable log's end %d", step, rd.Next, end)
		}
		if rng.Intn(3) > 0 { // the epoch commits
			got = append(got, batchValues(rd.Batches)...)
			committed = rd.Next
		}
		s.Close() // or killed: the store holds what Read committed either way
	}
	// Drain what is left.
	s := openSrc(t, st, o, 0)
	s.Rescan()
	for {
		rd := s.read(committed, 0)
		if len(rd.Batches) == 0 {
			break
		}
		got = append(got, batchValues(rd.Batches)...)
		committed = rd.Next
	}
	srcSameInts(t, "every row exactly once", got, want)
}

// TestRestartReReadsLoggedFilesFromDisk: a restart re-decodes the files
// of the log from disk; one that vanished since is XX001 naming it.
func TestRestartVanishedLoggedFile(t *testing.T) {
	dir := t.TempDir()
	srcWriteRows(t, filepath.Join(dir, "a"), 0, 4, longAgo)
	srcWriteRows(t, filepath.Join(dir, "b"), 10, 4, longAgo.Add(time.Second))
	st := newSrcStore(t, state.SyncGroup)
	s := openSrc(t, st, srcOptions(dir), 0)
	s.Rescan()
	all := s.read(0, 0)
	s.Close()
	s = openSrc(t, st, srcOptions(dir), 0)
	again := s.read(0, 0)
	if len(again.Batches) != len(all.Batches) {
		t.Fatalf("re-read %d batches, first %d", len(again.Batches), len(all.Batches))
	}
	for i := range all.Batches {
		if !array.RecordEqual(all.Batches[i], again.Batches[i]) {
			t.Fatalf("batch %d differs after a restart", i)
		}
	}
	s.Close()
	srcRemove(t, filepath.Join(dir, "a"))
	s = openSrc(t, st, srcOptions(dir), 0)
	_, err := s.Read(t.Context(), 1, 0)
	if srcCode(err) != sqlerr.DataCorrupted || !srcHasSub(err.Error(), filepath.Join(dir, "a")) {
		t.Fatalf("re-reading a vanished file: %v", err)
	}
	// Offsets of the files still there read fine.
	rd := s.read(2, 0)
	srcSameInts(t, "the other file", batchValues(rd.Batches), intsFrom(10, 4))
}
