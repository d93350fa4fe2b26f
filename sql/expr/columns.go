package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Column helpers shared by the typed kernels.

// intValues returns the values of an int16/int32/int64 column widened to
// int64 into dst (reused when large enough).
func intValues(arr arrow.Array, dst []int64) []int64 {
	n := arr.Len()
	if cap(dst) < n {
		dst = make([]int64, n)
	}
	dst = dst[:n]
	switch a := arr.(type) {
	case *array.Int16:
		for i, v := range a.Int16Values() {
			dst[i] = int64(v)
		}
	case *array.Int32:
		for i, v := range a.Int32Values() {
			dst[i] = int64(v)
		}
	case *array.Int64:
		copy(dst, a.Int64Values())
	case *array.Uint32:
		for i, v := range a.Uint32Values() {
			dst[i] = int64(v)
		}
	case *array.Date32:
		for i, v := range a.Date32Values() {
			dst[i] = int64(v)
		}
	case *array.Timestamp:
		for i, v := range a.TimestampValues() {
			dst[i] = int64(v)
		}
	case *array.Time64:
		for i, v := range a.Time64Values() {
			dst[i] = int64(v)
		}
	}
	return dst
}

// floatValues returns a float32/float64 column as float64.
func floatValues(arr arrow.Array, dst []float64) []float64 {
	n := arr.Len()
	switch a := arr.(type) {
	case *array.Float64:
		return a.Float64Values()
	case *array.Float32:
		if cap(dst) < n {
			dst = make([]float64, n)
		}
		dst = dst[:n]
		for i, v := range a.Float32Values() {
			dst[i] = float64(v)
		}
	}
	return dst
}

// unionValidity returns a validity bitmap that is the AND of the inputs'
// validity, or nil when no input has nulls.
func unionValidity(mem memory.Allocator, n int, args ...arrow.Array) *memory.Buffer {
	any := false
	for _, a := range args {
		if a.NullN() > 0 {
			any = true
		}
	}
	if !any {
		return nil
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := buf.Bytes()
	bitutil.SetBitsTo(bits, 0, int64(n), true)
	for _, a := range args {
		if a.NullN() == 0 {
			continue
		}
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				bitutil.ClearBit(bits, i)
			}
		}
	}
	return buf
}

// boolResult builds a Boolean array from a bitmap of values and a validity.
func boolResult(mem memory.Allocator, n int, values *memory.Buffer, valid *memory.Buffer) arrow.Array {
	nulls := 0
	if valid != nil {
		nulls = n - bitutil.CountSetBits(valid.Bytes(), 0, n)
	}
	data := array.NewData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{valid, values}, nil, nulls, 0)
	defer data.Release()
	if valid != nil {
		valid.Release()
	}
	values.Release()
	return array.MakeFromData(data)
}

func newBitmap(mem memory.Allocator, n int) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	b := buf.Bytes()
	for i := range b {
		b[i] = 0
	}
	return buf
}

// primitiveResult wraps a value buffer of fixed-width type dt into an array.
func primitiveResult(dt arrow.DataType, n int, values *memory.Buffer, valid *memory.Buffer) arrow.Array {
	nulls := 0
	if valid != nil {
		nulls = n - bitutil.CountSetBits(valid.Bytes(), 0, n)
	}
	data := array.NewData(dt, n, []*memory.Buffer{valid, values}, nil, nulls, 0)
	defer data.Release()
	if valid != nil {
		valid.Release()
	}
	values.Release()
	return array.MakeFromData(data)
}

func newValueBuffer(mem memory.Allocator, bytes int) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(bytes)
	return buf
}
