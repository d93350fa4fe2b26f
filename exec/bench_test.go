package exec

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

const benchRows = 1 << 20

// benchTable returns 1M rows of (k int8 with nkeys distinct values, v int8)
// in BatchSize batches, and the same data as plain slices.
func benchTable(nkeys int64) ([]arrow.RecordBatch, []int64, []int64) {
	ks, vs := make([]int64, benchRows), make([]int64, benchRows)
	x := uint64(88172645463325252)
	for i := range ks {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		ks[i] = int64(x % uint64(nkeys))
		vs[i] = int64(i)
	}
	var out []arrow.RecordBatch
	for s := 0; s < benchRows; s += BatchSize {
		kb, vb := array.NewInt64Builder(memory.DefaultAllocator), array.NewInt64Builder(memory.DefaultAllocator)
		kb.AppendValues(ks[s:s+BatchSize], nil)
		vb.AppendValues(vs[s:s+BatchSize], nil)
		out = append(out, array.NewRecordBatch(planner.Schema(kv), []arrow.Array{kb.NewArray(), vb.NewArray()}, BatchSize))
	}
	return out, ks, vs
}

func report(b *testing.B, rows int) {
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkHashAggregate(b *testing.B) {
	batches, ks, vs := benchTable(10000)
	b.Run("exec", func(b *testing.B) {
		env, tables := newEnv()
		agg := &planner.Aggregate{Input: scanOf(tables, "t", kv, batches...), GroupBy: []expr.Expr{col(0, types.Int8)},
			Aggs: []planner.AggCall{{Name: "sum", Agg: sumAgg, Args: []expr.Expr{col(1, types.Int8)}}},
			Cols: cols("k", types.Int8, "s", types.Int8)}
		for b.Loop() {
			if _, err := Run(context.Background(), env, agg); err != nil {
				b.Fatal(err)
			}
		}
		report(b, benchRows)
	})
	b.Run("baseline-map", func(b *testing.B) {
		for b.Loop() {
			sums := map[int64]int64{}
			for i, k := range ks {
				sums[k] += vs[i]
			}
		}
		report(b, benchRows)
	})
}

func BenchmarkSort(b *testing.B) {
	batches, ks, _ := benchTable(1 << 40)
	b.Run("exec", func(b *testing.B) {
		env, tables := newEnv()
		s := &planner.Sort{Input: scanOf(tables, "t", kv, batches...), Keys: []planner.SortKey{{Expr: col(0, types.Int8)}}}
		for b.Loop() {
			if _, err := Run(context.Background(), env, s); err != nil {
				b.Fatal(err)
			}
		}
		report(b, benchRows)
	})
	b.Run("baseline-slices", func(b *testing.B) {
		for b.Loop() {
			c := slices.Clone(ks)
			slices.SortStableFunc(c, func(a, b int64) int {
				if a < b {
					return -1
				} else if a > b {
					return 1
				}
				return 0
			})
		}
		report(b, benchRows)
	})
}

func BenchmarkHashJoin(b *testing.B) {
	probe, ks, _ := benchTable(1 << 16)
	bk := array.NewInt64Builder(memory.DefaultAllocator)
	bv := array.NewInt64Builder(memory.DefaultAllocator)
	for i := int64(0); i < 1<<16; i++ {
		bk.Append(i)
		bv.Append(i * 2)
	}
	build := array.NewRecordBatch(planner.Schema(kv), []arrow.Array{bk.NewArray(), bv.NewArray()}, 1<<16)
	b.Run("exec", func(b *testing.B) {
		env, tables := newEnv()
		j := &planner.Join{Kind: planner.InnerJoin, Left: scanOf(tables, "p", kv, probe...), Right: scanOf(tables, "b", kv, build),
			LeftKeys: []expr.Expr{col(0, types.Int8)}, RightKeys: []expr.Expr{col(0, types.Int8)}}
		for b.Loop() {
			op, err := Build(env, j)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for {
				out, err := op.Next(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if out == nil {
					break
				}
				n += int(out.NumRows())
			}
			op.Close()
			if n != benchRows {
				b.Fatalf("rows %d", n)
			}
		}
		report(b, benchRows)
	})
	b.Run("baseline-map", func(b *testing.B) {
		m := map[int64]int64{}
		for i := int64(0); i < 1<<16; i++ {
			m[i] = i * 2
		}
		for b.Loop() {
			outK, outV := make([]int64, 0, len(ks)), make([]int64, 0, len(ks))
			for _, k := range ks {
				if v, ok := m[k]; ok {
					outK, outV = append(outK, k), append(outV, v)
				}
			}
		}
		report(b, benchRows)
	})
}
