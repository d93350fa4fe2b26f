package wire

import (
	"io"
	"net"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/sql/types"
)

// Encoding a row must not allocate: the value buffer, the value slices and
// the DataRow message are reused for every row.
func TestDataRowDoesNotAllocate(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	c := newConn(NewServer(nil, Config{}), a)
	c.be = pgproto3.NewBackend(nil, io.Discard)

	ids := array.NewInt32Builder(memory.DefaultAllocator)
	names := array.NewStringBuilder(memory.DefaultAllocator)
	for i := range 64 {
		ids.Append(int32(i))
		if i%3 == 0 {
			names.AppendNull()
		} else {
			names.Append("some text value")
		}
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int32}, {Name: "name", Type: arrow.BinaryTypes.String}}, nil)
	batch := array.NewRecordBatch(schema, []arrow.Array{ids.NewArray(), names.NewArray()}, 64)
	cur := &cursor{
		cols:    []Column{{Name: "id", Type: types.Int4}, {Name: "name", Type: types.Text}},
		formats: []int16{0, 0},
		fs:      types.DefaultFormat,
		batch:   batch,
	}
	row := 0
	allocs := testing.AllocsPerRun(2000, func() {
		if err := c.sendDataRow(cur, row%64); err != nil {
			t.Fatal(err)
		}
		row++
	})
	// pgproto3 shrinks its output buffer after each flush, so regrowing it
	// costs a few allocations per 64 KiB written; nothing per row.
	if allocs > 0.1 {
		t.Fatalf("%.2f allocations per row", allocs)
	}
}
