package files

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/connector/sourcetest"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// The Source contract's conformance: each appended batch is one file
// (written dated in the past, so complete at once), found by a rescan.
func TestSourceConformance(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
		dir := t.TempDir()
		st := newSrcStore(t, state.SyncGroup)
		cfg := Tuning{Settle: time.Hour, Relist: time.Hour, BatchRows: 1 << 20}.config()
		cfg.decode = srcTestDecode
		src, err := openWith(st, []byte("o/files/conf/"), srcOptions(dir), srcTestSchema, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { src.Close() })
		n := 0
		return sourcetest.Fixture{
			Source: src,
			Append: func(b arrow.RecordBatch) error {
				vals := b.Column(0).(*array.Int64).Int64Values()
				p := filepath.Join(dir, fmt.Sprintf("f%04d.txt", n))
				srcWriteRows(t, p, int(vals[0]), len(vals), longAgo.Add(time.Duration(n)*time.Second))
				n++
				src.Rescan()
				return nil
			},
		}
	})
}

func TestReadAdmitsWithinTriggerBounds(t *testing.T) {
	dir := t.TempDir()
	var size int64
	for i := 0; i < 5; i++ {
		srcWriteRows(t, filepath.Join(dir, fmt.Sprintf("f%d", i)), i*10, 4, longAgo.Add(time.Duration(i)*time.Second))
		size += int64(len(srcRowsText(i*10, 4)))
	}
	st := newSrcStore(t, state.SyncGroup)
	o := srcOptions(dir)
	o.MaxFilesPerTrigger = 2
	s := openSrc(t, st, o, 0)
	s.Rescan()
	if f, b := s.Backlog(); f != 5 || b != size {
		t.Fatalf("backlog before reading: %d files, %d bytes", f, b)
	}
	rd := s.read(0, 0)
	// Two files of 4 rows, 3 rows a batch: 4 batches.
	srcSameInts(t, "first trigger", batchValues(rd.Batches), append(intsFrom(0, 4), intsFrom(10, 4)...))
	if rd.Next != 4 || rd.Backlog != 0 {
		t.Fatalf("first trigger: Next %d, backlog %d", rd.Next, rd.Backlog)
	}
	if f, _ := s.Backlog(); f != 3 {
		t.Fatalf("backlog after one trigger: %d files, want 3", f)
	}
	// A bounded read admits only what it needs (at least one file) and
	// counts the rest of the file it holds in the backlog.
	rd = s.read(4, 1)
	if len(rd.Batches) != 1 || rd.Backlog != 1 {
		t.Fatalf("bounded read: %d batches, backlog %d", len(rd.Batches), rd.Backlog)
	}
	if f, _ := s.Backlog(); f != 2 {
		t.Fatalf("backlog after a bounded read: %d files, want 2", f)
	}
	// maxBytesPerTrigger: one file's bytes admits one file a trigger.
	s.Close()
	o.MaxFilesPerTrigger = 1000
	o.MaxBytesPerTrigger = int64(len(srcRowsText(30, 4)))
	s = openSrc(t, st, o, 0)
	s.Rescan()
	rd = s.read(6, 0)
	srcSameInts(t, "bytes-bounded trigger", batchValues(rd.Batches), intsFrom(30, 4))
}

func TestSchemaEvolution(t *testing.T) {
	write := func(t *testing.T, dir string) {
		srcWriteRows(t, filepath.Join(dir, "a"), 0, 2, longAgo)
		srcWriteRows(t, filepath.Join(dir, "b"), 10, 2, longAgo.Add(time.Second))
		srcAppendLine(t, filepath.Join(dir, "b"), "new:extra", longAgo.Add(time.Second))
		srcWriteRows(t, filepath.Join(dir, "c"), 20, 2, longAgo.Add(2*time.Second))
		srcAppendLine(t, filepath.Join(dir, "c"), "new:more", longAgo.Add(2*time.Second))
	}
	t.Run("addNewColumns", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir)
		st := newSrcStore(t, state.SyncGroup)
		s := openSrc(t, st, srcOptions(dir), 0)
		s.Rescan()
		if _, ok := s.SchemaChanged(); ok {
			t.Fatal("a schema change before reading")
		}
		rd := s.read(0, 0)
		srcSameInts(t, "rows of the longAgo schema", batchValues(rd.Batches), []int64{0, 1, 10, 11, 20, 21})
		ns, ok := s.SchemaChanged()
		if !ok || ns.Version != 2 || len(ns.Columns) != 3 || ns.Columns[1].Name != "extra" || ns.Columns[2].Name != "more" {
			t.Fatalf("pending schema %+v %v", ns, ok)
		}
		if s.Schema().Version != 1 {
			t.Fatalf("served schema changed to %+v", s.Schema())
		}
		if vs := s.SchemaVersions(); len(vs) != 2 || vs[0].Version != 1 || vs[1].Version != 2 {
			t.Fatalf("versions %+v", vs)
		}
		// Reopened on the longAgo schema, the new version is pending still;
		// on the new one, nothing is.
		s.Close()
		s = openSrc(t, st, srcOptions(dir), 0)
		if p, ok := s.SchemaChanged(); !ok || p.Version != 2 {
			t.Fatalf("after reopening: pending %+v %v", p, ok)
		}
		s.Close()
		cfg := Tuning{Settle: 50 * time.Millisecond}.config()
		cfg.decode = srcTestDecode
		s2, err := openWith(st, []byte("o/files/test/"), srcOptions(dir), ns, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		if p, ok := s2.SchemaChanged(); ok {
			t.Fatalf("opened on version 2, pending %+v", p)
		}
		vs, err := SchemaVersions(st, []byte("o/files/test/"))
		if err != nil || len(vs) != 2 {
			t.Fatalf("SchemaVersions: %+v %v", vs, err)
		}
	})
	t.Run("failOnNewColumns", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir)
		st := newSrcStore(t, state.SyncGroup)
		o := srcOptions(dir)
		o.EvolutionMode = EvolveFailOnNewColumns
		s := openSrc(t, st, o, 0)
		s.Rescan()
		rd := s.read(0, 0) // a: fine; b stops the trigger
		srcSameInts(t, "before the file with new columns", batchValues(rd.Batches), []int64{0, 1})
		_, err := s.Read(context.Background(), rd.Next, 0)
		if sqlerr.Code(err) != sqlerr.DataException {
			t.Fatalf("reading the file with a new column: %v (%s)", err, sqlerr.Code(err))
		}
		if files, _ := ProcessedFiles(st, []byte("o/files/test/")); len(files) != 1 {
			t.Fatalf("the refused file entered the log: %+v", files)
		}
	})
	for _, mode := range []string{EvolveRescue, EvolveNone} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir)
			st := newSrcStore(t, state.SyncGroup)
			o := srcOptions(dir)
			o.EvolutionMode = mode
			s := openSrc(t, st, o, 0)
			s.Rescan()
			rd := s.read(0, 0)
			srcSameInts(t, "rows", batchValues(rd.Batches), []int64{0, 1, 10, 11, 20, 21})
			if p, ok := s.SchemaChanged(); ok {
				t.Fatalf("mode %s recorded %+v", mode, p)
			}
		})
	}
}

func TestIgnoreCorruptFiles(t *testing.T) {
	dir := t.TempDir()
	srcWriteRows(t, filepath.Join(dir, "a"), 0, 2, longAgo)
	srcWriteRows(t, filepath.Join(dir, "b"), 10, 2, longAgo.Add(time.Second))
	srcAppendLine(t, filepath.Join(dir, "b"), "damaged", longAgo.Add(time.Second))
	srcWriteRows(t, filepath.Join(dir, "c"), 20, 2, longAgo.Add(2*time.Second))
	st := newSrcStore(t, state.SyncGroup)
	s := openSrc(t, st, srcOptions(dir), 0)
	s.Rescan()
	_, err := s.Read(context.Background(), 0, 0)
	// a is admitted with b's failure waiting: the first Read returns a.
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Read(context.Background(), 1, 0)
	if sqlerr.Code(err) != sqlerr.DataCorrupted {
		t.Fatalf("a damaged file: %v, want XX001", err)
	}
	s.Close()
	o := srcOptions(dir)
	o.IgnoreCorruptFiles = true
	s = openSrc(t, st, o, 0)
	s.Rescan()
	rd := s.read(1, 0)
	srcSameInts(t, "after the damaged file", batchValues(rd.Batches), []int64{20, 21})
	if ns := s.Notices(); !srcHasNotice(ns, NoticeDamaged, filepath.Join(dir, "b")) {
		t.Fatalf("no damaged notice: %+v", ns)
	}
	files, _ := ProcessedFiles(st, []byte("o/files/test/"))
	if len(files) != 3 || !files[1].Damaged || files[1].Batches != 0 {
		t.Fatalf("log %+v", files)
	}
}

func srcHasNotice(ns []Notice, kind, path string) bool {
	for _, n := range ns {
		if n.Kind == kind && (path == "" || n.Path == path) {
			return true
		}
	}
	return false
}
