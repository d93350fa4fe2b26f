package state

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Chunks written under an older column list of their relation. A
// streaming table over a files source gains columns when the source's
// schema evolves (a column is added before the rescued-data column, not
// only at the end), and its chunks written before keep the old list;
// a streaming table reading it keeps its own, narrower list. Such a chunk
// is read by column name: a column it lacks reads as NULL, a column the
// reader does not know is left out. Chunks of the current list take the
// positional path (ScanTableFrom), untouched.

// columnsByName maps each column of want to its index in got by name (-1:
// got lacks it), and reports false when a column of both has another
// type, or when no column matches (the chunk is not of this relation).
func columnsByName(want, got *arrow.Schema) ([]int, bool) {
	m := make([]int, want.NumFields())
	found := 0
	for i := 0; i < want.NumFields(); i++ {
		f := want.Field(i)
		m[i] = -1
		idx := got.FieldIndices(f.Name)
		if len(idx) != 1 {
			continue
		}
		if !arrow.TypeEqual(got.Field(idx[0]).Type, f.Type) {
			return nil, false
		}
		m[i] = idx[0]
		found++
	}
	return m, found > 0
}

// fitByName is b with want's columns, by the mapping columnsByName made.
// The caller owns the returned batch.
func fitByName(want *arrow.Schema, b arrow.RecordBatch, m []int) arrow.RecordBatch {
	cols := make([]arrow.Array, len(m))
	for i, j := range m {
		if j < 0 {
			cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, want.Field(i).Type, int(b.NumRows()))
			continue
		}
		cols[i] = b.Column(j)
	}
	out := array.NewRecordBatch(want, cols, b.NumRows())
	for i, j := range m {
		if j < 0 {
			cols[i].Release()
		}
	}
	return out
}
