package expr

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/types"
)

// BenchmarkSparkFunctions times the Databricks functions pipelines apply
// to every row, over one batch of event-like text, next to Go's own
// time.Parse of the same timestamps measured in the same run:
//
//	go test ./sql/expr -run X -bench SparkFunctions -benchtime 20x
func BenchmarkSparkFunctions(b *testing.B) {
	const n = 8192
	mem := memory.DefaultAllocator
	sb, jb, tb := array.NewStringBuilder(mem), array.NewStringBuilder(mem), array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"})
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	texts := make([]string, n)
	for i := 0; i < n; i++ {
		t := base.Add(time.Duration(i) * 1234567 * time.Microsecond)
		texts[i] = t.Format("2006-01-02 15:04:05")
		sb.Append(texts[i])
		jb.Append(fmt.Sprintf(`{"user":{"id":%d,"name":"u%d"},"tags":["a","b"],"ts":"%s"}`, i, i%97, texts[i]))
		tb.Append(arrow.Timestamp(t.UnixMicro()))
	}
	strs, docs, stamps := sb.NewArray(), jb.NewArray(), tb.NewArray()
	ctx := &Ctx{}
	konst := func(v string) arrow.Array {
		a, err := Broadcast(mem, types.Text, v, n)
		if err != nil {
			b.Fatal(err)
		}
		return a
	}
	cases := []struct {
		name string
		run  func() (arrow.Array, error)
	}{
		{"to_timestamp(yyyy-MM-dd HH:mm:ss)", func() (arrow.Array, error) {
			return mustResolve(b, "to_timestamp", types.Text, types.Text)(ctx, []arrow.Array{strs, konst("yyyy-MM-dd HH:mm:ss")}, n)
		}},
		{"to_timestamp(YYYY-MM-DD HH24:MI:SS)", func() (arrow.Array, error) {
			return mustResolve(b, "to_timestamp", types.Text, types.Text)(ctx, []arrow.Array{strs, konst("YYYY-MM-DD HH24:MI:SS")}, n)
		}},
		{"date_format(yyyy-MM-dd HH:mm)", func() (arrow.Array, error) {
			return mustResolve(b, "date_format", types.TimestampTZ, types.Text)(ctx, []arrow.Array{stamps, konst("yyyy-MM-dd HH:mm")}, n)
		}},
		{"get_json_object($.user.name)", func() (arrow.Array, error) {
			return mustResolve(b, "get_json_object", types.Text, types.Text)(ctx, []arrow.Array{docs, konst("$.user.name")}, n)
		}},
		{"regexp_extract", func() (arrow.Array, error) {
			return mustResolve(b, "regexp_extract", types.Text, types.Text)(ctx, []arrow.Array{strs, konst(`(\d+):(\d+)`)}, n)
		}},
	}
	b.Run("baseline: Go time.Parse", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, s := range texts {
				if _, err := time.Parse("2006-01-02 15:04:05", s); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
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
