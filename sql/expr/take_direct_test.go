package expr

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// takeByDatums is TakeArray's generic path: one Datum per row.
func takeByDatums(arr arrow.Array, idx []int) arrow.Array {
	b := array.NewBuilder(memory.DefaultAllocator, arr.DataType())
	defer b.Release()
	for _, i := range idx {
		AppendDatum(b, DatumAt(arr, i))
	}
	return b.NewArray()
}

// randomTakeDatum is a value of dt, NULL about one time in five.
func randomTakeDatum(r *rand.Rand, dt arrow.DataType) Datum {
	if r.Intn(5) == 0 {
		return nil
	}
	switch t := dt.(type) {
	case *arrow.StringType:
		return string(rune('a'+r.Intn(26))) + "/part-" + string(rune('0'+r.Intn(10)))
	case *arrow.Int64Type, *arrow.TimestampType:
		return r.Int63n(1<<40) - 1<<39
	case *arrow.Int32Type, *arrow.Date32Type:
		return int64(r.Int31n(1<<20) - 1<<19)
	case *arrow.Float64Type:
		return r.NormFloat64()
	case *arrow.BooleanType:
		return r.Intn(2) == 0
	case *arrow.BinaryType:
		b := make([]byte, r.Intn(6))
		r.Read(b)
		return b
	case *arrow.FixedSizeBinaryType:
		b := make([]byte, t.ByteWidth)
		r.Read(b)
		return b
	case *arrow.ListType:
		out := make([]Datum, r.Intn(4))
		for i := range out {
			out[i] = randomTakeDatum(r, t.Elem())
		}
		return out
	case *arrow.StructType:
		out := make([]Datum, t.NumFields())
		for i := range out {
			out[i] = randomTakeDatum(r, t.Field(i).Type)
		}
		return out
	}
	panic("randomTakeDatum: " + dt.String())
}

// TestTakeDirectMatchesDatums: the builder-free paths give the rows the
// Datum path gives, over random columns with NULLs, sliced to an offset.
func TestTakeDirectMatchesDatums(t *testing.T) {
	tstz := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	metadata := arrow.StructOf(
		arrow.Field{Name: "file_path", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "file_name", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "file_size", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "file_modification_time", Type: tstz, Nullable: true},
	)
	shapes := []arrow.DataType{
		arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64,
		arrow.BinaryTypes.String, arrow.BinaryTypes.Binary,
		arrow.FixedWidthTypes.Date32, tstz, &arrow.FixedSizeBinaryType{ByteWidth: 16},
		metadata,
		arrow.ListOf(arrow.PrimitiveTypes.Int64),
		arrow.ListOf(arrow.BinaryTypes.String),
		arrow.StructOf(
			arrow.Field{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
			arrow.Field{Name: "meta", Type: metadata, Nullable: true},
			arrow.Field{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		),
	}
	r := rand.New(rand.NewSource(11))
	for _, dt := range shapes {
		for trial := 0; trial < 20; trial++ {
			n := 1 + r.Intn(200)
			b := array.NewBuilder(memory.DefaultAllocator, dt)
			for i := 0; i < n; i++ {
				AppendDatum(b, randomTakeDatum(r, dt))
			}
			full := b.NewArray()
			b.Release()
			lo := r.Intn(n)
			hi := lo + r.Intn(n-lo+1)
			arr := array.NewSlice(full, int64(lo), int64(hi))
			var idx []int
			if arr.Len() > 0 {
				for k := r.Intn(3 * arr.Len()); k > 0; k-- {
					idx = append(idx, r.Intn(arr.Len()))
				}
			}
			got, want := TakeArray(arr, idx), takeByDatums(arr, idx)
			if got.Len() != len(idx) || got.NullN() != want.NullN() || !arrow.TypeEqual(got.DataType(), dt) {
				t.Fatalf("%s: len %d nulls %d type %s, want len %d nulls %d", dt, got.Len(), got.NullN(), got.DataType(), len(idx), want.NullN())
			}
			for k := range idx {
				if g, w := DatumAt(got, k), DatumAt(want, k); !reflect.DeepEqual(g, w) {
					t.Fatalf("%s row %d (input row %d of a slice at %d): %#v, want %#v", dt, k, idx[k], lo, g, w)
				}
			}
		}
	}
}

// TestSliceOrTakeRows: one ascending run is a slice sharing the column's
// buffers; anything else is TakeRows' copy; both give the rows asked for.
func TestSliceOrTakeRows(t *testing.T) {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	for i := int64(0); i < 10; i++ {
		if i == 4 {
			b.AppendNull()
		} else {
			b.Append(i * 10)
		}
	}
	col := b.NewArray()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	in := array.NewRecordBatch(schema, []arrow.Array{col}, 10)
	for _, idx := range [][]int{{3, 4, 5, 6}, {0}, {9}, {2, 3, 5}, {5, 4}, {1, 1}, {}} {
		out := SliceOrTakeRows(in, idx)
		_, run := ascendingRun(idx)
		shared := out.Column(0).Data().Buffers()[1] == col.Data().Buffers()[1]
		if shared != run || int(out.NumRows()) != len(idx) {
			t.Fatalf("%v: shared %v rows %d", idx, shared, out.NumRows())
		}
		for k, i := range idx {
			if g, w := DatumAt(out.Column(0), k), DatumAt(col, i); !reflect.DeepEqual(g, w) {
				t.Fatalf("%v row %d: %v, want %v", idx, k, g, w)
			}
			if g := DatumAt(SliceOrTakeArray(col, idx), k); !reflect.DeepEqual(g, DatumAt(col, i)) {
				t.Fatalf("%v row %d of the array: %v", idx, k, g)
			}
		}
	}
}
