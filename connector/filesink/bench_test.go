package filesink

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/state"
)

// BenchmarkFilesSink writes epochs of 100,000 rows through the sink (temp
// files, rename, manifest, fsyncs), next to its baseline: the same rows
// written by pqarrow straight into one file, in row groups of the same
// size, and synced.
func BenchmarkFilesSink(b *testing.B) {
	const rows = 100_000
	batch := testBatch(0, rows)
	defer batch.Release()
	b.Run("sink parquet", func(b *testing.B) {
		st, err := openBenchStore(b)
		if err != nil {
			b.Fatal(err)
		}
		s, err := Open(Options{Dir: b.TempDir(), Format: FormatParquet, Columns: testCols})
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := connector.WriteEpoch(st, s, int64(i+1), []arrow.RecordBatch{batch}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("sink csv", func(b *testing.B) {
		st, err := openBenchStore(b)
		if err != nil {
			b.Fatal(err)
		}
		s, err := Open(Options{Dir: b.TempDir(), Format: FormatCSV, Columns: testCols})
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := connector.WriteEpoch(st, s, int64(i+1), []arrow.RecordBatch{batch}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("baseline pqarrow one file", func(b *testing.B) {
		dir := b.TempDir()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			f, err := os.Create(filepath.Join(dir, "f.parquet"))
			if err != nil {
				b.Fatal(err)
			}
			w, err := pqarrow.NewFileWriter(batch.Schema(), f, parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy)), pqarrow.DefaultWriterProps())
			if err != nil {
				b.Fatal(err)
			}
			for off := int64(0); off < rows; off += 1 << 16 { // the sink's row groups
				sl := batch.NewSlice(off, min(off+1<<16, rows))
				if err := w.Write(sl); err != nil {
					b.Fatal(err)
				}
				sl.Release()
			}
			w.Close()
			f.Sync()
			f.Close()
		}
		b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

func openBenchStore(b *testing.B) (*state.Store, error) {
	st, err := state.Open(b.TempDir(), state.Options{})
	if err == nil {
		b.Cleanup(func() { st.Close() })
	}
	return st, err
}
