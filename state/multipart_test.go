package state

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dgraph-io/badger/v4"
	"github.com/weir-sql/weir/sql/sqlerr"
)

func countPrefix(t *testing.T, s *Store, prefix string) int {
	t.Helper()
	n := 0
	err := s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = []byte(prefix)
		opts.PrefetchValues = false
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func batches(n, rows int) []arrow.RecordBatch {
	out := make([]arrow.RecordBatch, n)
	for i := range out {
		out[i] = makeBatch(i*rows, rows)
	}
	return out
}

func TestMultiPartCommit(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, Options{PartChunks: 2})
	tx := s.Begin(true)
	if err := tx.Set([]byte("c/marker"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := tx.AppendChunks(7, batches(5, 3)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := countPrefix(t, s, PrefixGroup); n != 1 {
		t.Fatalf("%d commit records, want 1 (the commit was not split)", n)
	}
	if n := countPrefix(t, s, PrefixPending); n != 0 {
		t.Fatalf("%d pending markers left after publishing", n)
	}
	want := fmt.Sprint(ids(t, batches(5, 3)))
	if got := fmt.Sprint(ids(t, scan(t, s, 7))); got != want {
		t.Fatalf("cached scan %s, want %s", got, want)
	}
	s.Close()
	s = openTest(t, dir, Options{PartChunks: 2})
	defer s.Close()
	if got := fmt.Sprint(ids(t, scan(t, s, 7))); got != want {
		t.Fatalf("scan after reopen %s, want %s", got, want)
	}
}

// A crash after some parts (simulated by failAfterParts: no record, no
// clean-up) leaves chunks in the store that no reader shows and that the
// next Open deletes. The ordinary writes of the transaction are not applied.
func TestMultiPartCrashBetweenParts(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, Options{PartChunks: 2, failAfterParts: 2})
	appendCommit(t, s, 7, makeBatch(1000, 1)) // small: one transaction
	tx := s.Begin(true)
	if err := tx.Set([]byte("c/marker"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := tx.AppendChunks(7, batches(5, 3)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); sqlerr.Code(err) != sqlerr.IOError {
		t.Fatalf("Commit = %v, want the simulated crash", err)
	}
	if n := countPrefix(t, s, PrefixTable); n != 1+4 {
		t.Fatalf("%d chunks in the store, want 1 + 2 parts of 2", n)
	}
	s.evictTable(7) // read what the store holds, not the cache
	if got := ids(t, scan(t, s, 7)); fmt.Sprint(got) != "[1000]" {
		t.Fatalf("unpublished parts visible: %v", got)
	}
	tx = s.Begin(false)
	if _, err := tx.Get([]byte("c/marker")); err != ErrNotFound {
		t.Fatalf("ordinary write of the failed commit applied: %v", err)
	}
	tx.Discard()
	s.db.Close() // no clean Close: as after kill -9

	s = openTest(t, dir, Options{})
	defer s.Close()
	if n := countPrefix(t, s, PrefixTable); n != 1 {
		t.Fatalf("recovery left %d chunks, want 1", n)
	}
	if n := countPrefix(t, s, PrefixPending); n != 0 {
		t.Fatalf("recovery left %d pending markers", n)
	}
	if got := ids(t, scan(t, s, 7)); fmt.Sprint(got) != "[1000]" {
		t.Fatalf("after recovery: %v", got)
	}
}

// Badger's own limit (ErrTxnTooBig) also splits a commit, even when the
// configured part size would allow one transaction.
func TestCommitSplitsOnTxnTooBig(t *testing.T) {
	// A 1 MiB memtable allows ~157 KB per transaction.
	s := openTest(t, t.TempDir(), Options{MemTableSize: 1 << 20})
	defer s.Close()
	tx := s.Begin(true)
	// Values under the value threshold stay in the LSM and count fully.
	small := batches(200, 1)
	if err := tx.AppendChunks(9, small); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := countPrefix(t, s, PrefixGroup); n != 1 {
		t.Fatalf("%d commit records, want 1", n)
	}
	s.evictTable(9)
	if got := len(ids(t, scan(t, s, 9))); got != 200 {
		t.Fatalf("%d rows, want 200", got)
	}
}
