package files

import (
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
// A file's batches share one such array, sliced to their length.
func newMetadataArray(info FileInfo, n int) arrow.Array {
	b := array.NewStructBuilder(memory.DefaultAllocator, MetadataType.Arrow().(*arrow.StructType))
	defer b.Release()
	b.Reserve(n)
	path := b.FieldBuilder(0).(*array.StringBuilder)
	name := b.FieldBuilder(1).(*array.StringBuilder)
	size := b.FieldBuilder(2).(*array.Int64Builder)
	mod := b.FieldBuilder(3).(*array.TimestampBuilder)
	path.ReserveData(n * len(info.Path))
	name.ReserveData(n * len(info.Name))
	path.Reserve(n)
	name.Reserve(n)
	size.Reserve(n)
	mod.Reserve(n)
	ts := arrow.Timestamp(info.Modified.UnixMicro())
	for i := 0; i < n; i++ {
		b.Append(true)
		path.Append(info.Path)
		name.Append(info.Name)
		size.Append(info.Size)
		mod.Append(ts)
	}
	return b.NewArray()
}
