package pgcdc

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// The change-row columns after the table's (doc.go).
const (
	OpColumn  = "_op"
	LSNColumn = "_lsn"
)

// Change-row ops (Debezium's letters).
const (
	OpRead     = 'r'
	OpInsert   = 'c'
	OpUpdate   = 'u'
	OpDelete   = 'd'
	OpTruncate = 't'
)

// Schema is the Arrow schema of a source's change rows: the table's
// columns, then _op and _lsn.
func Schema(cols []Column) *arrow.Schema {
	fs := make([]arrow.Field, 0, len(cols)+2)
	for _, c := range cols {
		fs = append(fs, arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: true})
	}
	fs = append(fs, arrow.Field{Name: OpColumn, Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: LSNColumn, Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	return arrow.NewSchema(fs, nil)
}

// rowBuilder collects change rows into Arrow columns: the values arrive
// in PostgreSQL's text form and are parsed straight into the builders.
type rowBuilder struct {
	cols []Column
	b    *array.RecordBuilder
	rows int
}

func newRowBuilder(cols []Column) *rowBuilder {
	return &rowBuilder{cols: cols, b: array.NewRecordBuilder(memory.DefaultAllocator, Schema(cols))}
}

// add appends one change row; vals[i] is column i's text (nil: NULL).
func (rb *rowBuilder) add(op byte, lsn int64, vals [][]byte) error {
	for i, c := range rb.cols {
		fb := rb.b.Field(i)
		if vals == nil || vals[i] == nil {
			fb.AppendNull()
			continue
		}
		if err := types.AppendParsedText(fb, c.Type, vals[i], nil); err != nil {
			// PostgreSQL's own output that weir cannot read: the row is
			// kept, the value is not silently changed.
			return sqlerr.New(sqlerr.DataCorrupted, "postgres-cdc: column \"%s\" (%s): %v", c.Name, c.Type, err)
		}
	}
	rb.b.Field(len(rb.cols)).(*array.StringBuilder).Append(string([]byte{op}))
	rb.b.Field(len(rb.cols) + 1).(*array.Int64Builder).Append(lsn)
	rb.rows++
	return nil
}

// flush returns the rows collected so far as one batch (nil: none).
func (rb *rowBuilder) flush() arrow.RecordBatch {
	if rb.rows == 0 {
		return nil
	}
	rb.rows = 0
	return rb.b.NewRecordBatch()
}

// discard drops the rows collected (a transaction already logged).
func (rb *rowBuilder) discard() {
	if b := rb.flush(); b != nil {
		b.Release()
	}
}
