package planner

import (
	"testing"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

// A nexmark() scan is estimated at its table's share of max_events.
func TestNexmarkRows(t *testing.T) {
	scan := func(table string, events int64) *FunctionScan {
		return &FunctionScan{Func: "nexmark", ArgNames: []string{"table", "max_events"},
			Args: []expr.Expr{&expr.Const{Val: table, T: types.Text}, &expr.Const{Val: events, T: types.Int8}}}
	}
	for _, tc := range []struct {
		table  string
		events int64
		want   float64
	}{{"bid", 100_000, 92_000}, {"auction", 100_000, 6_000}, {"person", 100_000, 2_000}} {
		if got := functionRows(scan(tc.table, tc.events)); got != tc.want {
			t.Errorf("%s of %d events: %v rows, want %v", tc.table, tc.events, got, tc.want)
		}
	}
	if got := functionRows(&FunctionScan{Func: "nexmark"}); got != defaultRelRows {
		t.Errorf("no max_events: %v", got)
	}
}
