package state

import (
	"testing"
)

// TrimTable removes the oldest chunks and records the shift in the same
// commit; the table stays usable for scans, appends and further trims
// (an earlier version leaked a read lock and hung the next trim).
func TestTrimTableRepeatedly(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, Options{})
	for i := 0; i < 5; i++ {
		appendCommit(t, s, 20000, makeBatch(i*10, 10))
	}
	if err := s.TrimTable(20000, 2, []byte("x/trim"), []byte{2}); err != nil {
		t.Fatal(err)
	}
	appendCommit(t, s, 20000, makeBatch(50, 10))
	if err := s.TrimTable(20000, 1, []byte("x/trim"), []byte{3}); err != nil {
		t.Fatal(err)
	}
	if got := ids(t, scan(t, s, 20000)); len(got) != 30 || got[0] != 30 || got[29] != 59 {
		t.Fatalf("after trims: %d rows starting at %v", len(got), got[:1])
	}
	if n, err := s.ChunkCount(20000); err != nil || n != 3 {
		t.Fatalf("ChunkCount = %d, %v; want 3", n, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openTest(t, dir, Options{})
	defer s.Close()
	tx := s.Begin(false)
	v, err := tx.Get([]byte("x/trim"))
	tx.Discard()
	if err != nil || len(v) != 1 || v[0] != 3 {
		t.Fatalf("trim record after reopen = %v, %v", v, err)
	}
	if got := ids(t, scan(t, s, 20000)); len(got) != 30 || got[0] != 30 {
		t.Fatalf("after reopen: %d rows", len(got))
	}
}
