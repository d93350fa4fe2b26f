package filesink

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Parquet files hold weir's Arrow columns as they are, except where
// weir's Arrow form is not what a Parquet reader expects of the SQL type:
// numeric(p,s) (text in weir, so that any precision fits) is written as
// DECIMAL(p,s) when p <= 38, and interval (Arrow's month-day-nano, which
// Parquet has no type for) as its PostgreSQL text. Unconstrained numeric
// stays text: no Parquet decimal holds every value of it.

// parquetType is the Arrow type a column has in a Parquet file.
func parquetType(t types.T) arrow.DataType {
	switch t.OID {
	case types.OidNumeric:
		if p, s, ok := numericTypmod(t); ok && p <= 38 {
			return &arrow.Decimal128Type{Precision: p, Scale: s}
		}
		return arrow.BinaryTypes.String
	case types.OidInterval:
		return arrow.BinaryTypes.String
	}
	return t.Arrow()
}

// numericTypmod is numeric(p,s)'s precision and scale.
func numericTypmod(t types.T) (p, s int32, ok bool) {
	if t.Typmod < 4 {
		return 0, 0, false
	}
	m := t.Typmod - 4
	return (m >> 16) & 0xffff, m & 0xffff, true
}

// parquetSchema is the files' Arrow schema for the data columns.
func parquetSchema(cols []Column) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: parquetType(c.Type), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

type parquetWriter struct {
	cf     *countingFile
	w      *pqarrow.FileWriter
	schema *arrow.Schema
	cols   []Column
}

func newParquetWriter(cf *countingFile, schema *arrow.Schema, cols []Column) (*parquetWriter, error) {
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	w, err := pqarrow.NewFileWriter(schema, cf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		cf.abort()
		return nil, err
	}
	return &parquetWriter{cf: cf, w: w, schema: schema, cols: cols}, nil
}

// write writes b as one row group (the sink gives it batches of a size
// that suits a row group, sink.go).
func (p *parquetWriter) write(b arrow.RecordBatch) error {
	conv, err := toParquet(p.schema, p.cols, b)
	if err != nil {
		return err
	}
	defer conv.Release()
	return p.w.Write(conv)
}

func (p *parquetWriter) size() int64 { return p.cf.written() }

func (p *parquetWriter) finish() error {
	if err := p.w.Close(); err != nil { // writes the footer into cf, does not close the file
		p.cf.abort()
		return err
	}
	return p.cf.finish()
}

func (p *parquetWriter) abort() { p.cf.abort() }

// toParquet converts b's columns to the file's types.
func toParquet(schema *arrow.Schema, cols []Column, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	arrs := make([]arrow.Array, b.NumCols())
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i := range arrs {
		col := b.Column(i)
		want := schema.Field(i).Type
		if arrow.TypeEqual(col.DataType(), want) {
			col.Retain()
			arrs[i] = col
			continue
		}
		a, err := convertColumn(cols[i].Type, want, col)
		if err != nil {
			return nil, err
		}
		arrs[i] = a
	}
	return array.NewRecordBatch(schema, arrs, b.NumRows()), nil
}

func convertColumn(t types.T, want arrow.DataType, col arrow.Array) (arrow.Array, error) {
	n := col.Len()
	switch w := want.(type) {
	case *arrow.Decimal128Type:
		s := col.(*array.String)
		bld := array.NewDecimal128Builder(memory.DefaultAllocator, w)
		defer bld.Release()
		bld.Reserve(n)
		for i := 0; i < n; i++ {
			if s.IsNull(i) {
				bld.AppendNull()
				continue
			}
			v, err := decimal128.FromString(s.Value(i), w.Precision, w.Scale)
			if err != nil {
				return nil, sqlerr.New(sqlerr.NumericValueOutOfRange, "numeric value %s of a %s column cannot be written as a Parquet DECIMAL(%d,%d)", s.Value(i), t, w.Precision, w.Scale)
			}
			bld.Append(v)
		}
		return bld.NewArray(), nil
	default:
		// Text: the value's PostgreSQL text form.
		bld := array.NewStringBuilder(memory.DefaultAllocator)
		defer bld.Release()
		bld.Reserve(n)
		var buf []byte
		for i := 0; i < n; i++ {
			if col.IsNull(i) {
				bld.AppendNull()
				continue
			}
			buf = types.AppendText(buf[:0], t, col, i, nil)
			bld.BinaryBuilder.Append(buf)
		}
		return bld.NewArray(), nil
	}
}
