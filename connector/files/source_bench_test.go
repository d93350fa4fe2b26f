package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/weir-sql/weir/state"
)

// BenchmarkSourceOverhead is the source's cost per file — discovery's
// bookkeeping, the stat checks, the log entries' commit — next to the
// baseline of decoding the same files directly (the test decoder, so the
// figure is the source's own, whatever the format's decoding costs).
func BenchmarkSourceOverhead(b *testing.B) {
	dir := b.TempDir()
	const files, rows = 1000, 100
	for i := 0; i < files; i++ {
		p := filepath.Join(dir, fmt.Sprintf("f%04d", i))
		if err := os.WriteFile(p, srcRowsText(i*rows, rows), 0o644); err != nil {
			b.Fatal(err)
		}
		at := longAgo.Add(time.Duration(i) * time.Millisecond)
		os.Chtimes(p, at, at)
	}
	list, err := List(srcOptions(dir))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("baseline decode only", func(b *testing.B) {
		for n := 0; n < b.N; n++ {
			for _, f := range list {
				if _, _, err := srcTestDecode(f, Options{}, srcTestSchema, 8192); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*files), "ns/file")
	})
	b.Run("source", func(b *testing.B) {
		for n := 0; n < b.N; n++ {
			b.StopTimer() // opening the store is not the source's cost
			st, err := state.Open(b.TempDir(), state.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			cfg := Tuning{Relist: time.Hour, BatchRows: 8192}.config()
			cfg.decode = srcTestDecode
			s, err := openWith(st, []byte("o/files/bench/"), srcOptions(dir), srcTestSchema, cfg)
			if err != nil {
				b.Fatal(err)
			}
			var off int64
			for {
				rd, err := s.Read(context.Background(), off, 0)
				if err != nil {
					b.Fatal(err)
				}
				if len(rd.Batches) == 0 {
					break
				}
				off = rd.Next
			}
			if off != files {
				b.Fatalf("read %d batches", off)
			}
			s.Close()
			b.StopTimer()
			st.Close()
			b.StartTimer()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*files), "ns/file")
	})
}
