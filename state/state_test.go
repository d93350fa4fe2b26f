package state

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dgraph-io/badger/v4"
	"github.com/weir-sql/weir/sql/sqlerr"
)

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "tags", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
}, nil)

// makeBatch returns rows first..first+n-1 with every fourth name null.
func makeBatch(first, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, testSchema)
	defer b.Release()
	ids := b.Field(0).(*array.Int64Builder)
	names := b.Field(1).(*array.StringBuilder)
	tags := b.Field(2).(*array.ListBuilder)
	tagv := tags.ValueBuilder().(*array.Int32Builder)
	ts := b.Field(3).(*array.TimestampBuilder)
	for i := first; i < first+n; i++ {
		ids.Append(int64(i))
		if i%4 == 0 {
			names.AppendNull()
		} else {
			names.Append(fmt.Sprintf("name-%d", i))
		}
		tags.Append(true)
		for j := 0; j < i%3; j++ {
			tagv.Append(int32(i + j))
		}
		ts.Append(arrow.Timestamp(1_700_000_000_000_000 + int64(i)))
	}
	return b.NewRecordBatch()
}

func openTest(t testing.TB, dir string, opts Options) *Store {
	t.Helper()
	if opts.Sync == SyncGroup {
		opts.Sync = SyncNone // tests do not need power-loss safety
	}
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func appendCommit(t testing.TB, s *Store, rel uint32, batches ...arrow.RecordBatch) {
	t.Helper()
	tx := s.Begin(true)
	defer tx.Discard()
	if err := tx.AppendChunks(rel, batches); err != nil {
		t.Fatalf("AppendChunks: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

// ids returns the id column of all batches, concatenated.
func ids(t testing.TB, batches []arrow.RecordBatch) []int64 {
	t.Helper()
	var out []int64
	for _, b := range batches {
		out = append(out, b.Column(0).(*array.Int64).Int64Values()...)
	}
	return out
}

func scan(t testing.TB, s *Store, rel uint32) []arrow.RecordBatch {
	t.Helper()
	bs, err := s.ScanTable(rel, testSchema)
	if err != nil {
		t.Fatalf("ScanTable: %v", err)
	}
	return bs
}

func TestAppendScanRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, Options{})
	want := []arrow.RecordBatch{makeBatch(0, 10), makeBatch(10, 7), makeBatch(17, 1)}
	appendCommit(t, s, 20000, want...)
	appendCommit(t, s, 20001, makeBatch(100, 3))

	check := func(got []arrow.RecordBatch) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("got %d batches, want %d", len(got), len(want))
		}
		for i := range want {
			if !array.RecordEqual(got[i], want[i]) {
				t.Fatalf("batch %d differs:\n got %v\nwant %v", i, got[i], want[i])
			}
		}
	}
	check(scan(t, s, 20000)) // first load: decoded from the store
	check(scan(t, s, 20000)) // cached
	if got := ids(t, scan(t, s, 20001)); len(got) != 3 || got[0] != 100 {
		t.Fatalf("other relation: %v", got)
	}
	rows, bytes, err := s.TableStats(20000)
	if err != nil || rows != 18 || bytes <= 0 {
		t.Fatalf("TableStats = %d, %d, %v; want 18 rows", rows, bytes, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openTest(t, dir, Options{})
	defer s.Close()
	check(scan(t, s, 20000))
	if rows2, bytes2, _ := s.TableStats(20000); rows2 != rows || bytes2 != bytes {
		t.Fatalf("TableStats after reopen = %d, %d; want %d, %d", rows2, bytes2, rows, bytes)
	}
	// A schema with other column types is refused.
	other := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}}, nil)
	if _, err := s.ScanTable(20000, other); sqlerr.Code(err) != sqlerr.InternalError {
		t.Fatalf("scan with wrong schema: %v", err)
	}
}

func TestCacheSeesOnlyCommittedChunksInOrder(t *testing.T) {
	s := openTest(t, t.TempDir(), Options{})
	defer s.Close()
	const rel = 30000
	if got := scan(t, s, rel); len(got) != 0 { // loads an empty cache
		t.Fatalf("empty table has %d batches", len(got))
	}

	discarded := s.Begin(true)
	if err := discarded.AppendChunks(rel, []arrow.RecordBatch{makeBatch(900, 2)}); err != nil {
		t.Fatal(err)
	}
	first := s.Begin(true) // takes the lower sequence number...
	if err := first.AppendChunks(rel, []arrow.RecordBatch{makeBatch(0, 2)}); err != nil {
		t.Fatal(err)
	}
	second := s.Begin(true)
	if err := second.AppendChunks(rel, []arrow.RecordBatch{makeBatch(2, 2)}); err != nil {
		t.Fatal(err)
	}
	if got := scan(t, s, rel); len(got) != 0 {
		t.Fatalf("uncommitted chunks visible: %v", ids(t, got))
	}
	if err := second.Commit(); err != nil { // ...but commits last
		t.Fatal(err)
	}
	discarded.Discard()
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	want := []int64{0, 1, 2, 3}
	if got := ids(t, scan(t, s, rel)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("cached scan = %v, want %v", got, want)
	}
	// The cache agrees with the store.
	s.evictTable(rel)
	if got := ids(t, scan(t, s, rel)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("scan from store = %v, want %v", got, want)
	}
}

func TestCacheConcurrentLoadAndCommit(t *testing.T) {
	s := openTest(t, t.TempDir(), Options{})
	defer s.Close()
	const rel, writers, each = 30001, 4, 10
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				appendCommit(t, s, rel, makeBatch(w*each+i, 1))
				if i%3 == 0 {
					s.evictTable(rel) // force reloads racing with commits
				}
				if _, err := s.ScanTable(rel, nil); err != nil {
					t.Error(err)
				}
			}
		}(w)
	}
	wg.Wait()
	got := ids(t, scan(t, s, rel))
	s.evictTable(rel)
	fromStore := ids(t, scan(t, s, rel))
	if len(got) != writers*each || fmt.Sprint(got) != fmt.Sprint(fromStore) {
		t.Fatalf("cache has %d rows %v\nstore has %v", len(got), got, fromStore)
	}
}

func TestDropTable(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, Options{})
	appendCommit(t, s, 1, makeBatch(0, 5))
	appendCommit(t, s, 2, makeBatch(0, 5))
	scan(t, s, 1)

	tx := s.Begin(true)
	if err := DropTable(tx, 1); err != nil {
		t.Fatal(err)
	}
	if got := scan(t, s, 1); len(got) != 1 {
		t.Fatalf("drop visible before commit")
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := scan(t, s, 1); len(got) != 0 {
		t.Fatalf("dropped table still has %d batches", len(got))
	}
	s.Close()
	s = openTest(t, dir, Options{})
	defer s.Close()
	if got := scan(t, s, 1); len(got) != 0 {
		t.Fatalf("dropped table has %d batches after reopen", len(got))
	}
	if got := ids(t, scan(t, s, 2)); len(got) != 5 {
		t.Fatalf("other table lost rows: %v", got)
	}
}

func TestTxnGetSetIterate(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, Options{})
	tx := s.Begin(true)
	for _, k := range []string{"c/b", "c/a", "x/z"} {
		if err := tx.Set([]byte(k), []byte("v"+k)); err != nil {
			t.Fatal(err)
		}
	}
	if v, err := tx.Get([]byte("c/a")); err != nil || string(v) != "vc/a" {
		t.Fatalf("read own write: %q %v", v, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx = s.Begin(true)
	if err := tx.Delete([]byte("c/b")); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openTest(t, dir, Options{})
	defer s.Close()
	tx = s.Begin(false)
	defer tx.Discard()
	var seen []string
	err := tx.IteratePrefix([]byte("c/"), func(k, v []byte) error {
		seen = append(seen, string(k)+"="+string(v))
		return nil
	})
	if err != nil || fmt.Sprint(seen) != "[c/a=vc/a]" {
		t.Fatalf("IteratePrefix = %v, %v", seen, err)
	}
	if _, err := tx.Get([]byte("c/b")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted key: %v", err)
	}
}

func TestNextID(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, Options{})
	if err := s.SetIDFloor("oid", 16384); err != nil {
		t.Fatal(err)
	}
	var last uint64
	for i := 0; i < 300; i++ { // crosses lease boundaries
		id, err := s.NextID("oid")
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && id != 16384 {
			t.Fatalf("first oid = %d", id)
		}
		if id <= last {
			t.Fatalf("id %d after %d", id, last)
		}
		last = id
	}
	if id, _ := s.NextID("other"); id != 1 {
		t.Fatalf("fresh counter starts at %d", id)
	}
	// No Close: as after a crash, the unused part of the lease is lost but
	// nothing is handed out twice.
	s.db.Close()
	s = openTest(t, dir, Options{})
	defer s.Close()
	id, err := s.NextID("oid")
	if err != nil || id <= last {
		t.Fatalf("after reopen: %d, %v (last %d)", id, err, last)
	}
	if err := s.SetIDFloor("oid", 100); err != nil {
		t.Fatal(err)
	}
	if id2, _ := s.NextID("oid"); id2 != id+1 {
		t.Fatalf("SetIDFloor moved the counter back: %d after %d", id2, id)
	}
}

func TestGroupSyncSharesFsync(t *testing.T) {
	s, err := Open(t.TempDir(), Options{Sync: SyncGroup})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var syncs atomic.Int64
	realSync := s.syncer.sync
	gate := make(chan struct{})
	s.syncer.sync = func() error {
		if syncs.Add(1) == 1 {
			<-gate // hold the first fsync so that the others queue up
		}
		return realSync()
	}
	const committers = 8
	var wg sync.WaitGroup
	for i := 0; i < committers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			tx := s.Begin(true)
			defer tx.Discard()
			if err := tx.Set([]byte(fmt.Sprintf("x/%d", i)), []byte("v")); err != nil {
				t.Error(err)
			}
			if err := tx.Commit(); err != nil {
				t.Error(err)
			}
		}(i)
	}
	// Wait until every committer has written and is waiting for a sync.
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.syncer.mu.Lock()
		n := s.syncer.tickets
		s.syncer.mu.Unlock()
		if n == committers {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d committers arrived", n)
		}
		time.Sleep(time.Millisecond)
	}
	close(gate)
	wg.Wait()
	if n := syncs.Load(); n > 2 {
		t.Fatalf("%d concurrent commits used %d fsyncs, want at most 2", committers, n)
	}
}

func TestStorageErrorCodes(t *testing.T) {
	cases := []struct {
		err  error
		code string
	}{
		{errors.New("while writing: write /d/000001.vlog: no space left on device"), sqlerr.DiskFull},
		{fmt.Errorf("x: %w", syscall.ENOSPC), sqlerr.DiskFull},
		{errors.New("open /d/MANIFEST: read-only file system"), sqlerr.IOError},
		{errors.New("open /d/LOCK: permission denied"), sqlerr.IOError},
		{badger.ErrConflict, "40001"},
	}
	for _, c := range cases {
		if got := sqlerr.Code(storageError("write", c.err)); got != c.code {
			t.Errorf("%v: code %s, want %s", c.err, got, c.code)
		}
	}
}
