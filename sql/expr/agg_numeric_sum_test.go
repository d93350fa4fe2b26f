package expr

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/apd/v3"
)

// TestNumericSumFastPathMatchesExact sums random numerics — mixed scales,
// long values, NaN-free — through the accumulator and through plain apd
// arithmetic; the text of the results must agree exactly.
func TestNumericSumFastPathMatchesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(50)
		vals := make([]string, n)
		for i := range vals {
			switch r.IntN(6) {
			case 0:
				vals[i] = fmt.Sprintf("%d", r.Int64N(1<<62)-1<<61)
			case 1:
				vals[i] = fmt.Sprintf("%d.%03d", r.IntN(2000)-1000, r.IntN(1000))
			case 2:
				vals[i] = fmt.Sprintf("%d%018d.5", r.IntN(9)+1, r.Int64N(1e17)) // 20 digits: slow path
			default:
				vals[i] = fmt.Sprintf("%d.%02d", r.IntN(200000)-100000, r.IntN(100))
			}
		}
		b := array.NewStringBuilder(memory.DefaultAllocator)
		b.AppendValues(vals, nil)
		col := b.NewArray()
		groups := make([]uint32, n)
		for _, avg := range []bool{false, true} {
			acc := &numericSumAcc{avg: avg}
			if err := acc.Update(&Ctx{}, groups, []arrow.Array{col}); err != nil {
				t.Fatal(err)
			}
			out, err := acc.Finish(&Ctx{}, 1)
			if err != nil {
				t.Fatal(err)
			}
			want := apd.New(0, 0)
			for _, v := range vals {
				d, _, _ := apd.NewFromString(v)
				want, _ = numAdd(want, d)
			}
			if avg {
				want, _ = numDiv(want, apd.New(int64(n), 0))
			}
			if got := out.(*array.String).Value(0); got != formatNumeric(want) {
				t.Fatalf("avg=%v over %v: got %s, want %s", avg, vals, got, formatNumeric(want))
			}
		}
	}
}
