package exec

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/types"
)

// BenchmarkSpilledSort is weirbench -spill's sort inside the process: 10M
// scattered bigint keys sorted with work_mem 4MB (about 20 runs merged in
// one pass), the rows read and dropped as OFFSET does. The baseline is
// slices.Sort of the same keys in memory.
//
//	go test ./exec -run XXX -bench SpilledSort -benchtime 1x -cpuprofile cpu.out
func BenchmarkSpilledSort(b *testing.B) {
	const n = 10_000_000
	xs := make([]int64, n)
	for g := range xs {
		xs[g] = int64((uint64(g+1) * 2654435761) % 1000000007)
	}
	cs := cols("x", types.Int8)
	var batches []arrow.RecordBatch
	for s := 0; s < n; s += BatchSize {
		bl := array.NewInt64Builder(memory.DefaultAllocator)
		bl.AppendValues(xs[s:min(s+BatchSize, n)], nil)
		batches = append(batches, array.NewRecordBatch(planner.Schema(cs), []arrow.Array{bl.NewArray()}, int64(min(BatchSize, n-s))))
	}
	tables := fakeTables{}
	plan := &planner.Sort{Input: scanOf(tables, "t", cs, batches...), Keys: []planner.SortKey{{Expr: col(0, types.Int8)}}}
	b.Run("exec-4MB", func(b *testing.B) {
		for b.Loop() {
			q := NewQueryMemory(NewMemoryBudget(0), 4<<20, b.TempDir())
			op, err := Build(&Env{Tables: tables, Memory: q}, plan)
			if err != nil {
				b.Fatal(err)
			}
			rows := 0
			for {
				out, err := op.Next(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if out == nil {
					break
				}
				rows += int(out.NumRows())
				out.Release()
			}
			op.Close()
			q.Close()
			if rows != n {
				b.Fatalf("%d rows", rows)
			}
		}
		report(b, n)
	})
	b.Run("baseline-slices", func(b *testing.B) {
		for b.Loop() {
			slices.Sort(slices.Clone(xs))
		}
		report(b, n)
	})
}

// BenchmarkSpilledSortText: 2M rows sorted by (text, bigint) with work_mem
// 4MB, the general comparison path (no single integer key).
func BenchmarkSpilledSortText(b *testing.B) {
	const n = 2_000_000
	cs := cols("s", types.Text, "x", types.Int8)
	var batches []arrow.RecordBatch
	for s := 0; s < n; s += BatchSize {
		sb, xb := array.NewStringBuilder(memory.DefaultAllocator), array.NewInt64Builder(memory.DefaultAllocator)
		for g := s; g < min(s+BatchSize, n); g++ {
			x := int64((uint64(g+1) * 2654435761) % 1000000007)
			sb.Append("k" + strconv.FormatInt(x%50000, 10))
			xb.Append(x)
		}
		batches = append(batches, array.NewRecordBatch(planner.Schema(cs), []arrow.Array{sb.NewArray(), xb.NewArray()}, int64(min(BatchSize, n-s))))
	}
	tables := fakeTables{}
	plan := &planner.Sort{Input: scanOf(tables, "t", cs, batches...), Keys: []planner.SortKey{{Expr: col(0, types.Text)}, {Expr: col(1, types.Int8), Desc: true}}}
	for b.Loop() {
		q := NewQueryMemory(NewMemoryBudget(0), 4<<20, b.TempDir())
		op, err := Build(&Env{Tables: tables, Memory: q}, plan)
		if err != nil {
			b.Fatal(err)
		}
		rows := 0
		for {
			out, err := op.Next(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if out == nil {
				break
			}
			rows += int(out.NumRows())
			out.Release()
		}
		op.Close()
		q.Close()
		if rows != n {
			b.Fatalf("%d rows", rows)
		}
	}
	report(b, n)
}
