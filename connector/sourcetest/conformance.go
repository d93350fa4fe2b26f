// Package sourcetest is the conformance test of the connector.Source
// contract. Every Source implementation runs it from its own tests:
//
//	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture { ... })
//
// It checks what exactly-once recovery relies on: offsets are positions
// that keep their meaning as the input grows (and shrinks at its start),
// bounded reads concatenate to one unbounded read, and re-reading from any
// offset a Read returned gives the same rows in the same batches.
package sourcetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/connector"
)

// Fixture is a fresh Source under test and the means to change its input.
type Fixture struct {
	Source connector.Source
	// Append adds one batch (of Schema) at the end of the source's input,
	// readable when it returns. nil: the input is fixed (a generator) and
	// holds at least 8 batches already.
	Append func(arrow.RecordBatch) error
	// Trim removes the input before offset `before` (retention). nil: the
	// source never removes input.
	Trim func(before int64) error
}

// Schema is the schema of the batches Run appends: one bigint column.
var Schema = arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)

// batch returns a batch of rows rows numbered from first.
func batch(first, rows int) arrow.RecordBatch {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := 0; i < rows; i++ {
		b.Append(int64(first + i))
	}
	return array.NewRecordBatch(Schema, []arrow.Array{b.NewArray()}, int64(rows))
}

// Run runs the conformance test on fixtures made by open (a new one for
// each subtest).
func Run(t *testing.T, open func(t *testing.T) Fixture) {
	// fill gives the fixture's input 10 batches of 1..10 rows (when it can
	// be appended to) and returns the whole input as one unbounded read.
	fill := func(t *testing.T, f Fixture) connector.Read {
		t.Helper()
		if f.Append != nil {
			n := 0
			for i := 1; i <= 10; i++ {
				if err := f.Append(batch(n, i)); err != nil {
					t.Fatalf("Append: %v", err)
				}
				n += i
			}
		}
		start := mustStart(t, f.Source)
		all := mustRead(t, f.Source, start, 0)
		if all.From != start || all.Next != all.From+int64(len(all.Batches)) || all.Backlog != 0 {
			t.Fatalf("unbounded Read from Start %d: From %d, Next %d, %d batches, backlog %d", start, all.From, all.Next, len(all.Batches), all.Backlog)
		}
		if len(all.Batches) < 8 {
			t.Fatalf("the input holds %d batches; the test needs at least 8", len(all.Batches))
		}
		return all
	}

	t.Run("empty", func(t *testing.T) {
		f := open(t)
		if f.Append == nil {
			t.Skip("fixed input")
		}
		start := mustStart(t, f.Source)
		rd := mustRead(t, f.Source, start, 0)
		if len(rd.Batches) != 0 || rd.From != start || rd.Next != start || rd.Backlog != 0 {
			t.Errorf("empty source read: %s", describe(rd))
		}
	})

	t.Run("bounded reads concatenate to the unbounded read", func(t *testing.T) {
		f := open(t)
		all := fill(t, f)
		for _, limit := range []int{1, 3, 7} {
			var got []arrow.RecordBatch
			off := all.From
			for off < all.Next {
				rd := mustRead(t, f.Source, off, limit)
				if rd.From != off {
					t.Fatalf("limit %d: Read(%d) From = %d", limit, off, rd.From)
				}
				if len(rd.Batches) == 0 || len(rd.Batches) > limit {
					t.Fatalf("limit %d: Read(%d) returned %d batches", limit, off, len(rd.Batches))
				}
				if rd.Next != rd.From+int64(len(rd.Batches)) {
					t.Fatalf("limit %d: Next %d is not From %d + %d batches", limit, rd.Next, rd.From, len(rd.Batches))
				}
				if want := rowsOf(all.Batches[rd.Next-all.From:]); rd.Backlog != want {
					t.Errorf("limit %d: Read(%d) backlog %d, want the %d rows after Next", limit, off, rd.Backlog, want)
				}
				got = append(got, rd.Batches...)
				off = rd.Next
			}
			sameBatches(t, fmt.Sprintf("limit %d", limit), got, all.Batches)
		}
	})

	t.Run("re-reading from a committed offset returns the same rows", func(t *testing.T) {
		f := open(t)
		all := fill(t, f)
		// The offsets an epoch could have committed: every Next of a
		// bounded read.
		offsets := []int64{all.From}
		for off := all.From; off < all.Next; {
			rd := mustRead(t, f.Source, off, 2)
			off = rd.Next
			offsets = append(offsets, off)
		}
		for _, off := range offsets {
			rd := mustRead(t, f.Source, off, 0)
			if rd.From != off {
				t.Fatalf("Read(%d) From = %d", off, rd.From)
			}
			sameBatches(t, fmt.Sprintf("from %d", off), rd.Batches, all.Batches[off-all.From:])
		}
		if f.Append == nil {
			return
		}
		// More input does not change what an offset means.
		if err := f.Append(batch(1000, 4)); err != nil {
			t.Fatal(err)
		}
		for _, off := range offsets {
			rd := mustRead(t, f.Source, off, 0)
			want := all.Batches[off-all.From:]
			if len(rd.Batches) != len(want)+1 {
				t.Fatalf("after an append, Read(%d) gave %d batches, want %d", off, len(rd.Batches), len(want)+1)
			}
			sameBatches(t, fmt.Sprintf("from %d after an append", off), rd.Batches[:len(want)], want)
			sameBatches(t, "the appended batch", rd.Batches[len(want):], []arrow.RecordBatch{batch(1000, 4)})
		}
	})

	t.Run("reading past the end", func(t *testing.T) {
		f := open(t)
		all := fill(t, f)
		rd := mustRead(t, f.Source, all.Next+5, 0)
		if len(rd.Batches) != 0 || rd.From != all.Next || rd.Next != all.Next || rd.Backlog != 0 {
			t.Errorf("Read past the end (%d): %s, want From = Next = %d", all.Next+5, describe(rd), all.Next)
		}
	})

	t.Run("trimmed input", func(t *testing.T) {
		f := open(t)
		if f.Trim == nil {
			t.Skip("the source never removes input")
		}
		all := fill(t, f)
		cut := all.From + 4
		if err := f.Trim(cut); err != nil {
			t.Fatal(err)
		}
		if got := mustStart(t, f.Source); got != cut {
			t.Fatalf("Start after trimming before %d = %d", cut, got)
		}
		rd := mustRead(t, f.Source, all.From, 0)
		if rd.From != cut {
			t.Fatalf("Read(%d) of trimmed input: From %d, want Start %d", all.From, rd.From, cut)
		}
		sameBatches(t, "after the trim", rd.Batches, all.Batches[cut-all.From:])
		// Offsets after the cut keep their meaning.
		rd = mustRead(t, f.Source, cut+2, 0)
		if rd.From != cut+2 {
			t.Fatalf("Read(%d) after a trim: From %d", cut+2, rd.From)
		}
		sameBatches(t, "from after the cut", rd.Batches, all.Batches[cut+2-all.From:])
	})
}

func mustStart(t *testing.T, s connector.Source) int64 {
	t.Helper()
	start, err := s.Start()
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return start
}

func mustRead(t *testing.T, s connector.Source, from int64, limit int) connector.Read {
	t.Helper()
	rd, err := s.Read(context.Background(), from, limit)
	if err != nil {
		t.Fatalf("Read(%d, %d): %v", from, limit, err)
	}
	return rd
}

func rowsOf(bs []arrow.RecordBatch) int64 {
	var n int64
	for _, b := range bs {
		n += b.NumRows()
	}
	return n
}

func sameBatches(t *testing.T, what string, got, want []arrow.RecordBatch) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d batches, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !array.RecordEqual(got[i], want[i]) {
			t.Fatalf("%s: batch %d differs:\n got %v\nwant %v", what, i, got[i], want[i])
		}
	}
}

func describe(rd connector.Read) string {
	return fmt.Sprintf("%d batches, From %d, Next %d, backlog %d", len(rd.Batches), rd.From, rd.Next, rd.Backlog)
}
