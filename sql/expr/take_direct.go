package expr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// takeDirect gathers rows idx of arr without a builder, for the types
// whose layout is a value buffer plus a validity bitmap (fixed-width
// values gathered slice to slice), strings and binaries (offsets and one
// data buffer sized first) and for structs and lists (whose
// children are taken by TakeArray, so by these fast paths in turn). A
// builder would reserve its buffers and append row by row through an
// interface; a struct's builder reserves every child as well, and a
// struct or list otherwise went through a Datum per row (the files
// source's _metadata struct rides along every row of a windowed
// aggregation). ok is false for the other types and an empty idx.
func takeDirect(arr arrow.Array, idx []int) (out arrow.Array, ok bool) {
	if len(idx) == 0 {
		return nil, false
	}
	switch a := arr.(type) {
	case *array.Int64:
		return takeFixed(a, a.Int64Values(), arrow.Int64Traits.CastToBytes, idx), true
	case *array.Int32:
		return takeFixed(a, a.Int32Values(), arrow.Int32Traits.CastToBytes, idx), true
	case *array.Int16:
		return takeFixed(a, a.Int16Values(), arrow.Int16Traits.CastToBytes, idx), true
	case *array.Uint32:
		return takeFixed(a, a.Uint32Values(), arrow.Uint32Traits.CastToBytes, idx), true
	case *array.Float64:
		return takeFixed(a, a.Float64Values(), arrow.Float64Traits.CastToBytes, idx), true
	case *array.Float32:
		return takeFixed(a, a.Float32Values(), arrow.Float32Traits.CastToBytes, idx), true
	case *array.Date32:
		return takeFixed(a, a.Date32Values(), arrow.Date32Traits.CastToBytes, idx), true
	case *array.Time64:
		return takeFixed(a, a.Time64Values(), arrow.Time64Traits.CastToBytes, idx), true
	case *array.Timestamp:
		return takeFixed(a, a.TimestampValues(), arrow.TimestampTraits.CastToBytes, idx), true
	case *array.MonthDayNanoInterval:
		return takeFixed(a, a.MonthDayNanoIntervalValues(), arrow.MonthDayNanoIntervalTraits.CastToBytes, idx), true
	case *array.FixedSizeBinary:
		return takeFixedSizeBinary(a, idx), true
	case *array.String:
		return takeVarBytesDirect(a, idx)
	case *array.Binary:
		return takeVarBytesDirect(a, idx)
	case *array.Struct:
		return takeStruct(a, idx), true
	case *array.List:
		return takeList(a, idx), true
	}
	return nil, false
}

// takeValidity is the validity bitmap of rows idx of a (nil when a has
// no nulls) and the number of nulls among them.
func takeValidity(a arrow.Array, idx []int) (*memory.Buffer, int) {
	if a.NullN() == 0 {
		return nil, 0
	}
	bm := make([]byte, bitutil.BytesForBits(int64(len(idx))))
	src, off := a.NullBitmapBytes(), a.Data().Offset()
	nulls := 0
	for k, i := range idx {
		if bitutil.BitIsSet(src, off+i) {
			bm[k>>3] |= bitutil.BitMask[k&7]
		} else {
			nulls++
		}
	}
	return memory.NewBufferBytes(bm), nulls
}

// fromData is the array over data, which it takes over.
func fromData(data *array.Data) arrow.Array {
	defer data.Release()
	return array.MakeFromData(data)
}

// takeFixed gathers rows idx of a, whose values (from a's offset on) are
// vals.
func takeFixed[T any](a arrow.Array, vals []T, toBytes func([]T) []byte, idx []int) arrow.Array {
	out := make([]T, len(idx))
	for k, i := range idx {
		out[k] = vals[i]
	}
	bitmap, nulls := takeValidity(a, idx)
	return fromData(array.NewData(a.DataType(), len(idx),
		[]*memory.Buffer{bitmap, memory.NewBufferBytes(toBytes(out))}, nil, nulls, 0))
}

func takeFixedSizeBinary(a *array.FixedSizeBinary, idx []int) arrow.Array {
	w := a.DataType().(*arrow.FixedSizeBinaryType).ByteWidth
	out := make([]byte, len(idx)*w)
	for k, i := range idx {
		copy(out[k*w:(k+1)*w], a.Value(i))
	}
	bitmap, nulls := takeValidity(a, idx)
	return fromData(array.NewData(a.DataType(), len(idx),
		[]*memory.Buffer{bitmap, memory.NewBufferBytes(out)}, nil, nulls, 0))
}

// takeStruct takes each field of a at idx and puts them together under
// the validity of rows idx. Struct.Field is already sliced to a's offset.
func takeStruct(a *array.Struct, idx []int) arrow.Array {
	children := make([]arrow.ArrayData, a.NumField())
	for f := range children {
		c := TakeArray(a.Field(f), idx)
		children[f] = c.Data()
		defer c.Release()
	}
	bitmap, nulls := takeValidity(a, idx)
	return fromData(array.NewData(a.DataType(), len(idx), []*memory.Buffer{bitmap}, children, nulls, 0))
}

// takeList takes the elements of rows idx of a as one take of its values
// and new offsets over them.
func takeList(a *array.List, idx []int) arrow.Array {
	offsets := make([]int32, len(idx)+1)
	total := 0
	for _, i := range idx {
		if a.IsValid(i) {
			s, e := a.ValueOffsets(i)
			total += int(e - s)
		}
	}
	elems := make([]int, 0, total)
	for k, i := range idx {
		if a.IsValid(i) {
			s, e := a.ValueOffsets(i)
			for j := s; j < e; j++ {
				elems = append(elems, int(j))
			}
		}
		offsets[k+1] = int32(len(elems))
	}
	vals := TakeArray(a.ListValues(), elems)
	defer vals.Release()
	bitmap, nulls := takeValidity(a, idx)
	return fromData(array.NewData(a.DataType(), len(idx),
		[]*memory.Buffer{bitmap, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets))},
		[]arrow.ArrayData{vals.Data()}, nulls, 0))
}

// varBytesArray is a string or binary array: offsets (from the array's
// offset on, one more than its length) into its value bytes, which start
// at the first offset.
type varBytesArray interface {
	arrow.Array
	ValueOffsets() []int32
	ValueBytes() []byte
}

// takeVarBytesDirect gathers rows idx of a into one data buffer sized
// before the first copy, with the offsets written as it goes. ok is false
// when the rows' bytes would overflow 32-bit offsets.
func takeVarBytesDirect(a varBytesArray, idx []int) (arrow.Array, bool) {
	offs, data := a.ValueOffsets(), a.ValueBytes()
	base := offs[0]
	total := 0
	for _, i := range idx {
		total += int(offs[i+1] - offs[i])
	}
	if total > math.MaxInt32 {
		return nil, false
	}
	out := make([]byte, total)
	newOffs := make([]int32, len(idx)+1)
	pos := 0
	for k, i := range idx {
		pos += copy(out[pos:], data[offs[i]-base:offs[i+1]-base])
		newOffs[k+1] = int32(pos)
	}
	bitmap, nulls := takeValidity(a, idx)
	return fromData(array.NewData(a.DataType(), len(idx), []*memory.Buffer{bitmap,
		memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(newOffs)), memory.NewBufferBytes(out)}, nil, nulls, 0)), true
}
