package tableout

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/sinktest"
	"github.com/weir-sql/weir/state"
)

var schema = arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)

func rows(vals ...int64) arrow.RecordBatch {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return array.NewRecordBatch(schema, []arrow.Array{b.NewArray()}, int64(len(vals)))
}

func TestTableOutputSink(t *testing.T) {
	st, err := state.Open(t.TempDir(), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const table = 77
	s := New(st, table)
	last := func() int64 {
		t.Helper()
		n, err := s.LastCommitted()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if last() != 0 {
		t.Fatalf("a new sink committed epoch %d", last())
	}
	// Staged in a transaction that does not commit: nothing is there.
	tx := st.Begin(true)
	if err := s.Write(tx, 1, []arrow.RecordBatch{rows(1, 2)}); err != nil {
		t.Fatal(err)
	}
	tx.Discard()
	if last() != 0 {
		t.Fatalf("a discarded epoch counts: %d", last())
	}
	for epoch, out := range [][]arrow.RecordBatch{{rows(1, 2)}, {}, nil, {rows(3)}} {
		if err := connector.WriteEpoch(st, s, int64(epoch+1), out); err != nil {
			t.Fatal(err)
		}
	}
	// Epoch 3 had no stored output at all (nil): progress stays at 2 until 4.
	if last() != 4 {
		t.Errorf("LastCommitted = %d, want 4", last())
	}
	got, err := st.ScanTable(table, schema)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, b := range got {
		n += b.NumRows()
	}
	if len(got) != 2 || n != 3 {
		t.Errorf("stored %d batches, %d rows; want 2, 3", len(got), n)
	}
	tx = st.Begin(true)
	if err := s.Drop(tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if last() != 0 {
		t.Errorf("after Drop LastCommitted = %d", last())
	}
	if got, _ := st.ScanTable(table, schema); len(got) != 0 {
		t.Errorf("after Drop %d batches remain", len(got))
	}
}

func TestTableOutputConformance(t *testing.T) {
	sinktest.Run(t, func(t *testing.T) sinktest.Fixture {
		st, err := state.Open(t.TempDir(), state.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return sinktest.Fixture{Sink: New(st, 78), Store: st, Reopen: func() connector.Sink { return New(st, 78) }}
	})
}
