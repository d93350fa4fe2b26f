package state

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// TestCommitRefusedWhenDiskWouldFill checks that a commit that would eat
// into the free-space reserve fails with 53100 before Badger writes
// anything, leaves committed data intact, and that writes work again once
// the reserve is satisfied.
func TestCommitRefusedWhenDiskWouldFill(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir, Options{})
	appendCommit(t, s, 1, makeBatch(0, 10))
	s.opts.MinFreeBytes = 1 << 60 // no disk has that much free: the disk is "full"
	tx := s.Begin(true)
	if err := tx.AppendChunks(1, []arrow.RecordBatch{makeBatch(10, 10)}); err != nil {
		t.Fatal(err)
	}
	err := tx.Commit()
	if sqlerr.Code(err) != sqlerr.DiskFull {
		t.Fatalf("commit on a full disk: %v, want 53100", err)
	}
	if got := ids(t, scan(t, s, 1)); len(got) != 10 {
		t.Fatalf("after the refused commit the table has %d rows, want the 10 committed", len(got))
	}
	s.opts.MinFreeBytes = defaultMinFreeBytes // space returns
	appendCommit(t, s, 1, makeBatch(10, 10))
	if got := ids(t, scan(t, s, 1)); len(got) != 20 {
		t.Fatalf("after space returned the table has %d rows, want 20", len(got))
	}
}
