package files

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// parquetBytes writes rows of a small events-like shape with pqarrow.
func parquetBytes(t testing.TB, n int) []byte {
	t.Helper()
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "big", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "extra", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Field(0).(*array.StringBuilder).Append("e" + itoa(int64(i)))
		if i%3 == 2 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Int32Builder).Append(int32(i))
		}
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(1704103200000 + int64(i)))
		b.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(1250 + i)))
		b.Field(4).(*array.Float32Builder).Append(1.5)
		b.Field(5).(*array.Date32Builder).Append(arrow.Date32(19723))
		if i == 1 {
			b.Field(6).(*array.Int64Builder).Append(5_000_000_000)
		} else {
			b.Field(6).(*array.Int64Builder).Append(int64(i))
		}
		b.Field(7).(*array.Int64Builder).Append(int64(i * 10))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sch, &buf, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(int64(max(n/3, 1)))), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDecodeParquet(t *testing.T) {
	info := writeFile(t, "p.parquet", parquetBytes(t, 3))
	s := schemaOf(t, "id STRING, n BIGINT, ts TIMESTAMP, amount DECIMAL(10,2), f DOUBLE, d DATE, big INT, missing STRING")
	d := decodeAll(t, info, Options{Format: "parquet"}, s, 0)
	checkRows(t, dataOnly(d.rows),
		`e0 | 0 | 2024-01-01 10:00:00+00 | 12.50 | 1.5 | 2024-01-01 | 0 | NULL`,
		`e1 | 1 | 2024-01-01 10:00:00.001+00 | 12.51 | 1.5 | 2024-01-01 | NULL | NULL`,
		`e2 | NULL | 2024-01-01 10:00:00.002+00 | 12.52 | 1.5 | 2024-01-01 | 2 | NULL`,
	)
	want := []string{
		`{"_line": 1, "extra": "0", "_file_path": "P"}`,
		`{"big": "5000000000", "_line": 2, "extra": "10", "_file_path": "P"}`,
		`{"_line": 3, "extra": "20", "_file_path": "P"}`,
	}
	if got := rescuedOf(d, info.Path); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rescued:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(d.stats.NewColumns) != 1 || d.stats.NewColumns[0].Name != "extra" || d.stats.NewColumns[0].Type.String() != "bigint" {
		t.Fatalf("new columns %+v", d.stats.NewColumns)
	}
	// The file's own types decode without conversion.
	s2, err := Infer([]FileInfo{info}, Options{Format: "parquet"}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range s2.Columns {
		names = append(names, c.Name+" "+c.Type.String())
	}
	if got := strings.Join(names, ", "); got != "id text, n integer, ts timestamp with time zone, amount numeric(10,2), f real, d date, big bigint, extra bigint" {
		t.Fatalf("inferred %s", got)
	}
	s2.Rescued = ""
	d = decodeAll(t, info, Options{Format: "parquet"}, s2, 2)
	if len(d.recs) != 2 || d.rows[1][6] != "5000000000" {
		t.Fatalf("%d batches, rows %v", len(d.recs), d.rows)
	}
}

// A truncated or damaged Parquet file is XX001, never a panic.
func TestDecodeParquetDamaged(t *testing.T) {
	good := parquetBytes(t, 200)
	s := schemaOf(t, "id STRING, n BIGINT, amount DECIMAL(10,2)")
	cuts := []int{0, 3, 4, 8, len(good) / 3, len(good) / 2, len(good) - 12, len(good) - 8, len(good) - 4, len(good) - 1}
	for _, cut := range cuts {
		info := writeFile(t, "cut.parquet", good[:cut])
		_, _, err := DecodeFile(info, Options{Format: "parquet"}, s, 0)
		if e, ok := err.(*sqlerr.Error); !ok || e.Code != sqlerr.DataCorrupted {
			t.Fatalf("cut at %d of %d: %v", cut, len(good), err)
		}
		if _, err := Infer([]FileInfo{info}, Options{Format: "parquet"}, 0, 0); err == nil {
			t.Fatalf("cut at %d: inferred", cut)
		}
	}
	// Bytes flipped in the data pages: an error or rows, but no panic.
	for off := 4; off < len(good)/2; off += 37 {
		bad := bytes.Clone(good)
		bad[off] ^= 0xff
		bad[off+1] ^= 0x55
		info := writeFile(t, "flip.parquet", bad)
		recs, _, err := DecodeFile(info, Options{Format: "parquet"}, s, 0)
		if err != nil {
			if e, ok := err.(*sqlerr.Error); !ok || e.Code != sqlerr.DataCorrupted {
				t.Fatalf("flip at %d: %v", off, err)
			}
		}
		for _, r := range recs {
			r.Release()
		}
	}
	info := writeFile(t, "notparquet.parquet", []byte("PAR1 this is not parquet at all PAR1"))
	if _, _, err := DecodeFile(info, Options{Format: "parquet"}, s, 0); err == nil {
		t.Fatal("not parquet decoded")
	}
	_ = os.Remove(info.Path)
}

// Parquet strings that are not UTF-8 are not passed on as text.
func TestDecodeParquetBadText(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	sb := b.Field(0).(*array.StringBuilder)
	sb.Append("ok")
	sb.BinaryBuilder.Append([]byte("bad\xff"))
	sb.Append("nul\x00")
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sch, &buf, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	w.Close()
	info := writeFile(t, "bad.parquet", buf.Bytes())
	d := decodeAll(t, info, Options{Format: "parquet"}, schemaOf(t, "s STRING"), 0)
	checkRows(t, dataOnly(d.rows), "ok", "NULL", "NULL")
	if d.stats.Rescued != 2 {
		t.Fatalf("%+v", d.stats)
	}
}
