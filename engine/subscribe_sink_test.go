package engine

import (
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/connector/sinktest"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
	"github.com/weir-sql/weir/wire"
)

func newSubscribeSink() *subscribeSink {
	return &subscribeSink{cols: []wire.Column{{Name: "weir_epoch", Type: types.Int8}, {Name: "weir_diff", Type: types.Int4},
		{Name: "n", Type: types.Int8}}, held: map[arrow.RecordBatch]map[string]*heldRow{},
		fs: types.FormatSettings{Location: time.UTC, ExtraFloatDigits: 1}}
}

// SUBSCRIBE's sink keeps the Sink contract; it holds nothing across a
// restart (a client subscribes again).
func TestSubscribeSinkConformance(t *testing.T) {
	sinktest.Run(t, func(t *testing.T) sinktest.Fixture {
		st, err := state.Open(t.TempDir(), state.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return sinktest.Fixture{Sink: newSubscribeSink(), Store: st}
	})
}

// The change of an epoch is the diff of the table's contents against what
// the client holds: deletions, then insertions, each with the epoch.
func TestSubscribeSinkDiff(t *testing.T) {
	s := newSubscribeSink()
	batch := func(vals ...int64) arrow.RecordBatch {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		defer b.Release()
		b.AppendValues(vals, nil)
		return array.NewRecordBatch(sinktest.Schema, []arrow.Array{b.NewArray()}, int64(len(vals)))
	}
	step := func(epoch int64, contents ...arrow.RecordBatch) []string {
		t.Helper()
		if err := s.Write(nil, epoch, contents); err != nil {
			t.Fatal(err)
		}
		if err := s.Committed(epoch); err != nil {
			t.Fatal(err)
		}
		var out []string
		if b := s.take(); b != nil {
			for i := 0; i < int(b.NumRows()); i++ {
				out = append(out, fmt.Sprintf("%s %s %s", b.Column(0).ValueStr(i), b.Column(1).ValueStr(i), b.Column(2).ValueStr(i)))
			}
		}
		sort.Strings(out)
		return out
	}
	first := batch(1, 2)
	if got := step(1, first); !slices.Equal(got, []string{"1 1 1", "1 1 2"}) {
		t.Errorf("epoch 1: %q", got)
	}
	// Epoch 2 replaces 1 by 3; epoch 3 holds the same rows (one batch the
	// same, one rebuilt), so it changes nothing.
	kept := batch(2)
	if got := step(2, kept, batch(3)); !slices.Equal(got, []string{"2 -1 1", "2 1 3"}) {
		t.Errorf("epoch 2: %q", got)
	}
	if got := step(3, kept, batch(3)); len(got) != 0 {
		t.Errorf("epoch 3 changed nothing, got %q", got)
	}
	if n, _ := s.LastCommitted(); n != 3 {
		t.Errorf("LastCommitted = %d", n)
	}
}
