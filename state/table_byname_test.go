package state

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestScanWiderSchema: chunks written under an older column list (a
// streaming table before its files source's schema evolved) read by name
// with the new list — the added column NULL — and newer chunks read with
// the older list leave it out; a type clash by name is still refused.
func TestScanWiderSchema(t *testing.T) {
	s := openTest(t, t.TempDir(), Options{})
	oldS := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "_rescued_data", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	newS := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "extra", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "_rescued_data", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	build := func(sc *arrow.Schema, id int64, extra string) arrow.RecordBatch {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).Append(id)
		for i := 1; i < sc.NumFields(); i++ {
			if sc.Field(i).Name == "extra" {
				b.Field(i).(*array.StringBuilder).Append(extra)
			} else {
				b.Field(i).AppendNull()
			}
		}
		return b.NewRecordBatch()
	}
	appendCommit(t, s, 7, build(oldS, 1, ""))
	appendCommit(t, s, 7, build(newS, 2, "x"))
	got, err := s.ScanTable(7, newS)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !got[0].Schema().Equal(newS) || got[0].Column(1).IsValid(0) || got[1].Column(1).(*array.String).Value(0) != "x" {
		t.Fatalf("wide scan: %v", got)
	}
	got, err = s.ScanTable(7, oldS)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].NumCols() != 2 || got[1].Column(0).(*array.Int64).Value(0) != 2 {
		t.Fatalf("narrow scan: %v", got)
	}
	clash := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "extra", Type: arrow.BinaryTypes.String}, {Name: "_rescued_data", Type: arrow.BinaryTypes.String}}, nil)
	if _, err := s.ScanTable(7, clash); err == nil {
		t.Fatal("a type clash by name was read")
	}
}
