package expr

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/types"
)

// Datum is one scalar value outside a column: constants, parameters, the
// boundary of row-at-a-time code. Its Go type follows the SQL type's Arrow
// representation:
//
//	nil                     NULL
//	bool                    bool
//	int64                   int2, int4, int8, oid and reg* types, date (days),
//	                        time / timestamp / timestamptz (microseconds)
//	float64                 float4, float8
//	string                  numeric (canonical text), text-like, json, jsonb
//	[]byte                  bytea, uuid (16 bytes)
//	arrow.MonthDayNanoInterval  interval
//	[]Datum                 arrays, and structs (one Datum per field; the
//	                        SQL type tells them apart)
type Datum = any

// DatumAt reads element i of arr as a Datum.
func DatumAt(arr arrow.Array, i int) Datum {
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Uint32:
		return int64(a.Value(i))
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return append([]byte(nil), a.Value(i)...)
	case *array.FixedSizeBinary:
		return append([]byte(nil), a.Value(i)...)
	case *array.Date32:
		return int64(a.Value(i))
	case *array.Time64:
		return int64(a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	case *array.MonthDayNanoInterval:
		return a.Value(i)
	case *array.List:
		start, end := a.ValueOffsets(i)
		vals := a.ListValues()
		out := make([]Datum, 0, end-start)
		for j := start; j < end; j++ {
			out = append(out, DatumAt(vals, int(j)))
		}
		return out
	case *array.Struct:
		out := make([]Datum, a.NumField())
		for j := range out {
			out[j] = DatumAt(a.Field(j), i)
		}
		return out
	case *array.Null:
		return nil
	}
	panic(fmt.Sprintf("expr: DatumAt on unsupported array %T", arr))
}

// AppendDatum appends d to a builder of t.Arrow(). d must have the Go type
// documented on Datum for t (the binder guarantees it).
func AppendDatum(b array.Builder, d Datum) {
	if d == nil {
		b.AppendNull()
		return
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(d.(bool))
	case *array.Int16Builder:
		bb.Append(int16(d.(int64)))
	case *array.Int32Builder:
		bb.Append(int32(d.(int64)))
	case *array.Int64Builder:
		bb.Append(d.(int64))
	case *array.Uint32Builder:
		bb.Append(uint32(d.(int64)))
	case *array.Float32Builder:
		bb.Append(float32(d.(float64)))
	case *array.Float64Builder:
		bb.Append(d.(float64))
	case *array.StringBuilder:
		bb.Append(d.(string))
	case *array.BinaryBuilder:
		bb.Append(d.([]byte))
	case *array.FixedSizeBinaryBuilder:
		bb.Append(d.([]byte))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(d.(int64)))
	case *array.Time64Builder:
		bb.Append(arrow.Time64(d.(int64)))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(d.(int64)))
	case *array.MonthDayNanoIntervalBuilder:
		bb.Append(d.(arrow.MonthDayNanoInterval))
	case *array.ListBuilder:
		bb.Append(true)
		vb := bb.ValueBuilder()
		for _, e := range d.([]Datum) {
			AppendDatum(vb, e)
		}
	case *array.StructBuilder:
		bb.Append(true)
		for j, e := range d.([]Datum) {
			AppendDatum(bb.FieldBuilder(j), e)
		}
	case *array.NullBuilder:
		bb.AppendNull()
	default:
		panic(fmt.Sprintf("expr: AppendDatum on unsupported builder %T", b))
	}
}

// NewBuilder returns a builder for values of t.
func NewBuilder(mem memory.Allocator, t types.T) array.Builder {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	return array.NewBuilder(mem, t.Arrow())
}

// Broadcast returns an array of n copies of d.
func Broadcast(mem memory.Allocator, t types.T, d Datum, n int) (arrow.Array, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if d == nil {
		return array.MakeArrayOfNull(mem, t.Arrow(), n), nil
	}
	b := NewBuilder(mem, t)
	defer b.Release()
	b.Reserve(n)
	// Constants are broadcast once per batch for every call that takes
	// one: the common shapes by a typed loop.
	switch bb := b.(type) {
	case *array.StringBuilder:
		if v, ok := d.(string); ok {
			if dt := t.Arrow(); dt.ID() == arrow.STRING && int64(n)*int64(len(v)) < math.MaxInt32 {
				return broadcastString(mem, dt, v, n), nil
			}
			bb.ReserveData(n * len(v))
			for i := 0; i < n; i++ {
				bb.Append(v)
			}
			return bb.NewArray(), nil
		}
	case *array.Int64Builder:
		if v, ok := d.(int64); ok {
			for i := 0; i < n; i++ {
				bb.UnsafeAppend(v)
			}
			return bb.NewArray(), nil
		}
	case *array.Int32Builder:
		if v, ok := d.(int64); ok {
			for i := 0; i < n; i++ {
				bb.UnsafeAppend(int32(v))
			}
			return bb.NewArray(), nil
		}
	}
	for i := 0; i < n; i++ {
		AppendDatum(b, d)
	}
	return b.NewArray(), nil
}

// ArrayFromDatums builds an array of t from datums.
func ArrayFromDatums(mem memory.Allocator, t types.T, ds []Datum) arrow.Array {
	b := NewBuilder(mem, t)
	defer b.Release()
	b.Reserve(len(ds))
	for _, d := range ds {
		AppendDatum(b, d)
	}
	return b.NewArray()
}

// broadcastString is n copies of v as a string array built from its
// buffers: offsets i·len(v) and the bytes copied by doubling.
func broadcastString(mem memory.Allocator, dt arrow.DataType, v string, n int) arrow.Array {
	offsets := memory.NewResizableBuffer(mem)
	offsets.Resize((n + 1) * arrow.Int32SizeBytes)
	o := arrow.Int32Traits.CastFromBytes(offsets.Bytes())
	for i := range o {
		o[i] = int32(i * len(v))
	}
	data := memory.NewResizableBuffer(mem)
	data.Resize(n * len(v))
	if b := data.Bytes(); len(b) > 0 {
		k := copy(b, v)
		for k < len(b) {
			k += copy(b[k:], b[:k])
		}
	}
	ad := array.NewData(dt, n, []*memory.Buffer{nil, offsets, data}, nil, 0, 0)
	arr := array.MakeFromData(ad)
	ad.Release()
	offsets.Release()
	data.Release()
	return arr
}
