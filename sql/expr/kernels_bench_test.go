package expr

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/types"
)

// BenchmarkExprKernels times the Nexmark expressions' kernels over one
// batch of bid-like rows (price bigint, date_time timestamp, url text),
// with the constants of the queries, next to a tight Go loop over the same
// column (summing the prices) measured in the same run:
//
//	go test ./sql/expr -run X -bench ExprKernels -benchtime 20x
func BenchmarkExprKernels(b *testing.B) {
	const n = 8192
	mem := memory.DefaultAllocator
	pb := array.NewInt64Builder(mem)
	tb := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond})
	ub := array.NewStringBuilder(mem)
	base := int64(1_700_000_000_000_000)
	for i := 0; i < n; i++ {
		pb.Append(int64(1 + (i*7919)%1_000_000))
		tb.Append(arrow.Timestamp(base + int64(i)*123_456_789))
		ub.Append(fmt.Sprintf("https://www.nexmark.com/%c%c%c%c%c/%c%c%c%c%c/item.htm?query=1",
			'a'+i%26, 'a'+i%7, 'a'+i%11, 'a'+i%13, 'a'+i%5, 'a'+i%3, 'a'+i%17, 'a'+i%19, 'a'+i%23, 'a'+i%2))
	}
	price, ts, url := pb.NewArray(), tb.NewArray(), ub.NewArray()
	ctx := &Ctx{}
	konst := func(t types.T, v Datum) arrow.Array {
		a, err := Broadcast(mem, t, v, n)
		if err != nil {
			b.Fatal(err)
		}
		return a
	}
	toNumeric, err := LookupCast(types.Int8, types.Numeric)
	if err != nil {
		b.Fatal(err)
	}
	priceNum, err := toNumeric(ctx, price, types.Int8, types.Numeric)
	if err != nil {
		b.Fatal(err)
	}
	mul := mustResolve(b, "*", types.Numeric, types.Numeric)
	prod, err := mul(ctx, []arrow.Array{konst(types.Numeric, "0.908"), priceNum}, n)
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		run  func() (arrow.Array, error)
	}{
		{"int8::numeric", func() (arrow.Array, error) { return toNumeric(ctx, price, types.Int8, types.Numeric) }},
		{"0.908*price", func() (arrow.Array, error) {
			return mul(ctx, []arrow.Array{konst(types.Numeric, "0.908"), priceNum}, n)
		}},
		{"numeric>1000000", func() (arrow.Array, error) {
			return mustResolve(b, ">", types.Numeric, types.Numeric)(ctx, []arrow.Array{prod, konst(types.Numeric, "1000000")}, n)
		}},
		{"extract(hour)", func() (arrow.Array, error) {
			return mustResolve(b, "extract", types.Text, types.Timestamp)(ctx, []arrow.Array{konst(types.Text, "hour"), ts}, n)
		}},
		{"date_trunc(hour)", func() (arrow.Array, error) {
			return mustResolve(b, "date_trunc", types.Text, types.Timestamp)(ctx, []arrow.Array{konst(types.Text, "hour"), ts}, n)
		}},
		{"to_char(YYYY-MM-DD)", func() (arrow.Array, error) {
			return mustResolve(b, "to_char", types.Timestamp, types.Text)(ctx, []arrow.Array{ts, konst(types.Text, "YYYY-MM-DD")}, n)
		}},
		{"to_char(HH24:MI)", func() (arrow.Array, error) {
			return mustResolve(b, "to_char", types.Timestamp, types.Text)(ctx, []arrow.Array{ts, konst(types.Text, "HH24:MI")}, n)
		}},
		{"replace", func() (arrow.Array, error) {
			return mustResolve(b, "replace", types.Text, types.Text, types.Text)(ctx, []arrow.Array{url, konst(types.Text, "a"), konst(types.Text, "")}, n)
		}},
		{"upper", func() (arrow.Array, error) { return mustResolve(b, "upper", types.Text)(ctx, []arrow.Array{url}, n) }},
		{"split_part", func() (arrow.Array, error) {
			return mustResolve(b, "split_part", types.Text, types.Text, types.Int4)(ctx, []arrow.Array{url, konst(types.Text, "/"), konst(types.Int4, int64(4))}, n)
		}},
		{"substr", func() (arrow.Array, error) {
			return mustResolve(b, "substr", types.Text, types.Int4, types.Int4)(ctx, []arrow.Array{url, konst(types.Int4, int64(9)), konst(types.Int4, int64(12))}, n)
		}},
		{"regexp_match", func() (arrow.Array, error) {
			return mustResolve(b, "regexp_match", types.Text, types.Text)(ctx, []arrow.Array{url, konst(types.Text, "(&|^)channel_id=([^&]*)")}, n)
		}},
		{"~", func() (arrow.Array, error) {
			return mustResolve(b, "~", types.Text, types.Text)(ctx, []arrow.Array{url, konst(types.Text, "/[a-e][a-z]{4}/")}, n)
		}},
	}
	b.Run("baseline: sum of prices", func(b *testing.B) {
		vals := price.(*array.Int64).Int64Values()
		var s int64
		for i := 0; i < b.N; i++ {
			for _, v := range vals {
				s += v
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
		_ = s
	})
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r, err := c.run()
				if err != nil {
					b.Fatal(err)
				}
				r.Release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
		})
	}
}

func mustResolve(b *testing.B, name string, args ...types.T) ScalarImpl {
	r, err := ResolveScalar(name, args)
	if err != nil {
		b.Fatal(err)
	}
	return r.Overload.Impl
}
