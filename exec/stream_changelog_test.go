package exec

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func changeOf(n int) []ChangeBatch {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Append(int64(i))
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	return []ChangeBatch{Inserts(array.NewRecordBatch(schema, []arrow.Array{b.NewArray()}, int64(n)))}
}

func historyRows(cs []ChangeBatch) int64 {
	var n int64
	for _, c := range cs {
		n += c.Rows.NumRows()
	}
	return n
}

// The history gives a reader the changes since its epoch only when it
// holds them all, and forgets them at a discontinuity.
func TestChangeHistory(t *testing.T) {
	h := newChangeHistory()
	h.record(1, changeOf(1))
	if _, ok := h.since(0, 1); ok {
		t.Fatal("a history nobody follows holds nothing")
	}
	h.followers.Add(1)
	h.restart(math.MaxInt64)
	if _, ok := h.since(0, 0); ok {
		t.Fatal("a new history holds nothing")
	}
	h.restart(2) // e.g. restored from the snapshot of epoch 2
	for e := int64(3); e <= 5; e++ {
		h.record(e, changeOf(int(e)))
	}
	if cs, ok := h.since(2, 5); !ok || historyRows(cs) != 3+4+5 {
		t.Errorf("since(2, 5) = %d rows, %v", historyRows(cs), ok)
	}
	if cs, ok := h.since(4, 5); !ok || historyRows(cs) != 5 {
		t.Errorf("since(4, 5) = %d rows, %v", historyRows(cs), ok)
	}
	if cs, ok := h.since(5, 5); !ok || len(cs) != 0 {
		t.Errorf("since(5, 5) = %d batches, %v", len(cs), ok)
	}
	if _, ok := h.since(1, 5); ok {
		t.Error("since(1, 5): epoch 2's changes are not held")
	}
	if _, ok := h.since(4, 6); ok {
		t.Error("since(4, 6): epoch 6 is not recorded yet")
	}
	h.record(7, changeOf(1)) // a gap: nothing before 7 joins it
	if _, ok := h.since(5, 7); ok {
		t.Error("since(5, 7) across a gap")
	}
	if _, ok := h.since(7, 7); !ok {
		t.Error("since(7, 7) after the gap")
	}
	h.restart(math.MaxInt64) // Reset
	if _, ok := h.since(7, 7); ok {
		t.Error("since after a reset")
	}
	// Bounded: old epochs go first.
	h.restart(0)
	for e := int64(1); e <= maxHistoryEpochs+10; e++ {
		h.record(e, changeOf(1))
	}
	if _, ok := h.since(5, maxHistoryEpochs+10); ok {
		t.Error("more epochs kept than the bound")
	}
	if _, ok := h.since(10, maxHistoryEpochs+10); !ok {
		t.Error("the latest epochs were not kept")
	}
}

// An operator's emitted rows record update pairs: a changed row is
// deleted and inserted again, an unchanged one is not, a removed one is
// deleted.
func TestEmittedRowsChanges(t *testing.T) {
	e := newEmittedRows(nil)
	e.cols = nil
	check := func(what string, want []int8) {
		t.Helper()
		got := e.diff
		e.changed, e.diff = nil, nil
		if len(got) != len(want) {
			t.Fatalf("%s: diffs %v, want %v", what, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: diffs %v, want %v", what, got, want)
			}
		}
	}
	e.set(1, 0, []any{int64(1)})
	check("first", []int8{ChangeInsert})
	e.set(1, 0, []any{int64(1)})
	check("unchanged", nil)
	e.set(1, 0, []any{int64(2)})
	check("changed", []int8{ChangeDelete, ChangeInsert})
	e.set(1, 0, []any{math.Copysign(0, -1)})
	e.set(1, 0, []any{0.0})
	check("-0 then 0", []int8{ChangeDelete, ChangeInsert, ChangeDelete, ChangeInsert})
	e.remove(1, 0)
	e.remove(1, 0)
	check("removed", []int8{ChangeDelete})
	e.set(2, 0, []any{"a"})
	e.set(2, 1, []any{"b"})
	e.removeWindow(2)
	check("window removed", []int8{ChangeInsert, ChangeInsert, ChangeDelete, ChangeDelete})
}
