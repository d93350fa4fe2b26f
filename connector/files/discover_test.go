package files

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/weir-sql/weir/state"
)

// Files written while the source runs.

func TestDiscoverRenamedIntoPlace(t *testing.T) {
	dir := t.TempDir()
	st := newSrcStore(t, state.SyncGroup)
	// A settle interval of an hour: only the rename can make the file
	// complete within the test's deadline.
	s := openSrc(t, st, srcOptions(dir), time.Hour)
	srcRenameRows(t, filepath.Join(dir, "a.txt"), 0, 5)
	got, _ := s.readUntil(0, 5, 5*time.Second)
	srcSameInts(t, "renamed file", got, intsFrom(0, 5))
	if f, _ := s.Backlog(); f != 0 {
		t.Fatalf("backlog %d files after reading all", f)
	}
}

func TestDiscoverGrowingFileOnlyOnceStable(t *testing.T) {
	dir := t.TempDir()
	st := newSrcStore(t, state.SyncGroup)
	s := openSrc(t, st, srcOptions(dir), 2*time.Second)
	p := filepath.Join(dir, "growing.txt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(srcRowsText(0, 3)); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "discovery to see the growing file", 5*time.Second, func() bool { n, _ := s.Backlog(); return n == 1 })
	// Seen, written a moment ago: not complete, not read.
	if rd := s.read(0, 0); len(rd.Batches) != 0 {
		t.Fatalf("a file being written was read: %v", batchValues(rd.Batches))
	}
	if _, err := f.Write(srcRowsText(3, 4)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// Once unchanged for the settle interval it is read whole.
	got, _ := s.readUntil(0, 7, 10*time.Second)
	srcSameInts(t, "the whole file", got, intsFrom(0, 7))
}

func TestDiscoverNestedFolderCreatedLater(t *testing.T) {
	dir := t.TempDir()
	st := newSrcStore(t, state.SyncGroup)
	// A file renamed into a folder created a moment before may land
	// before the folder is watched: it is complete by the settle rule
	// then, not by its rename.
	s := openSrc(t, st, srcOptions(dir), 200*time.Millisecond)
	srcRenameRows(t, filepath.Join(dir, "top.txt"), 0, 2)
	got, off := s.readUntil(0, 2, 5*time.Second)
	srcSameInts(t, "top", got, intsFrom(0, 2))
	nested := filepath.Join(dir, "2026", "12", "01")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	srcRenameRows(t, filepath.Join(nested, "deep.txt"), 10, 3)
	got, _ = s.readUntil(off, 3, 5*time.Second)
	srcSameInts(t, "nested", got, intsFrom(10, 3))
}

func TestDiscoverGlobAndFilters(t *testing.T) {
	dir := t.TempDir()
	srcWriteRows(t, filepath.Join(dir, "x", "in", "a.json"), 0, 1, longAgo)
	srcWriteRows(t, filepath.Join(dir, "x", "in", "deep", "b.json"), 1, 1, longAgo.Add(time.Second))
	srcWriteRows(t, filepath.Join(dir, "y", "in", "c.csv"), 2, 1, longAgo.Add(2*time.Second))
	srcWriteRows(t, filepath.Join(dir, "y", "out", "d.json"), 3, 1, longAgo.Add(3*time.Second))
	srcWriteRows(t, filepath.Join(dir, "x", "in", "_SUCCESS"), 4, 1, longAgo)
	srcWriteRows(t, filepath.Join(dir, "x", "in", ".hidden.json"), 5, 1, longAgo)
	srcWriteRows(t, filepath.Join(dir, "x", "_tmp", "e.json"), 6, 1, longAgo)
	st := newSrcStore(t, state.SyncGroup)
	o := srcOptions(filepath.Join(dir, "*", "in"))
	o.PathGlobFilter = "*.{json,csv}"
	s := openSrc(t, st, o, time.Hour)
	s.Rescan()
	rd := s.read(0, 0)
	srcSameInts(t, "glob", batchValues(rd.Batches), []int64{0, 1, 2})
	// A file landing later under the glob is found; one outside it not.
	srcRenameRows(t, filepath.Join(dir, "y", "out", "late.json"), 100, 1)
	srcRenameRows(t, filepath.Join(dir, "x", "in", "late.json"), 7, 1)
	got, _ := s.readUntil(rd.Next, 1, 5*time.Second)
	srcSameInts(t, "late file", got, []int64{7})
	if n, _ := s.Backlog(); n != 0 {
		t.Fatalf("backlog %d: a file outside the glob was discovered", n)
	}
}

func TestDiscoverModifiedAfter(t *testing.T) {
	dir := t.TempDir()
	srcWriteRows(t, filepath.Join(dir, "longAgo"), 0, 1, longAgo)
	srcWriteRows(t, filepath.Join(dir, "new"), 1, 1, longAgo.Add(2*time.Hour))
	st := newSrcStore(t, state.SyncGroup)
	o := srcOptions(dir)
	o.ModifiedAfter = longAgo.Add(time.Hour)
	s := openSrc(t, st, o, 0)
	s.Rescan()
	srcSameInts(t, "modifiedAfter", batchValues(s.read(0, 0).Batches), []int64{1})
}

func TestDiscoverChangedAfterRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a")
	srcWriteRows(t, p, 0, 2, longAgo)
	st := newSrcStore(t, state.SyncGroup)
	s := openSrc(t, st, srcOptions(dir), 0)
	s.Rescan()
	srcSameInts(t, "first version", batchValues(s.read(0, 0).Batches), intsFrom(0, 2))
	// Replaced by a different file of the same name: reported, not read.
	srcWriteRows(t, p+".new", 50, 5, longAgo.Add(time.Minute))
	if err := os.Rename(p+".new", p); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the change notice", 5*time.Second, func() bool {
		s.Rescan()
		return srcHasNotice(s.Notices(), NoticeChanged, p)
	})
	if rd := s.read(1, 0); len(rd.Batches) != 0 {
		t.Fatalf("a changed file was read again: %v", batchValues(rd.Batches))
	}
	// After a restart, re-reading its offsets cannot give the rows the
	// log stands for: XX001 naming the file.
	s.Close()
	s = openSrc(t, st, srcOptions(dir), 0)
	_, err := s.Read(t.Context(), 0, 0)
	if err == nil || !srcHasSub(err.Error(), p) {
		t.Fatalf("re-reading a changed file: %v", err)
	}
	if code := srcCode(err); code != "XX001" {
		t.Fatalf("re-reading a changed file: %s, want XX001", code)
	}
}

// A path naming one file: read once complete, and a rewrite of it is a
// change, not new input.
func TestDiscoverOneFilePath(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "only.txt")
	srcWriteRows(t, filepath.Join(dir, "other.txt"), 100, 1, longAgo)
	st := newSrcStore(t, state.SyncGroup)
	srcRenameRows(t, p, 0, 3)
	s := openSrc(t, st, srcOptions(p), 100*time.Millisecond)
	got, off := s.readUntil(0, 3, 5*time.Second)
	srcSameInts(t, "the one file", got, intsFrom(0, 3))
	if rd := s.read(off, 0); len(rd.Batches) != 0 {
		t.Fatalf("read more than the one file: %v", batchValues(rd.Batches))
	}
}

// A file moved in from a folder discovery does not watch is not known to
// be whole at once: the settle rule reads it.
func TestDiscoverMovedInFromOutside(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	st := newSrcStore(t, state.SyncGroup)
	s := openSrc(t, st, srcOptions(dir), 200*time.Millisecond)
	srcWriteRows(t, filepath.Join(outside, "x"), 0, 4, time.Time{})
	if err := os.Rename(filepath.Join(outside, "x"), filepath.Join(dir, "x")); err != nil {
		t.Fatal(err)
	}
	got, _ := s.readUntil(0, 4, 5*time.Second)
	srcSameInts(t, "moved in", got, intsFrom(0, 4))
}
