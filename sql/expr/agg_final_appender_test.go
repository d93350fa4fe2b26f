package expr

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/types"
)

// TestFinalAppenderMatchesFinish feeds random batches (NULLs, sums past
// int64, numeric values of mixed scales and past 18 digits) into three
// groups of each accumulator that is a FinalAppender and checks, after
// every Update, that AppendFinal of each group gives Finish's value and
// error — and that folding goes on correctly afterwards.
func TestFinalAppenderMatchesFinish(t *testing.T) {
	type aggCase struct {
		name string
		arg  types.T // zero OID: count(*)
		gen  func(r *rand.Rand) Datum
	}
	bigInt := func(r *rand.Rand) Datum {
		switch r.Intn(4) {
		case 0:
			return int64(math.MaxInt64 - r.Int63n(10))
		case 1:
			return int64(math.MinInt64 + r.Int63n(10))
		}
		return r.Int63n(2000) - 1000
	}
	int4 := func(r *rand.Rand) Datum { return r.Int63n(1<<32) - 1<<31 }
	int2 := func(r *rand.Rand) Datum { return r.Int63n(1<<16) - 1<<15 }
	float := func(r *rand.Rand) Datum { return r.NormFloat64() * 1e6 }
	numeric := func(r *rand.Rand) Datum {
		switch r.Intn(6) {
		case 0:
			return fmt.Sprintf("%d%018d.%d", r.Int63n(1e6), r.Int63(), r.Intn(10)) // past 18 digits
		case 1:
			return fmt.Sprintf("-%d.%03d", r.Int63n(1e15), r.Intn(1000))
		case 2:
			return fmt.Sprintf("%d", r.Int63n(1e17))
		}
		return fmt.Sprintf("%d.%0*d", r.Int63n(1e9)-5e8, 1+r.Intn(4), r.Intn(10))
	}
	text := func(r *rand.Rand) Datum { return fmt.Sprintf("s%x", r.Int63n(1<<20)) }
	ts := func(r *rand.Rand) Datum { return r.Int63n(1<<50) - 1<<49 }
	var cases []aggCase
	for _, name := range []string{"sum", "avg"} {
		cases = append(cases,
			aggCase{name, types.Int2, int2}, aggCase{name, types.Int4, int4}, aggCase{name, types.Int8, bigInt},
			aggCase{name, types.Float4, func(r *rand.Rand) Datum { return float64(float32(r.NormFloat64() * 1e3)) }},
			aggCase{name, types.Float8, float}, aggCase{name, types.Numeric, numeric})
	}
	cases = append(cases, aggCase{"count", types.T{}, nil}, aggCase{"count", types.Int8, bigInt})
	for _, name := range []string{"min", "max"} {
		cases = append(cases,
			aggCase{name, types.Int4, int4}, aggCase{name, types.Int8, bigInt}, aggCase{name, types.Float8, float},
			aggCase{name, types.Text, text}, aggCase{name, types.Numeric, numeric},
			aggCase{name, types.Timestamp, ts}, aggCase{name, types.TimestampTZ, ts})
	}
	ctx := &Ctx{}
	mem := memory.DefaultAllocator
	for _, c := range cases {
		var args []types.T
		if c.arg.OID != 0 {
			args = []types.T{c.arg}
		}
		t.Run(fmt.Sprintf("%s(%s)", c.name, c.arg.String()), func(t *testing.T) {
			ra, err := ResolveAggregate(c.name, args)
			if err != nil {
				t.Fatal(err)
			}
			acc := ra.Overload.New(ra.ArgTypes, ra.Ret)
			fa, ok := acc.(FinalAppender)
			if !ok {
				t.Fatalf("%T is not a FinalAppender", acc)
			}
			r := rand.New(rand.NewSource(int64(len(c.name)) * int64(c.arg.OID+1)))
			const ngroups = 3
			for step := 0; step < 200; step++ {
				n := 1 + r.Intn(4)
				groups := make([]uint32, n)
				var cols []arrow.Array
				if len(args) > 0 {
					ds := make([]Datum, n)
					for i := range ds {
						if r.Intn(5) > 0 {
							ds[i] = c.gen(r)
						}
					}
					cols = []arrow.Array{ArrayFromDatums(mem, c.arg, ds)}
				}
				for i := range groups {
					groups[i] = uint32(r.Intn(ngroups))
				}
				if err := acc.Update(ctx, groups, cols); err != nil {
					t.Fatal(err)
				}
				fin, finErr := acc.Finish(ctx, ngroups)
				b := NewBuilder(mem, ra.Ret)
				var appErr error
				for g := 0; g < ngroups && appErr == nil; g++ {
					appErr = fa.AppendFinal(ctx, g, b)
				}
				if (finErr == nil) != (appErr == nil) || finErr != nil && finErr.Error() != appErr.Error() {
					t.Fatalf("step %d: Finish error %v, AppendFinal error %v", step, finErr, appErr)
				}
				if finErr != nil {
					b.Release()
					return
				}
				got := b.NewArray()
				b.Release()
				if !arrow.TypeEqual(got.DataType(), fin.DataType()) {
					t.Fatalf("AppendFinal built %s, Finish returns %s", got.DataType(), fin.DataType())
				}
				for g := 0; g < ngroups; g++ {
					if want, have := DatumAt(fin, g), DatumAt(got, g); !reflect.DeepEqual(want, have) {
						t.Fatalf("step %d group %d: Finish %v, AppendFinal %v", step, g, want, have)
					}
				}
				got.Release()
				fin.Release()
				for _, a := range cols {
					a.Release()
				}
			}
		})
	}
}
