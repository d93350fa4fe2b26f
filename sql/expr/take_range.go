package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ascendingRun is whether idx is lo, lo+1, ..., lo+len(idx)-1 (and lo).
func ascendingRun(idx []int) (int, bool) {
	if len(idx) == 0 {
		return 0, false
	}
	lo := idx[0]
	for k, i := range idx {
		if i != lo+k {
			return 0, false
		}
	}
	return lo, true
}

// SliceOrTakeRows is rows idx of in: a slice of in, sharing its columns,
// when idx is one ascending run (the rows of one window of a batch of
// time-ordered events), and TakeRows' copy otherwise. A slice keeps all
// of in's buffers alive, so it is for batches used and dropped at once,
// not for rows kept as state (TakeRows copies only the rows it keeps).
func SliceOrTakeRows(in arrow.RecordBatch, idx []int) arrow.RecordBatch {
	if lo, ok := ascendingRun(idx); ok {
		return in.NewSlice(int64(lo), int64(lo+len(idx)))
	}
	return TakeRows(in, idx)
}

// SliceOrTakeArray is SliceOrTakeRows for one column.
func SliceOrTakeArray(arr arrow.Array, idx []int) arrow.Array {
	if lo, ok := ascendingRun(idx); ok {
		return array.NewSlice(arr, int64(lo), int64(lo+len(idx)))
	}
	return TakeArray(arr, idx)
}
