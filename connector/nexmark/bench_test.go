package nexmark

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkGenerate reports the generator's events/s per table (rows of
// that table generated into Arrow builders per second) next to a tight Go
// loop's: the same count of rows, each a splitmix64 draw stored in a
// preallocated []int64, the floor any generator pays.
var sink int64

func BenchmarkGenerate(b *testing.B) {
	const rows = 8192
	for _, tb := range []Table{Person, Auction, Bid} {
		b.Run(tb.String(), func(b *testing.B) {
			g := gen(b, Config{Seed: 1, EventsPerSecond: 100_000})
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				rec, err := NewBatch(g, tb, memory.DefaultAllocator, int64(i)*rows, rows)
				if err != nil {
					b.Fatal(err)
				}
				rec.Release()
			}
			b.ReportMetric(float64(b.N)*rows/b.Elapsed().Seconds(), "events/s")
		})
	}
	b.Run("baseline-go-loop", func(b *testing.B) {
		out := make([]int64, rows)
		for i := 0; i < b.N; i++ {
			for k := range out {
				r := newRNG(1, int64(i*rows+k))
				out[k] = int64(r.next())
			}
			sink += out[i%rows]
		}
		b.ReportMetric(float64(b.N)*rows/b.Elapsed().Seconds(), "events/s")
	})
}
