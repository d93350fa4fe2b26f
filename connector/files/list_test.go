package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
)

func srcRelNames(t *testing.T, dir string, fs []FileInfo) string {
	t.Helper()
	var out []string
	for _, f := range fs {
		r, err := filepath.Rel(dir, f.Path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return strings.Join(out, " ")
}

func TestList(t *testing.T) {
	dir := t.TempDir()
	srcWriteRows(t, filepath.Join(dir, "b.json"), 0, 1, longAgo.Add(time.Second))
	srcWriteRows(t, filepath.Join(dir, "a.json"), 0, 1, longAgo.Add(time.Second))
	srcWriteRows(t, filepath.Join(dir, "z.csv"), 0, 1, longAgo)
	srcWriteRows(t, filepath.Join(dir, "sub", "c.json"), 0, 1, longAgo.Add(2*time.Second))
	srcWriteRows(t, filepath.Join(dir, "sub", "deeper", "d.json"), 0, 1, longAgo.Add(3*time.Second))
	srcWriteRows(t, filepath.Join(dir, "_SUCCESS"), 0, 1, longAgo)
	srcWriteRows(t, filepath.Join(dir, ".a.json.crc"), 0, 1, longAgo)
	srcWriteRows(t, filepath.Join(dir, "_delta_log", "x.json"), 0, 1, longAgo)
	srcWriteRows(t, filepath.Join(dir, ".tmp", "y.json"), 0, 1, longAgo)
	list := func(o Options) string {
		t.Helper()
		fs, err := List(o)
		if err != nil {
			t.Fatal(err)
		}
		return srcRelNames(t, dir, fs)
	}
	o := srcOptions(dir)
	// Oldest first, ties by path; hidden names skipped.
	if got, want := list(o), "z.csv a.json b.json sub/c.json sub/deeper/d.json"; got != want {
		t.Errorf("folder: %q, want %q", got, want)
	}
	o.Recursive = false
	if got, want := list(o), "z.csv a.json b.json"; got != want {
		t.Errorf("not recursive: %q, want %q", got, want)
	}
	o = srcOptions(dir)
	o.PathGlobFilter = "[ab].json"
	if got, want := list(o), "a.json b.json"; got != want {
		t.Errorf("pathGlobFilter: %q, want %q", got, want)
	}
	o = srcOptions(filepath.Join(dir, "{a,z}.*"))
	if got, want := list(o), "z.csv a.json"; got != want {
		t.Errorf("brace glob: %q, want %q", got, want)
	}
	o = srcOptions(filepath.Join(dir, "sub"))
	if got, want := list(o), "sub/c.json sub/deeper/d.json"; got != want {
		t.Errorf("subfolder: %q, want %q", got, want)
	}
	o = srcOptions(filepath.Join(dir, "s*", "deep*"))
	if got, want := list(o), "sub/deeper/d.json"; got != want {
		t.Errorf("folder glob: %q, want %q", got, want)
	}
	// A path naming one file reads it, hidden name or not.
	o = srcOptions(filepath.Join(dir, "_SUCCESS"))
	if got, want := list(o), "_SUCCESS"; got != want {
		t.Errorf("one file: %q, want %q", got, want)
	}
	o = srcOptions(dir)
	o.ModifiedAfter = longAgo
	o.ModifiedBefore = longAgo.Add(3 * time.Second)
	if got, want := list(o), "a.json b.json sub/c.json"; got != want {
		t.Errorf("modified bounds: %q, want %q", got, want)
	}
	o = srcOptions(filepath.Join(dir, "*.parquet"))
	if got := list(o); got != "" {
		t.Errorf("a glob matching nothing: %q", got)
	}
}

func TestListErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := List(srcOptions(filepath.Join(dir, "missing")))
	if sqlerr.Code(err) != sqlstateUndefinedFile {
		t.Fatalf("a missing folder: %v (%s)", err, sqlerr.Code(err))
	}
	if os.Geteuid() != 0 {
		locked := filepath.Join(dir, "locked")
		srcWriteRows(t, filepath.Join(locked, "a"), 0, 1, longAgo)
		os.Chmod(locked, 0)
		defer os.Chmod(locked, 0o755)
		_, err = List(srcOptions(locked))
		if sqlerr.Code(err) != sqlerr.InsufficientPrivilege {
			t.Fatalf("an unreadable folder: %v (%s)", err, sqlerr.Code(err))
		}
	}
}

// List's second observation: a file written a moment ago is listed once
// it proved stable; one still growing is left out.
func TestListSettles(t *testing.T) {
	dir := t.TempDir()
	srcWriteRows(t, filepath.Join(dir, "fresh"), 0, 1, time.Time{})
	fs, err := listSettled(srcOptions(dir), 100*time.Millisecond)
	if err != nil || srcRelNames(t, dir, fs) != "fresh" {
		t.Fatalf("a fresh stable file: %v %v", fs, err)
	}
}

func TestReadNow(t *testing.T) {
	dir := t.TempDir()
	var want []int64
	for i := 0; i < 9; i++ {
		srcWriteRows(t, filepath.Join(dir, fmt.Sprintf("f%d", i)), i*10, 5, longAgo.Add(time.Duration(i)*time.Second))
		want = append(want, intsFrom(i*10, 5)...)
	}
	files, err := List(srcOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	bs, err := readAll(context.Background(), files, srcOptions(dir), srcTestSchema, 2, srcTestDecode)
	if err != nil {
		t.Fatal(err)
	}
	srcSameInts(t, "ReadNow", batchValues(bs), want)
	// A damaged file is the error, unless ignoreCorruptFiles.
	srcAppendLine(t, filepath.Join(dir, "f3"), "damaged", longAgo.Add(3*time.Second))
	files, _ = List(srcOptions(dir))
	if _, err := readAll(context.Background(), files, srcOptions(dir), srcTestSchema, 2, srcTestDecode); sqlerr.Code(err) != sqlerr.DataCorrupted {
		t.Fatalf("a damaged file: %v", err)
	}
	o := srcOptions(dir)
	o.IgnoreCorruptFiles = true
	bs, err = readAll(context.Background(), files, o, srcTestSchema, 2, srcTestDecode)
	if err != nil || len(batchValues(bs)) != 40 {
		t.Fatalf("ignoreCorruptFiles: %d rows, %v", len(batchValues(bs)), err)
	}
}

// What discovery's events accept (reachesFile) is what a listing finds,
// for globs and recursion alike.
func TestEventsAgreeWithListing(t *testing.T) {
	dir := t.TempDir()
	tree := []string{"a", "x/b", "x/in/c", "x/in/d/e", "y/in/f", "y/out/g", "z/in/_h", "z/_in/i", "in/j", "x/y/in/k"}
	for _, p := range tree {
		srcWriteRows(t, filepath.Join(dir, p), 0, 1, longAgo)
	}
	for _, path := range []string{"", "x", "*/in", "{x,y}/in", "*/*", "x/in/d", "*"} {
		for _, rec := range []bool{true, false} {
			o := srcOptions(filepath.Join(dir, path))
			o.Recursive = rec
			fs, err := List(o)
			if err != nil {
				t.Fatal(err)
			}
			listed := map[string]bool{}
			for _, f := range fs {
				listed[f.Path] = true
			}
			l, err := newLister(o)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range tree {
				full := filepath.Join(dir, p)
				r, _ := filepath.Rel(l.spec.base, full)
				reached := !strings.HasPrefix(r, "..") && l.reachesFile(strings.Split(r, "/"))
				if reached != listed[full] {
					t.Errorf("path %q recursive %v: %s listed %v, reached by events %v", path, rec, p, listed[full], reached)
				}
			}
		}
	}
}
