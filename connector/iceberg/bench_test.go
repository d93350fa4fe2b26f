package iceberg

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/weir-sql/weir/connector"
)

// BenchmarkEpoch reports rows/s and ms per epoch of the sink writing
// epochs of 8192 typed rows (Write's data file plus Committed's snapshot)
// next to a baseline: the same batches written as one Parquet file by
// arrow-go's pqarrow directly, the floor any Parquet-writing sink pays.
// The difference is the Iceberg commit: manifests, manifest list and
// metadata file per epoch.
func BenchmarkEpoch(b *testing.B) {
	const rowsPerEpoch = 8192
	rows := make([]typedRow, rowsPerEpoch)
	for i := range rows {
		rows[i] = typedRow{n: int64(i), num: "123.45"}
	}
	batches := typedBatch(rows...)
	b.Run("iceberg-sink", func(b *testing.B) {
		st := openStore(b)
		cfg := Config{Options: Options{Warehouse: b.TempDir(), Namespace: []string{"bench"}, Table: "t"},
			Identity: "bench#1", Columns: typedColumns}
		s, err := Open(cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := connector.WriteEpoch(st, s, int64(i+1), batches); err != nil {
				b.Fatal(err)
			}
		}
		report(b, rowsPerEpoch)
	})
	b.Run("baseline-pqarrow-file", func(b *testing.B) {
		dir := b.TempDir()
		s, err := Open(Config{Options: Options{Warehouse: b.TempDir(), Namespace: []string{"bench"}, Table: "t"},
			Identity: "bench#1", Columns: typedColumns})
		if err != nil {
			b.Fatal(err)
		}
		conv := s.conv // the same conversion to Iceberg's Arrow schema
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			f, err := os.Create(filepath.Join(dir, "f.parquet"))
			if err != nil {
				b.Fatal(err)
			}
			w, err := pqarrow.NewFileWriter(conv.schema, f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
			if err != nil {
				b.Fatal(err)
			}
			for _, batch := range batches {
				c, err := conv.convert(batch)
				if err != nil {
					b.Fatal(err)
				}
				if err := w.Write(c); err != nil {
					b.Fatal(err)
				}
				c.Release()
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
		report(b, rowsPerEpoch)
	})
}

func report(b *testing.B, rowsPerEpoch int) {
	b.ReportMetric(float64(b.N)*float64(rowsPerEpoch)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/epoch")
}

// BenchmarkUpdateEpoch reports ms per epoch of an update-mode table of
// 300,000 rows (a Gold table of many closed windows) whose epochs each
// update the same 100 rows (the open window's groups): the sink's
// copy-on-write of the groups that hold them (groups of DefaultGroupRows),
// next to rewriting the whole table each epoch (one group of every row,
// what the sink did before).
func BenchmarkUpdateEpoch(b *testing.B) {
	const tableRows, hot = 300_000, 100
	for _, bc := range []struct {
		name  string
		group int64
	}{{"copy-on-write-groups", 0}, {"whole-table", 1 << 40}} {
		b.Run(bc.name, func(b *testing.B) {
			st := openStore(b)
			cfg := Config{Options: Options{Warehouse: b.TempDir(), Namespace: []string{"bench"}, Table: "gold"},
				Identity: "gold#1", Columns: keyedColumns, Updates: true, GroupRows: bc.group}
			s, err := Open(cfg)
			if err != nil {
				b.Fatal(err)
			}
			seed := make([]change, tableRows)
			for i := range seed {
				seed[i] = ins(fmt.Sprintf("w%07d", i), int64(i))
			}
			if err := connector.WriteEpoch(st, s, 1, changeFeed(1, seed...)); err != nil {
				b.Fatal(err)
			}
			// The hot rows are the newest: after the first update epoch they
			// are one small group of their own.
			vals := make([]int64, hot)
			epoch := int64(1)
			step := func() {
				epoch++
				cs := make([]change, 0, 2*hot)
				for k := range vals {
					key := fmt.Sprintf("hot%03d", k)
					if epoch > 2 {
						cs = append(cs, del(key, vals[k]))
					}
					vals[k]++
					cs = append(cs, ins(key, vals[k]))
				}
				if err := connector.WriteEpoch(st, s, epoch, changeFeed(epoch, cs...)); err != nil {
					b.Fatal(err)
				}
			}
			step()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				step()
			}
			b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/epoch")
		})
	}
}
