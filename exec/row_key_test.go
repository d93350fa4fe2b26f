package exec

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// TestRowKey: rows GROUP BY would put together get one key, others not,
// and the key of a multi-column row cannot be confused with another
// split of the same bytes.
func TestRowKey(t *testing.T) {
	mem := memory.DefaultAllocator
	col := func(t types.T, vals ...expr.Datum) arrow.Array { return expr.ArrayFromDatums(mem, t, vals) }
	key := func(cols []arrow.Array, i int) string { return string(appendRowKey(nil, cols, i)) }

	f := []arrow.Array{col(types.Float8, 0.0, math.Copysign(0, -1), math.NaN(), -math.NaN(), 1.5)}
	if key(f, 0) != key(f, 1) || key(f, 2) != key(f, 3) || key(f, 0) == key(f, 4) {
		t.Errorf("float keys: 0/-0 and NaN/NaN must be equal, 0 and 1.5 not")
	}
	n := []arrow.Array{col(types.Int8, nil, int64(0))}
	if key(n, 0) == key(n, 1) {
		t.Errorf("NULL and 0 share a key")
	}
	// ("ab", "c") and ("a", "bc") must differ.
	s := []arrow.Array{col(types.Text, "ab", "a"), col(types.Text, "c", "bc")}
	if key(s, 0) == key(s, 1) {
		t.Errorf("text keys are ambiguous")
	}
	// int4 and int8 holding the same value: the same key (a partition's
	// type does not change, but the encoding must not depend on width).
	if key([]arrow.Array{col(types.Int4, int64(7))}, 0) != key([]arrow.Array{col(types.Int8, int64(7))}, 0) {
		t.Errorf("int widths give different keys")
	}
	iv := []arrow.Array{col(types.Interval, arrow.MonthDayNanoInterval{Days: 1}, arrow.MonthDayNanoInterval{Days: 2})}
	if key(iv, 0) == key(iv, 1) {
		t.Errorf("interval keys collide")
	}
}
