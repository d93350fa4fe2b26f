package exec

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/types"
)

func TestGenerateSeries(t *testing.T) {
	env, _ := newEnv()
	gs := func(t types.T, ord bool, args ...expr.Expr) *planner.FunctionScan {
		cs := cols("g", t)
		if ord {
			cs = append(cs, planner.Column{Name: "ordinality", T: types.Int8})
		}
		return &planner.FunctionScan{Func: "generate_series", Args: args, Cols: cs, WithOrdinality: ord}
	}
	i4 := func(v int64) expr.Expr { return cnst(v, types.Int4) }
	expect(t, run(t, env, gs(types.Int4, false, i4(1), i4(3))), "1", "2", "3")
	expect(t, run(t, env, gs(types.Int4, true, i4(10), i4(1), i4(-4))), "10 1", "6 2", "2 3")
	expect(t, run(t, env, gs(types.Int4, false, i4(3), i4(1))))
	expect(t, run(t, env, gs(types.Int4, false, i4(1), cnst(nil, types.Int4))))
	runErr(t, env, gs(types.Int4, false, i4(1), i4(3), i4(0)), "22023")
	num := func(s string) expr.Expr { return cnst(s, types.Numeric) }
	expect(t, run(t, env, gs(types.Numeric, false, num("1.0"), num("2"), num("0.5"))), "1.0", "1.5", "2.0")
	if got := run(t, env, gs(types.Int8, false, cnst(int64(1), types.Int8), cnst(int64(20000), types.Int8))); len(got) != 20000 || got[19999] != "20000" {
		t.Fatalf("big series: %d rows", len(got))
	}
	day := time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC).UnixMicro()
	stop := time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	ts := run(t, env, gs(types.Timestamp, false, cnst(day, types.Timestamp), cnst(stop, types.Timestamp),
		cnst(arrow.MonthDayNanoInterval{Months: 1}, types.Interval)))
	want := []string{}
	for _, d := range []time.Time{time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC), time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 29, 0, 0, 0, 0, time.UTC)} {
		want = append(want, fmtInt(d.UnixMicro()))
	}
	expect(t, ts, want...)
}

func fmtInt(v int64) string { return run1(v) }

func run1(v int64) string {
	return format([]arrow.RecordBatch{mkBatch(cols("x", types.Int8), row(v))})[0]
}

func TestUnnest(t *testing.T) {
	env, _ := newEnv()
	arr := cnst([]expr.Datum{int64(5), nil, int64(7)}, types.ArrayOf(types.Int4))
	f := &planner.FunctionScan{Func: "unnest", Args: []expr.Expr{arr}, Cols: cols("u", types.Int4, "n", types.Int8), WithOrdinality: true}
	expect(t, run(t, env, f), "5 1", "NULL 2", "7 3")
	runErr(t, env, &planner.FunctionScan{Func: "nope", Cols: cols("u", types.Int4)}, "0A000")
}
