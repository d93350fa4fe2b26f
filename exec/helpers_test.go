package exec

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// fakeTables serves fixed batches per table name.
type fakeTables map[string][]arrow.RecordBatch

func (f fakeTables) ScanTable(ctx context.Context, s *planner.Scan) ([]arrow.RecordBatch, error) {
	return f[s.Name], nil
}

func cols(spec ...any) []planner.Column {
	var out []planner.Column
	for i := 0; i < len(spec); i += 2 {
		out = append(out, planner.Column{Name: spec[i].(string), T: spec[i+1].(types.T)})
	}
	return out
}

// mkBatch builds a batch from rows of datums.
func mkBatch(cs []planner.Column, rows ...[]expr.Datum) arrow.RecordBatch {
	arrs := make([]arrow.Array, len(cs))
	for c := range cs {
		ds := make([]expr.Datum, len(rows))
		for r := range rows {
			ds[r] = rows[r][c]
		}
		arrs[c] = expr.ArrayFromDatums(nil, cs[c].T, ds)
	}
	return array.NewRecordBatch(planner.Schema(cs), arrs, int64(len(rows)))
}

func row(ds ...expr.Datum) []expr.Datum { return ds }

// scanOf returns a Scan of table name over the given batches.
func scanOf(tables fakeTables, name string, cs []planner.Column, batches ...arrow.RecordBatch) *planner.Scan {
	tables[name] = batches
	return &planner.Scan{Name: name, Cols: cs}
}

func col(i int, t types.T) *expr.ColumnRef     { return &expr.ColumnRef{Index: i, T: t} }
func cnst(d expr.Datum, t types.T) *expr.Const { return &expr.Const{Val: d, T: t} }

// format renders output rows as "a b c" lines, NULL as NULL.
func format(batches []arrow.RecordBatch) []string {
	var out []string
	for _, b := range batches {
		for r := 0; r < int(b.NumRows()); r++ {
			parts := make([]string, b.NumCols())
			for c := range parts {
				d := expr.DatumAt(b.Column(c), r)
				if d == nil {
					parts[c] = "NULL"
				} else {
					parts[c] = fmt.Sprint(d)
				}
			}
			out = append(out, strings.Join(parts, " "))
		}
	}
	return out
}

func run(t *testing.T, env *Env, plan planner.Node) []string {
	t.Helper()
	bs, err := Run(context.Background(), env, plan)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, b := range bs {
		if b.NumRows() > BatchSize || b.NumRows() == 0 {
			t.Fatalf("batch of %d rows", b.NumRows())
		}
	}
	return format(bs)
}

func runErr(t *testing.T, env *Env, plan planner.Node, code string) {
	t.Helper()
	_, err := Run(context.Background(), env, plan)
	if sqlerr.Code(err) != code {
		t.Fatalf("want error %s, got %v", code, err)
	}
}

func expect(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func expectSorted(t *testing.T, got []string, want ...string) {
	t.Helper()
	g := append([]string{}, got...)
	w := append([]string{}, want...)
	sortStrings(g)
	sortStrings(w)
	expect(t, g, w...)
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// cmpFunc is a test comparison operator over any two same-typed columns.
func cmpFunc(op string, a, b expr.Expr) *expr.FuncCall {
	impl := func(ctx *expr.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		bb := array.NewBooleanBuilder(ctx.Allocator())
		defer bb.Release()
		for i := 0; i < n; i++ {
			x, y := expr.DatumAt(args[0], i), expr.DatumAt(args[1], i)
			if x == nil || y == nil {
				bb.AppendNull()
				continue
			}
			c := compareDatum(x, y)
			var r bool
			switch op {
			case "=":
				r = c == 0
			case "<":
				r = c < 0
			case ">":
				r = c > 0
			case "<>":
				r = c != 0
			}
			bb.Append(r)
		}
		return bb.NewArray(), nil
	}
	return &expr.FuncCall{Name: op, Args: []expr.Expr{a, b}, Impl: impl, T: types.Bool, Op: true}
}

// Test-only aggregates: sum over int8 (NULL for no rows), count of non-null
// args (count(*) without args), and concat of text in input order.
type sumAcc struct {
	sums []int64
	seen []bool
}

func (s *sumAcc) grow(g uint32) {
	for int(g) >= len(s.sums) {
		s.sums = append(s.sums, 0)
		s.seen = append(s.seen, false)
	}
}

func (s *sumAcc) Update(ctx *expr.Ctx, groups []uint32, args []arrow.Array) error {
	a := args[0].(*array.Int64)
	for i, g := range groups {
		s.grow(g)
		if a.IsValid(i) {
			s.sums[g] += a.Value(i)
			s.seen[g] = true
		}
	}
	return nil
}

func (s *sumAcc) Finish(ctx *expr.Ctx, n int) (arrow.Array, error) {
	b := array.NewInt64Builder(ctx.Allocator())
	defer b.Release()
	for g := 0; g < n; g++ {
		if g < len(s.seen) && s.seen[g] {
			b.Append(s.sums[g])
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray(), nil
}

type countAcc struct{ counts []int64 }

func (c *countAcc) Update(ctx *expr.Ctx, groups []uint32, args []arrow.Array) error {
	for i, g := range groups {
		for int(g) >= len(c.counts) {
			c.counts = append(c.counts, 0)
		}
		if len(args) == 0 || args[0].IsValid(i) {
			c.counts[g]++
		}
	}
	return nil
}

func (c *countAcc) Finish(ctx *expr.Ctx, n int) (arrow.Array, error) {
	ds := make([]expr.Datum, n)
	for g := range ds {
		ds[g] = int64(0)
		if g < len(c.counts) {
			ds[g] = c.counts[g]
		}
	}
	return expr.ArrayFromDatums(ctx.Allocator(), types.Int8, ds), nil
}

type concatAcc struct{ s []string }

func (c *concatAcc) Update(ctx *expr.Ctx, groups []uint32, args []arrow.Array) error {
	for i, g := range groups {
		for int(g) >= len(c.s) {
			c.s = append(c.s, "")
		}
		c.s[g] += fmt.Sprint(expr.DatumAt(args[0], i))
	}
	return nil
}

func (c *concatAcc) Finish(ctx *expr.Ctx, n int) (arrow.Array, error) {
	ds := make([]expr.Datum, n)
	for g := range ds {
		ds[g] = ""
		if g < len(c.s) {
			ds[g] = c.s[g]
		}
	}
	return expr.ArrayFromDatums(ctx.Allocator(), types.Text, ds), nil
}

var (
	sumAgg = &expr.ResolvedAgg{Overload: &expr.AggOverload{New: func([]types.T, types.T) expr.Accumulator { return &sumAcc{} }},
		ArgTypes: []types.T{types.Int8}, Ret: types.Int8}
	countAgg = &expr.ResolvedAgg{Overload: &expr.AggOverload{New: func([]types.T, types.T) expr.Accumulator { return &countAcc{} }},
		Ret: types.Int8}
	concatAgg = &expr.ResolvedAgg{Overload: &expr.AggOverload{New: func([]types.T, types.T) expr.Accumulator { return &concatAcc{} }},
		ArgTypes: []types.T{types.Text}, Ret: types.Text}
)

func newEnv() (*Env, fakeTables) {
	t := fakeTables{}
	return &Env{Tables: t, Ctx: &expr.Ctx{}}, t
}
