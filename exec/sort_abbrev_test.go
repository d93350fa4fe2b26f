package exec

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// TestAbbreviatedSortMatchesFullComparison: sorting through abbreviated
// first keys gives exactly the stable sort by the full comparison, for
// text keys that share long prefixes or are prefixes of each other,
// integer keys with NULLs, both directions and NULL placements, with a
// second key deciding ties.
func TestAbbreviatedSortMatchesFullComparison(t *testing.T) {
	n := 3*sortBlock + 11
	texts := make([]expr.Datum, n)
	ints := make([]expr.Datum, n)
	seconds := make([]expr.Datum, n)
	x := uint64(11)
	words := []string{"", "a", "ab", "abcdefgh", "abcdefgh\x00", "abcdefghi", "abcdefghij", "abcdefgz", "b", "\xff\xfe"}
	for i := range texts {
		x = x*6364136223846793005 + 1442695040888963407
		switch x >> 61 {
		case 0:
			texts[i] = nil
		default:
			texts[i] = words[int(x>>40)%len(words)]
		}
		if x>>59&3 == 0 {
			ints[i] = nil
		} else {
			ints[i] = int64(x>>20)%97 - 48
		}
		seconds[i] = int64(x>>30) % 5
	}
	arrs := []arrow.Array{
		expr.ArrayFromDatums(nil, types.Text, texts),
		expr.ArrayFromDatums(nil, types.Int8, ints),
		expr.ArrayFromDatums(nil, types.Int8, seconds),
	}
	ts := []types.T{types.Text, types.Int8, types.Int8}
	for first := 0; first < 2; first++ {
		for _, desc := range []bool{false, true} {
			for _, nullsFirst := range []bool{false, true} {
				keys := []planner.SortKey{
					{Expr: col(first, ts[first]), Desc: desc, NullsFirst: nullsFirst},
					{Expr: col(2, types.Int8), Desc: !desc},
				}
				var s rowSorter
				s.loadArrays(keys, []arrow.Array{arrs[first], arrs[2]})
				if !s.abbreviable() {
					t.Fatal("first key not abbreviable")
				}
				want, got := make([]int32, n), make([]int32, n)
				for i := range want {
					want[i], got[i] = int32(i), int32(i)
				}
				slices.SortStableFunc(want, func(a, b int32) int { return s.compare(int(a), int(b)) })
				if err := s.sortAbbreviated(context.Background(), nil, got); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(want, got) {
					t.Errorf("first key %d desc=%v nullsFirst=%v: order differs from the full comparison", first, desc, nullsFirst)
				}
			}
		}
	}
}
