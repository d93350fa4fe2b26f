package files

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/state"
)

func srcRemove(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}

func TestHostileFolderVanishes(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "landing")
	srcWriteRows(t, filepath.Join(dir, "a"), 0, 2, longAgo)
	st := newSrcStore(t, state.SyncGroup)
	s := openSrc(t, st, srcOptions(dir), 0)
	s.Rescan()
	rd := s.read(0, 0)
	srcSameInts(t, "before", batchValues(rd.Batches), intsFrom(0, 2))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	s.Rescan()
	if rd2 := s.read(rd.Next, 0); len(rd2.Batches) != 0 {
		t.Fatalf("read %v from a folder that is gone", batchValues(rd2.Batches))
	}
	if !srcHasNotice(s.Notices(), NoticeFolder, dir) {
		t.Fatal("no notice for the vanished folder")
	}
	// The folder comes back: reading goes on.
	srcWriteRows(t, filepath.Join(dir, "b"), 10, 2, longAgo)
	got, _ := s.readUntil(rd.Next, 2, 5*time.Second)
	srcSameInts(t, "after", got, intsFrom(10, 2))
}

func TestHostilePermissionDenied(t *testing.T) {
	dir := t.TempDir()
	srcWriteRows(t, filepath.Join(dir, "a"), 0, 2, longAgo)
	srcWriteRows(t, filepath.Join(dir, "locked"), 5, 2, longAgo.Add(time.Second))
	srcWriteRows(t, filepath.Join(dir, "z"), 10, 2, longAgo.Add(2*time.Second))
	if err := os.Chmod(filepath.Join(dir, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "locked"), 0o644) })
	st := newSrcStore(t, state.SyncGroup)
	s := openSrc(t, st, srcOptions(dir), 0)
	if os.Geteuid() == 0 {
		// Root reads a file of mode 000: the decoder is refused as an
		// unprivileged server's would be.
		locked := filepath.Join(dir, "locked")
		s.cfg.decode = func(f FileInfo, o Options, sc Schema, n int) ([]arrow.RecordBatch, DecodeStats, error) {
			if f.Path == locked {
				return nil, DecodeStats{}, accessError("could not open file", f.Path, &fs.PathError{Op: "open", Path: f.Path, Err: syscall.EACCES})
			}
			return srcTestDecode(f, o, sc, n)
		}
		s.cache.cfg = s.cfg
	}
	s.Rescan()
	rd := s.read(0, 0)
	// The unreadable file is put off and reported; the others are read.
	srcSameInts(t, "readable files", batchValues(rd.Batches), []int64{0, 1, 10, 11})
	if !srcHasNotice(s.Notices(), NoticeUnreadable, filepath.Join(dir, "locked")) {
		t.Fatal("no notice for the unreadable file")
	}
	if n, _ := s.Backlog(); n != 1 {
		t.Fatalf("backlog %d files, want the unreadable one", n)
	}
}

func TestHostileSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	srcWriteRows(t, filepath.Join(dir, "a"), 0, 1, longAgo)
	srcWriteRows(t, filepath.Join(dir, "sub", "b"), 1, 1, longAgo.Add(time.Second))
	for _, l := range [][2]string{
		{"loop1", filepath.Join(dir, "loop2")}, {"loop2", filepath.Join(dir, "loop1")}, // a loop of links
		{"sub/up", dir}, // a link to an ancestor folder
		{"dangling", filepath.Join(dir, "nowhere")},
		{"alias", filepath.Join(dir, "a")}, // a link to a file: read as that file
	} {
		if err := os.Symlink(l[1], filepath.Join(dir, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	files, err := List(srcOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
	}
	if fmt.Sprint(names) != "[a alias b]" {
		t.Fatalf("listed %v", names)
	}
	st := newSrcStore(t, state.SyncGroup)
	s := openSrc(t, st, srcOptions(dir), 0)
	s.Rescan()
	srcSameInts(t, "through the links", batchValues(s.read(0, 0).Batches), []int64{0, 0, 1})
}

func TestHostileManyTinyFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 files")
	}
	dir := t.TempDir()
	const n = 10000
	wrote := time.Now()
	for i := 0; i < n; i++ {
		// Written in order: modification times in order (ties in path
		// order); a settle interval of a millisecond makes them complete.
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", i)), srcRowsText(i, 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("writing %d files: %s", n, time.Since(wrote))
	start := time.Now()
	files, err := listSettled(srcOptions(dir), time.Millisecond)
	took := time.Since(start)
	if err != nil || len(files) != n {
		t.Fatalf("List: %d files, %v", len(files), err)
	}
	// Baseline in the same run: the bare os.ReadDir of the folder.
	start = time.Now()
	ents, _ := os.ReadDir(dir)
	bare := time.Since(start)
	t.Logf("List of %d files: %s (os.ReadDir alone: %s, %d entries)", n, took, bare, len(ents))
	if took > 5*time.Second {
		t.Fatalf("listing %d files took %s", n, took)
	}
	st := newSrcStore(t, state.SyncNone)
	start = time.Now()
	s := openSrc(t, st, srcOptions(dir), time.Millisecond)
	t.Logf("open (first listing): %s", time.Since(start))
	start = time.Now()
	var got []int64
	var off int64
	for {
		rd := s.read(off, 0)
		if len(rd.Batches) == 0 {
			break
		}
		got = append(got, batchValues(rd.Batches)...)
		off = rd.Next
	}
	t.Logf("read %d files in triggers of %d: %s", n, defaultMaxFilesPerTrigger, time.Since(start))
	srcSameInts(t, "all files in order", got, intsFrom(0, n))
	// Relisting a folder of read files stays cheap.
	start = time.Now()
	s.Rescan()
	t.Logf("re-listing %d read files: %s", n, time.Since(start))
}
