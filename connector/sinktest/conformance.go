// Package sinktest is the conformance test of the connector.Sink
// contract. Every Sink implementation runs it from its own tests:
//
//	sinktest.Run(t, func(t *testing.T) sinktest.Fixture { ... })
//
// It checks what recovery relies on: an epoch counts as committed (its
// LastCommitted) only once its transaction committed and Committed was
// called, in epoch order, so that re-running the epochs after
// LastCommitted writes each epoch to the sink once.
package sinktest

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/state"
)

// Fixture is a fresh Sink under test and the store whose transactions its
// epochs commit in.
type Fixture struct {
	Sink  connector.Sink
	Store *state.Store
	// Reopen returns the sink as a restart would find it (a new value over
	// the same store); nil when the sink keeps nothing across a restart.
	Reopen func() connector.Sink
}

// Schema is the schema of the changes Run writes: one bigint column.
var Schema = arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)

func changes(vals ...int64) []arrow.RecordBatch {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return []arrow.RecordBatch{array.NewRecordBatch(Schema, []arrow.Array{b.NewArray()}, int64(len(vals)))}
}

// Run runs the conformance test on fixtures made by open (a new one for
// each subtest).
func Run(t *testing.T, open func(t *testing.T) Fixture) {
	last := func(t *testing.T, s connector.Sink) int64 {
		t.Helper()
		n, err := s.LastCommitted()
		if err != nil {
			t.Fatalf("LastCommitted: %v", err)
		}
		return n
	}

	t.Run("a new sink committed nothing", func(t *testing.T) {
		f := open(t)
		if n := last(t, f.Sink); n != 0 {
			t.Errorf("LastCommitted = %d", n)
		}
	})

	t.Run("epochs count once committed, in order", func(t *testing.T) {
		f := open(t)
		for epoch := int64(1); epoch <= 3; epoch++ {
			if err := connector.WriteEpoch(f.Store, f.Sink, epoch, changes(epoch, 10*epoch)); err != nil {
				t.Fatalf("epoch %d: %v", epoch, err)
			}
			if n := last(t, f.Sink); n != epoch {
				t.Fatalf("after epoch %d LastCommitted = %d", epoch, n)
			}
		}
		// An epoch with no changes is committed too.
		if err := connector.WriteEpoch(f.Store, f.Sink, 4, []arrow.RecordBatch{}); err != nil {
			t.Fatal(err)
		}
		if n := last(t, f.Sink); n != 4 {
			t.Errorf("after an empty epoch 4 LastCommitted = %d", n)
		}
		if f.Reopen != nil {
			if n := last(t, f.Reopen()); n != 4 {
				t.Errorf("after a restart LastCommitted = %d, want 4", n)
			}
		}
	})

	t.Run("an epoch whose transaction did not commit does not count", func(t *testing.T) {
		f := open(t)
		if err := connector.WriteEpoch(f.Store, f.Sink, 1, changes(1)); err != nil {
			t.Fatal(err)
		}
		tx := f.Store.Begin(true)
		if err := f.Sink.Write(tx, 2, changes(2)); err != nil {
			t.Fatal(err)
		}
		tx.Discard() // the epoch's commit failed: Committed is not called
		if n := last(t, f.Sink); n != 1 {
			t.Errorf("after a failed epoch 2 LastCommitted = %d, want 1", n)
		}
		if f.Reopen != nil {
			if n := last(t, f.Reopen()); n != 1 {
				t.Errorf("after a restart LastCommitted = %d, want 1", n)
			}
		}
		// The epoch is re-run, and written again.
		if err := connector.WriteEpoch(f.Store, f.Sink, 2, changes(2)); err != nil {
			t.Fatal(err)
		}
		if n := last(t, f.Sink); n != 2 {
			t.Errorf("after re-running epoch 2 LastCommitted = %d", n)
		}
	})
}
