package exec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/types"
)

// The current rows come out in (window, group) order, and publishing
// rebuilds only the segments that changed.
func TestCurrentRowsOrderAndReuse(t *testing.T) {
	cols := []planner.Column{{Name: "w", T: types.Int8}, {Name: "g", T: types.Int8}}
	schema := planner.Schema(cols)
	c := newCurrentRows()
	for _, w := range []int64{20, 10} {
		for _, g := range []int{segmentRows + 5, 3, 0, segmentRows} {
			c.set(w, g, []any{w, int64(g)})
		}
	}
	c.remove(10, 3)
	c.remove(10, 3) // absent: no effect
	if c.len() != 7 {
		t.Fatalf("len = %d, want 7", c.len())
	}
	first := c.batches(schema, cols)
	var got [][2]int64
	for _, b := range first {
		ws, gs := b.Column(0).(*array.Int64), b.Column(1).(*array.Int64)
		for i := 0; i < int(b.NumRows()); i++ {
			got = append(got, [2]int64{ws.Value(i), gs.Value(i)})
		}
	}
	want := [][2]int64{{10, 0}, {10, segmentRows}, {10, segmentRows + 5}, {20, 0}, {20, 3}, {20, segmentRows}, {20, segmentRows + 5}}
	if len(got) != len(want) {
		t.Fatalf("rows = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("rows = %v, want %v", got, want)
		}
	}
	// Change one row of window 20's second segment: only that batch is new.
	c.set(20, segmentRows, []any{int64(20), int64(-1)})
	second := c.batches(schema, cols)
	if len(second) != len(first) {
		t.Fatalf("%d batches, want %d", len(second), len(first))
	}
	for i := range first {
		changed := i == 3
		if (first[i] != second[i]) != changed {
			t.Errorf("batch %d rebuilt = %v, want %v", i, first[i] != second[i], changed)
		}
	}
	c.removeWindow(10)
	if c.len() != 4 || len(c.batches(schema, cols)) != 2 {
		t.Fatalf("after removing window 10: len %d", c.len())
	}
}
