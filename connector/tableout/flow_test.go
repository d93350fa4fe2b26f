package tableout

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/state"
)

// Two flows' sinks into one target: the rows go to the target's chunks,
// each flow's progress is its own, and dropping a flow's sink forgets its
// progress only.
func TestFlowSinks(t *testing.T) {
	st, err := state.Open(t.TempDir(), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const target, a, b = 80, 81, 82
	fa, fb := NewFlow(st, target, a), NewFlow(st, target, b)
	for epoch, out := range [][]arrow.RecordBatch{{rows(1)}, {rows(2, 3)}} {
		if err := connector.WriteEpoch(st, fa, int64(epoch+1), out); err != nil {
			t.Fatal(err)
		}
	}
	if err := connector.WriteEpoch(st, fb, 1, []arrow.RecordBatch{rows(10)}); err != nil {
		t.Fatal(err)
	}
	progress := func(s *Sink) int64 {
		t.Helper()
		n, err := s.LastCommitted()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if progress(fa) != 2 || progress(fb) != 1 || progress(New(st, target)) != 0 {
		t.Errorf("progress a %d, b %d, target %d; want 2, 1, 0", progress(fa), progress(fb), progress(New(st, target)))
	}
	count := func() int64 {
		t.Helper()
		bs, err := st.ScanTable(target, schema)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, b := range bs {
			n += b.NumRows()
		}
		return n
	}
	if n := count(); n != 4 {
		t.Fatalf("target holds %d rows, want 4", n)
	}
	tx := st.Begin(true)
	if err := fa.Drop(tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if progress(fa) != 0 || progress(fb) != 1 || count() != 4 {
		t.Errorf("after dropping flow a: progress a %d, b %d, %d rows; want 0, 1, 4", progress(fa), progress(fb), count())
	}
}
