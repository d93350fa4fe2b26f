package exec

import (
	"context"
	"strconv"
	"testing"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// BenchmarkWindowRunningSum is sum(x) OVER (ORDER BY x) over one partition
// of benchRows int8 rows — the frame grows by one row per row — beside a
// tight Go loop that keeps the same running sum and formats it as the
// numeric text the call returns.
func BenchmarkWindowRunningSum(b *testing.B) {
	batches, _, vs := benchTable(1 << 40)
	kcols := cols("k", types.Int8, "v", types.Int8)
	for _, name := range []string{"sum", "count", "max"} {
		agg, err := expr.ResolveAggregate(name, []types.T{types.Int8})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			env, tables := newEnv()
			call := planner.WindowCall{Name: name, Agg: agg, Args: []expr.Expr{col(1, types.Int8)},
				OrderBy: []planner.SortKey{{Expr: col(1, types.Int8)}}, T: agg.Ret}
			w := &planner.Window{Input: scanOf(tables, "t", kcols, batches...), Calls: []planner.WindowCall{call},
				Cols: append(kcols, planner.Column{Name: name, T: agg.Ret})}
			for b.Loop() {
				if _, err := Run(context.Background(), env, w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
		})
	}
	b.Run("baseline-loop", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			var s int64
			for _, v := range vs {
				s += v
				buf = strconv.AppendInt(buf[:0], s, 10)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
	})
}
