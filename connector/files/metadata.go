package files

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/types"
)

// The _metadata column: a struct of where each row came from, the same
// for every row of a file. It is a weir struct type (types.StructOf), so
// its Arrow form is the one the engine reads _metadata.file_path from.

// MetadataType is the type of the _metadata column.
var MetadataType = types.StructOf([]types.StructField{
	{Name: "file_path", Type: types.Text},
	{Name: "file_name", Type: types.Text},
	{Name: "file_size", Type: types.Int8},
	{Name: "file_modification_time", Type: types.TimestampTZ},
})

// ArrowSchema is the Arrow schema of s's rows: the data columns in their
// weir types' Arrow representations, then the rescued column (jsonb, held
// as a string) when s.Rescued != "", then _metadata.
func ArrowSchema(s Schema) *arrow.Schema {
	fs := make([]arrow.Field, 0, len(s.Columns)+2)
	for _, c := range s.Columns {
		fs = append(fs, arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: true})
	}
	if s.Rescued != "" {
		fs = append(fs, arrow.Field{Name: s.Rescued, Type: types.JSONB.Arrow(), Nullable: true})
	}
	fs = append(fs, arrow.Field{Name: MetadataColumn, Type: MetadataType.Arrow(), Nullable: false})
	return arrow.NewSchema(fs, nil)
}

// newMetadataArray builds a _metadata column of n rows, every one info.
// A file's batches share one such array, sliced to their length. Its
// buffers are written whole (the strings repeated, the offsets counted
// up) rather than appended row by row: every row of every file has one.
func newMetadataArray(info FileInfo, n int) arrow.Array {
	st := MetadataType.Arrow().(*arrow.StructType)
	children := []arrow.ArrayData{
		repeatedString(st.Field(0).Type, info.Path, n),
		repeatedString(st.Field(1).Type, info.Name, n),
		repeatedFixed(st.Field(2).Type, info.Size, n),
		repeatedFixed(st.Field(3).Type, info.Modified.UnixMicro(), n),
	}
	data := array.NewData(st, n, []*memory.Buffer{nil}, children, 0, 0)
	for _, c := range children {
		c.Release()
	}
	defer data.Release()
	return array.MakeFromData(data)
}

// repeatedString is the data of a string array of n rows, each s.
func repeatedString(t arrow.DataType, s string, n int) arrow.ArrayData {
	offsets := make([]int32, n+1)
	for i := range offsets {
		offsets[i] = int32(i * len(s))
	}
	return array.NewData(t, n, []*memory.Buffer{nil,
		memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets)),
		memory.NewBufferBytes(bytes.Repeat([]byte(s), n))}, nil, 0, 0)
}

// repeatedFixed is the data of an array of 64-bit values (bigint,
// timestamp) of n rows, each v.
func repeatedFixed(t arrow.DataType, v int64, n int) arrow.ArrayData {
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = v
	}
	return array.NewData(t, n, []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(vals))}, nil, 0, 0)
}
