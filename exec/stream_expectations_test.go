package exec

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// noTables is a catalog without relations: expectations name columns only.
type noTables struct{}

func (noTables) LookupRelation(schema, name string) (*planner.Relation, error) {
	return nil, sqlerr.New(sqlerr.UndefinedTable, "relation \"%s\" does not exist", name)
}

var qualityCols = []planner.Column{{Name: "id", T: types.Int8}, {Name: "amount", T: types.Int8}, {Name: "kind", T: types.Text}}

func qualityStage(t testing.TB, quarantine bool, defs ...[3]string) *ExpectationStage {
	var list []planner.Expectation
	for _, d := range defs {
		e, err := planner.BindExpectation(noTables{}, qualityCols, d[0], d[1], d[2])
		if err != nil {
			t.Fatal(err)
		}
		list = append(list, e)
	}
	return NewExpectationStage("silver", list, qualityCols, quarantine)
}

// qualityBatch holds ids 1..n; amount is id % 10 - 1 (so -1 and 0 fail
// amount > 0), NULL for every 7th row; kind cycles view, buy, x.
func qualityBatch(n int) arrow.RecordBatch {
	ids := array.NewInt64Builder(memory.DefaultAllocator)
	amounts := array.NewInt64Builder(memory.DefaultAllocator)
	kinds := array.NewStringBuilder(memory.DefaultAllocator)
	for i := 1; i <= n; i++ {
		ids.Append(int64(i))
		if i%7 == 0 {
			amounts.AppendNull()
		} else {
			amounts.Append(int64(i%10 - 1))
		}
		kinds.Append([]string{"view", "buy", "x"}[i%3])
	}
	return array.NewRecordBatch(planner.Schema(qualityCols), []arrow.Array{ids.NewArray(), amounts.NewArray(), kinds.NewArray()}, int64(n))
}

func TestExpectationStage(t *testing.T) {
	s := qualityStage(t, true,
		[3]string{"pos", "amount > 0", "drop row"},
		[3]string{"known", "kind IN ('view', 'buy')", ""},
		[3]string{"ratio", "100 / amount > 20", "drop row"})
	changes := []ChangeBatch{Inserts(qualityBatch(70))}
	if err := s.check(&expr.Ctx{}, changes); err != nil {
		t.Fatal(err)
	}
	// By hand over ids 1..70: amount = id%10-1, NULL at multiples of 7.
	var pos, known, ratio, kept int64
	for i := 1; i <= 70; i++ {
		a, null := int64(i%10-1), i%7 == 0
		okPos := null || a > 0
		okRatio := null || (a != 0 && 100/a > 20)
		if !okPos {
			pos++
		}
		if !okRatio {
			ratio++
		}
		if i%3 == 2 {
			known++
		}
		if okPos && okRatio {
			kept++
		}
	}
	ep := s.Epoch()
	want := []ExpectationTally{{70 - pos, pos}, {70 - known, known}, {70 - ratio, ratio}}
	for i, w := range want {
		if ep.Counts[i] != w {
			t.Errorf("%s: %+v, want %+v", s.list[i].Name, ep.Counts[i], w)
		}
	}
	if got := changes[0].Rows.NumRows(); got != kept || ep.Rows != 70 || ep.Dropped != 70-kept {
		t.Errorf("kept %d rows (want %d), checked %d, dropped %d", got, kept, ep.Rows, ep.Dropped)
	}
	var q int64
	for _, b := range ep.Quarantined {
		q += b.NumRows()
		names := b.Column(int(b.NumCols()) - 1).(*array.List)
		for i := 0; i < int(b.NumRows()); i++ {
			if names.IsNull(i) {
				t.Errorf("quarantined row %d has no names", i)
			}
		}
	}
	if q != 70-kept {
		t.Errorf("%d rows quarantined, want %d", q, 70-kept)
	}

	// A FAIL UPDATE expectation fails the epoch, naming it and the row.
	f := qualityStage(t, false, [3]string{"known", "kind IN ('view', 'buy')", "fail update"})
	err := f.check(&expr.Ctx{}, []ChangeBatch{Inserts(qualityBatch(5))})
	if !IsExpectationViolation(err) || !strings.Contains(err.Error(), "Violated expectations: 'known'") || !strings.Contains(err.Error(), `"id": 2`) {
		t.Errorf("FAIL UPDATE: %v", err)
	}
}

// BenchmarkExpectationStage checks 64K-row batches against a warning and a
// DROP ROW expectation with a quarantine.
func BenchmarkExpectationStage(b *testing.B) {
	s := qualityStage(b, true, [3]string{"pos", "amount > 0", "drop row"}, [3]string{"known", "kind IN ('view', 'buy')", ""})
	batch := qualityBatch(1 << 16)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.check(&expr.Ctx{}, []ChangeBatch{Inserts(batch)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*float64(batch.NumRows())/b.Elapsed().Seconds(), "rows/s")
}
