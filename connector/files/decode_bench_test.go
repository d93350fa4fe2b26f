package files

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"syscall"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// The benchmarks decode 100k rows of an events shape, the figures of
// docs/benchmarks.md ("file decoding"). Each reports rows/s next to a
// baseline measured in the same run: for JSON, goccy/go-json and
// encoding/json decoding the same lines into a struct slice, and a loop
// that only finds the lines; for CSV, encoding/csv reading the records;
// for Parquet, pqarrow reading the file's own columns with no conversion.

const benchRows = 100_000

const benchSchema = "event_id STRING, customer_id STRING, event_type STRING, event_time TIMESTAMP, amount DECIMAL(10,2)"

type benchEvent struct {
	EventID    string    `json:"event_id"`
	CustomerID string    `json:"customer_id"`
	EventType  string    `json:"event_type"`
	EventTime  time.Time `json:"event_time"`
	Amount     float64   `json:"amount"`
}

// benchRead are the columns a windowed count and sum by type reads
// (the pruned decode: Options.ReadColumns).
var benchRead = []string{"event_type", "event_time", "amount"}

var benchTypes = []string{"click", "view", "purchase", "add_to_cart", "search"}

func benchJSON() []byte {
	var b bytes.Buffer
	base := time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)
	for i := 0; i < benchRows; i++ {
		fmt.Fprintf(&b, `{"event_id":"evt-%08d","customer_id":"cust-%05d","event_type":"%s","event_time":"%s","amount":%d.%02d}`+"\n",
			i, i%50000, benchTypes[i%5], base.Add(time.Duration(i)*time.Millisecond*37).Format("2006-01-02T15:04:05.000Z"), i%1000, i%100)
	}
	return b.Bytes()
}

func benchCSV() []byte {
	var b bytes.Buffer
	b.WriteString("event_id,customer_id,event_type,event_time,amount\n")
	base := time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)
	for i := 0; i < benchRows; i++ {
		fmt.Fprintf(&b, "evt-%08d,cust-%05d,%s,%s,%d.%02d\n",
			i, i%50000, benchTypes[i%5], base.Add(time.Duration(i)*time.Millisecond*37).Format("2006-01-02 15:04:05.000"), i%1000, i%100)
	}
	return b.Bytes()
}

func benchParquet(b *testing.B) []byte {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "event_id", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "customer_id", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "event_type", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "event_time", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer rb.Release()
	base := time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC).UnixMicro()
	for i := 0; i < benchRows; i++ {
		rb.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("evt-%08d", i))
		rb.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("cust-%05d", i%50000))
		rb.Field(2).(*array.StringBuilder).Append(benchTypes[i%5])
		rb.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(base + int64(i)*37000))
		rb.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i%1000*100 + i%100)))
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sch, &buf, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// reportRows reports rows/s of wall time and rows per CPU second of the
// process (all threads, GC included): on a machine shared with other
// work the second is the steadier figure.
func reportRows(b *testing.B, rows int, cpu0 time.Duration) {
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(rows)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "rows/cpu-s")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchDecode(b *testing.B, format string, data []byte, o Options) {
	s := schemaOf(b, benchSchema)
	o.Format = format
	info := writeFile(b, "bench."+format, data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		recs, st, err := DecodeFile(info, o, s, 8192)
		if err != nil {
			b.Fatal(err)
		}
		if st.Rows != benchRows || st.Rescued != 0 {
			b.Fatalf("%+v", st)
		}
		for _, r := range recs {
			r.Release()
		}
	}
	reportRows(b, benchRows, cpu0)
}

func BenchmarkDecodeJSON(b *testing.B) {
	data := benchJSON()
	b.Run("weir", func(b *testing.B) { benchDecode(b, "json", data, Options{}) })
	b.Run("weir-3-of-5-columns", func(b *testing.B) { benchDecode(b, "json", data, Options{ReadColumns: benchRead}) })
	b.Run("baseline=goccy-go-json-structs", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			evs := make([]benchEvent, 0, benchRows)
			for _, l := range bytes.Split(data[:len(data)-1], []byte{'\n'}) {
				var e benchEvent
				if err := gojson.Unmarshal(l, &e); err != nil {
					b.Fatal(err)
				}
				evs = append(evs, e)
			}
		}
		reportRows(b, benchRows, cpu0)
	})
	b.Run("baseline=encoding-json-structs", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			evs := make([]benchEvent, 0, benchRows)
			for _, l := range bytes.Split(data[:len(data)-1], []byte{'\n'}) {
				var e benchEvent
				if err := json.Unmarshal(l, &e); err != nil {
					b.Fatal(err)
				}
				evs = append(evs, e)
			}
		}
		reportRows(b, benchRows, cpu0)
	})
	b.Run("baseline=find-lines", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		n := 0
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			for p := 0; p < len(data); {
				j := bytes.IndexByte(data[p:], '\n')
				if j < 0 {
					break
				}
				p += j + 1
				n++
			}
		}
		reportRows(b, benchRows, cpu0)
	})
}

func BenchmarkDecodeCSV(b *testing.B) {
	data := benchCSV()
	b.Run("weir", func(b *testing.B) { benchDecode(b, "csv", data, Options{Header: true}) })
	b.Run("weir-3-of-5-columns", func(b *testing.B) { benchDecode(b, "csv", data, Options{Header: true, ReadColumns: benchRead}) })
	b.Run("baseline=encoding-csv", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			r := csv.NewReader(bytes.NewReader(data))
			r.ReuseRecord = true
			for {
				if _, err := r.Read(); err != nil {
					break
				}
			}
		}
		reportRows(b, benchRows, cpu0)
	})
}

func BenchmarkDecodeParquet(b *testing.B) {
	data := benchParquet(b)
	b.Run("weir", func(b *testing.B) { benchDecode(b, "parquet", data, Options{}) })
	b.Run("weir-3-of-5-columns", func(b *testing.B) { benchDecode(b, "parquet", data, Options{ReadColumns: benchRead}) })
	b.Run("baseline=pqarrow-own-types", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			pf, err := file.NewParquetReader(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			fr, _ := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 8192}, memory.DefaultAllocator)
			rr, err := fr.GetRecordReader(context.Background(), nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			for rr.Next() {
			}
			rr.Release()
			pf.Close()
		}
		reportRows(b, benchRows, cpu0)
	})
}

// BenchmarkScanJSONLines is the scanner alone (checking lines and finding
// their fields), the larger half of BenchmarkDecodeJSON/weir.
func BenchmarkScanJSONLines(b *testing.B) {
	data := benchJSON()
	lines := bytes.Split(data[:len(data)-1], []byte{'\n'})
	var sc jsonScanner
	b.SetBytes(int64(len(data)))
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			if !sc.parseLine(l) {
				b.Fatal("bad line")
			}
		}
	}
	reportRows(b, benchRows, cpu0)
}

// BenchmarkInfer measures inference's pass over the sample (the same
// rows, hinted as the files benchmark hints them), next to the decode.
func BenchmarkInfer(b *testing.B) {
	for _, f := range []struct {
		format string
		data   []byte
		o      Options
	}{
		{"json", benchJSON(), Options{Format: "json", InferColumnTypes: true, SchemaHints: "amount decimal(10,2), event_time timestamp"}},
		{"csv", benchCSV(), Options{Format: "csv", Header: true, InferColumnTypes: true, SchemaHints: "amount decimal(10,2), event_time timestamp"}},
	} {
		b.Run(f.format, func(b *testing.B) {
			info := writeFile(b, "bench."+f.format, f.data)
			b.SetBytes(int64(len(f.data)))
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				if _, err := Infer([]FileInfo{info}, f.o, 0, 0); err != nil {
					b.Fatal(err)
				}
			}
			reportRows(b, benchRows, cpu0)
		})
	}
}
