package state

import (
	"fmt"
	"testing"
)

// TestFlushChunks: chunks flushed mid-transaction are in the store but
// invisible (to a loaded cache, to a reopened store) until Commit, which
// makes them and the unflushed rest visible together; Discard removes them.
func TestFlushChunks(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, Options{})
	if got := len(scan(t, s, 7)); got != 0 { // load the (empty) cache
		t.Fatalf("%d batches before", got)
	}
	tx := s.Begin(true)
	all := batches(6, 3)
	if err := tx.AppendChunks(7, all[:2]); err != nil {
		t.Fatal(err)
	}
	if err := tx.FlushChunks(); err != nil {
		t.Fatal(err)
	}
	if n := tx.PendingChunkBytes(); n != 0 {
		t.Fatalf("%d bytes still held after a flush", n)
	}
	if err := tx.AppendChunks(7, all[2:4]); err != nil {
		t.Fatal(err)
	}
	if err := tx.FlushChunks(); err != nil {
		t.Fatal(err)
	}
	if err := tx.AppendChunks(7, all[4:]); err != nil {
		t.Fatal(err)
	}
	if n := countPrefix(t, s, PrefixTable); n != 4 {
		t.Fatalf("%d chunks in the store after two flushes, want 4", n)
	}
	if got := len(scan(t, s, 7)); got != 0 {
		t.Fatalf("flushed chunks visible before commit: %d batches", got)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint(ids(t, all))
	if got := fmt.Sprint(ids(t, scan(t, s, 7))); got != want {
		t.Fatalf("after commit: %s, want %s", got, want)
	}
	if n := countPrefix(t, s, PrefixPending); n != 0 {
		t.Fatalf("%d pending markers left", n)
	}

	// A discarded transaction leaves nothing, flushed parts included.
	tx = s.Begin(true)
	if err := tx.AppendChunks(8, batches(2, 3)); err != nil {
		t.Fatal(err)
	}
	if err := tx.FlushChunks(); err != nil {
		t.Fatal(err)
	}
	tx.Discard()
	if got := len(scan(t, s, 8)); got != 0 {
		t.Fatalf("discarded rows visible: %d batches", got)
	}
	if n := countPrefix(t, s, PrefixTable); n != 6 {
		t.Fatalf("%d chunks in the store, want the 6 committed", n)
	}

	// A crash after a flush (no Commit, no Discard): the reopened store
	// shows nothing of it.
	tx = s.Begin(true)
	if err := tx.AppendChunks(9, batches(2, 3)); err != nil {
		t.Fatal(err)
	}
	if err := tx.FlushChunks(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openTest(t, dir, Options{})
	if got := len(scan(t, s, 9)); got != 0 {
		t.Fatalf("rows of an unfinished transaction visible after reopen: %d batches", got)
	}
	if got := fmt.Sprint(ids(t, scan(t, s, 7))); got != want {
		t.Fatalf("after reopen: %s, want %s", got, want)
	}
}
