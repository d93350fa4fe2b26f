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
	st := newStore(t, state.SyncGroup)
	// A settle interval of an hour: only the rename can make the file
	// complete within the test's deadline.
	s := open(t, st, testOptions(dir), time.Hour)
	renameRows(t, filepath.Join(dir, "a.txt"), 0, 5)
	got, _ := s.readUntil(0, 5, 5*time.Second)
	sameInts(t, "renamed file", got, seq(0, 5))
	if f, _ := s.Backlog(); f != 0 {
		t.Fatalf("backlog %d files after reading all", f)
	}
}

func TestDiscoverGrowingFileOnlyOnceStable(t *testing.T) {
	dir := t.TempDir()
	st := newStore(t, state.SyncGroup)
	s := open(t, st, testOptions(dir), 2*time.Second)
	p := filepath.Join(dir, "growing.txt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(rowsText(0, 3)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "discovery to see the growing file", 5*time.Second, func() bool { n, _ := s.Backlog(); return n == 1 })
	// Seen, written a moment ago: not complete, not read.
	if rd := s.read(0, 0); len(rd.Batches) != 0 {
		t.Fatalf("a file being written was read: %v", values(rd.Batches))
	}
	if _, err := f.Write(rowsText(3, 4)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// Once unchanged for the settle interval it is read whole.
	got, _ := s.readUntil(0, 7, 10*time.Second)
	sameInts(t, "the whole file", got, seq(0, 7))
}

func TestDiscoverNestedFolderCreatedLater(t *testing.T) {
	dir := t.TempDir()
	st := newStore(t, state.SyncGroup)
	// A file renamed into a folder created a moment before may land
	// before the folder is watched: it is complete by the settle rule
	// then, not by its rename.
	s := open(t, st, testOptions(dir), 200*time.Millisecond)
	renameRows(t, filepath.Join(dir, "top.txt"), 0, 2)
	got, off := s.readUntil(0, 2, 5*time.Second)
	sameInts(t, "top", got, seq(0, 2))
	nested := filepath.Join(dir, "2026", "12", "01")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	renameRows(t, filepath.Join(nested, "deep.txt"), 10, 3)
	got, _ = s.readUntil(off, 3, 5*time.Second)
	sameInts(t, "nested", got, seq(10, 3))
}

func TestDiscoverGlobAndFilters(t *testing.T) {
	dir := t.TempDir()
	writeRows(t, filepath.Join(dir, "x", "in", "a.json"), 0, 1, old)
	writeRows(t, filepath.Join(dir, "x", "in", "deep", "b.json"), 1, 1, old.Add(time.Second))
	writeRows(t, filepath.Join(dir, "y", "in", "c.csv"), 2, 1, old.Add(2*time.Second))
	writeRows(t, filepath.Join(dir, "y", "out", "d.json"), 3, 1, old.Add(3*time.Second))
	writeRows(t, filepath.Join(dir, "x", "in", "_SUCCESS"), 4, 1, old)
	writeRows(t, filepath.Join(dir, "x", "in", ".hidden.json"), 5, 1, old)
	writeRows(t, filepath.Join(dir, "x", "_tmp", "e.json"), 6, 1, old)
	st := newStore(t, state.SyncGroup)
	o := testOptions(filepath.Join(dir, "*", "in"))
	o.PathGlobFilter = "*.{json,csv}"
	s := open(t, st, o, time.Hour)
	s.Rescan()
	rd := s.read(0, 0)
	sameInts(t, "glob", values(rd.Batches), []int64{0, 1, 2})
	// A file landing later under the glob is found; one outside it not.
	renameRows(t, filepath.Join(dir, "y", "out", "late.json"), 100, 1)
	renameRows(t, filepath.Join(dir, "x", "in", "late.json"), 7, 1)
	got, _ := s.readUntil(rd.Next, 1, 5*time.Second)
	sameInts(t, "late file", got, []int64{7})
	if n, _ := s.Backlog(); n != 0 {
		t.Fatalf("backlog %d: a file outside the glob was discovered", n)
	}
}

func TestDiscoverModifiedAfter(t *testing.T) {
	dir := t.TempDir()
	writeRows(t, filepath.Join(dir, "old"), 0, 1, old)
	writeRows(t, filepath.Join(dir, "new"), 1, 1, old.Add(2*time.Hour))
	st := newStore(t, state.SyncGroup)
	o := testOptions(dir)
	o.ModifiedAfter = old.Add(time.Hour)
	s := open(t, st, o, 0)
	s.Rescan()
	sameInts(t, "modifiedAfter", values(s.read(0, 0).Batches), []int64{1})
}

func TestDiscoverChangedAfterRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a")
	writeRows(t, p, 0, 2, old)
	st := newStore(t, state.SyncGroup)
	s := open(t, st, testOptions(dir), 0)
	s.Rescan()
	sameInts(t, "first version", values(s.read(0, 0).Batches), seq(0, 2))
	// Replaced by a different file of the same name: reported, not read.
	writeRows(t, p+".new", 50, 5, old.Add(time.Minute))
	if err := os.Rename(p+".new", p); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the change notice", 5*time.Second, func() bool {
		s.Rescan()
		return hasNotice(s.Notices(), NoticeChanged, p)
	})
	if rd := s.read(1, 0); len(rd.Batches) != 0 {
		t.Fatalf("a changed file was read again: %v", values(rd.Batches))
	}
	// After a restart, re-reading its offsets cannot give the rows the
	// log stands for: XX001 naming the file.
	s.Close()
	s = open(t, st, testOptions(dir), 0)
	_, err := s.Read(t.Context(), 0, 0)
	if err == nil || !contains(err.Error(), p) {
		t.Fatalf("re-reading a changed file: %v", err)
	}
	if code := sqlCode(err); code != "XX001" {
		t.Fatalf("re-reading a changed file: %s, want XX001", code)
	}
}

// A path naming one file: read once complete, and a rewrite of it is a
// change, not new input.
func TestDiscoverOneFilePath(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "only.txt")
	writeRows(t, filepath.Join(dir, "other.txt"), 100, 1, old)
	st := newStore(t, state.SyncGroup)
	renameRows(t, p, 0, 3)
	s := open(t, st, testOptions(p), 100*time.Millisecond)
	got, off := s.readUntil(0, 3, 5*time.Second)
	sameInts(t, "the one file", got, seq(0, 3))
	if rd := s.read(off, 0); len(rd.Batches) != 0 {
		t.Fatalf("read more than the one file: %v", values(rd.Batches))
	}
}

// A file moved in from a folder discovery does not watch is not known to
// be whole at once: the settle rule reads it.
func TestDiscoverMovedInFromOutside(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	st := newStore(t, state.SyncGroup)
	s := open(t, st, testOptions(dir), 200*time.Millisecond)
	writeRows(t, filepath.Join(outside, "x"), 0, 4, time.Time{})
	if err := os.Rename(filepath.Join(outside, "x"), filepath.Join(dir, "x")); err != nil {
		t.Fatal(err)
	}
	got, _ := s.readUntil(0, 4, 5*time.Second)
	sameInts(t, "moved in", got, seq(0, 4))
}
