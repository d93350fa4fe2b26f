package files

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/weir-sql/weir/state"
)

// TestEvolutionStopsAndResumes: with StopOnNewColumns, the file bringing a
// new column is not read under the old schema: the files before it are,
// the merged schema is recorded and pending, nothing more is admitted; a
// source reopened on the pending version reads that file and the later
// ones, and re-reading the old offsets decodes them under their version.
// A reopen on the old version (a crash before the engine moved to the new
// one) finds it pending again, with the file still unread.
func TestEvolutionStopsAndResumes(t *testing.T) {
	dir := t.TempDir()
	srcWriteRows(t, filepath.Join(dir, "a"), 0, 2, longAgo)
	srcWriteRows(t, filepath.Join(dir, "b"), 10, 2, longAgo.Add(time.Second))
	srcAppendLine(t, filepath.Join(dir, "b"), "new:extra", longAgo.Add(time.Second))
	srcWriteRows(t, filepath.Join(dir, "c"), 20, 2, longAgo.Add(2*time.Second))
	st := newSrcStore(t, state.SyncGroup)
	key := []byte("o/files/test/")
	open := func(sc Schema) srcUnderTest {
		t.Helper()
		cfg := Tuning{Settle: 50 * time.Millisecond, Relist: 200 * time.Millisecond, BatchRows: 3, StopOnNewColumns: true}.config()
		cfg.decode = srcTestDecode
		s, err := openWith(st, key, srcOptions(dir), sc, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		s.Rescan()
		return srcUnderTest{s, t}
	}
	s := open(srcTestSchema)
	rd := s.read(0, 0)
	srcSameInts(t, "before the file with the new column", batchValues(rd.Batches), []int64{0, 1})
	ns, ok := s.SchemaChanged()
	if !ok || ns.Version != 2 || len(ns.Columns) != 2 || ns.Columns[1].Name != "extra" {
		t.Fatalf("pending %+v %v", ns, ok)
	}
	if !srcHasNotice(s.Notices(), NoticeSchema, filepath.Join(dir, "b")) {
		t.Fatal("no schema notice naming b")
	}
	if more := s.read(rd.Next, 0); len(more.Batches) != 0 {
		t.Fatalf("admitted %v while holding", batchValues(more.Batches))
	}
	s.Close()
	// A crash before the engine took the new version: still pending, b unread.
	s = open(srcTestSchema)
	if p, ok := s.SchemaChanged(); !ok || p.Version != 2 {
		t.Fatalf("reopened on version 1: pending %+v %v", p, ok)
	}
	if more := s.read(rd.Next, 0); len(more.Batches) != 0 {
		t.Fatalf("admitted %v while holding after a reopen", batchValues(more.Batches))
	}
	s.Close()
	if fs, _ := ProcessedFiles(st, key); len(fs) != 1 {
		t.Fatalf("log before the reopen on version 2: %+v", fs)
	}
	s = open(ns)
	if _, ok := s.SchemaChanged(); ok {
		t.Fatal("pending after opening on version 2")
	}
	all := s.read(0, 0)
	srcSameInts(t, "everything, once", batchValues(all.Batches), []int64{0, 1, 10, 11, 20, 21})
	fs, _ := ProcessedFiles(st, key)
	if len(fs) != 3 || fs[0].SchemaVersion != 1 || fs[1].SchemaVersion != 2 || fs[2].SchemaVersion != 2 {
		t.Fatalf("log %+v", fs)
	}
}

// TestEvolutionCaseVariant: a field differing from a column only in case
// is no new column (it goes to the rescued column, as names match
// exactly): nothing is recorded, admission does not stop, and so no
// restart loop can start.
func TestEvolutionCaseVariant(t *testing.T) {
	dir := t.TempDir()
	srcWriteRows(t, filepath.Join(dir, "a"), 0, 2, longAgo)
	srcAppendLine(t, filepath.Join(dir, "a"), "new:N", longAgo)
	srcWriteRows(t, filepath.Join(dir, "b"), 10, 2, longAgo.Add(time.Second))
	st := newSrcStore(t, state.SyncGroup)
	cfg := Tuning{Settle: 50 * time.Millisecond, Relist: 200 * time.Millisecond, BatchRows: 3, StopOnNewColumns: true}.config()
	cfg.decode = srcTestDecode
	src, err := openWith(st, []byte("o/files/test/"), srcOptions(dir), srcTestSchema, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	s := srcUnderTest{src, t}
	s.Rescan()
	rd := s.read(0, 0)
	srcSameInts(t, "both files", batchValues(rd.Batches), []int64{0, 1, 10, 11})
	if p, ok := s.SchemaChanged(); ok {
		t.Fatalf("a case variant recorded %+v", p)
	}
}
