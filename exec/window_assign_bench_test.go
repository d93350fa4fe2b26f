package exec

import (
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
)

// BenchmarkWindowAssign assigns 5-minute windows to a 100k-row batch of
// the events shape (id, type, amount, event time, the files source's
// _metadata struct). limit is the physical floor in the same run: a loop
// computing only window_start and window_end; copy is the copying path
// (every column gathered by expr.TakeArray) that tumbling windows took
// before they passed their columns through; hopping is a 20-minute window
// sliding by 5 (each row four times, always copied).
func BenchmarkWindowAssign(b *testing.B) {
	const rows, min = 100_000, 60_000_000
	in := eventsBatch(rand.New(rand.NewSource(1)), rows, false)
	perRow := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
	}
	b.Run("limit", func(b *testing.B) {
		times := in.Column(eventTimeCol).(*array.Timestamp).TimestampValues()
		for n := 0; n < b.N; n++ {
			starts, ends := make([]int64, len(times)), make([]int64, len(times))
			for i, v := range times {
				s := TumbleStart(int64(v), 5*min)
				starts[i], ends[i] = s, s+5*min
			}
		}
		perRow(b)
	})
	b.Run("tumbling", func(b *testing.B) {
		w := newWindowAssign(planner.TumblingWindow, 5*min, 0, 0)
		for n := 0; n < b.N; n++ {
			if _, err := w.assign(in); err != nil {
				b.Fatal(err)
			}
		}
		perRow(b)
	})
	b.Run("copy", func(b *testing.B) {
		w := newWindowAssign(planner.TumblingWindow, 5*min, 0, 0)
		times := in.Column(eventTimeCol).(*array.Timestamp).TimestampValues()
		for n := 0; n < b.N; n++ {
			idx, starts := make([]int, len(times)), make([]int64, len(times))
			for i, v := range times {
				idx[i], starts[i] = i, TumbleStart(int64(v), 5*min)
			}
			w.emit(in, idx, starts, nil)
		}
		perRow(b)
	})
	b.Run("hopping", func(b *testing.B) {
		w := newWindowAssign(planner.HoppingWindow, 20*min, 5*min, 0)
		for n := 0; n < b.N; n++ {
			if _, err := w.assign(in); err != nil {
				b.Fatal(err)
			}
		}
		perRow(b)
	})
}
