package iceberg

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

var keyedColumns = []Column{{"k", types.Text}, {"total", types.Int8}}

func keyed(rows map[string]int64) []arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "total", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for k, v := range rows {
		b.Field(0).(*array.StringBuilder).Append(k)
		b.Field(1).(*array.Int64Builder).Append(v)
	}
	return []arrow.RecordBatch{b.NewRecordBatch()}
}

func readKeyed(t *testing.T, s *Sink) []string {
	t.Helper()
	at, err := s.Table().Scan().ToArrowTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	rdr := array.NewTableReader(at, 0)
	defer rdr.Release()
	var out []string
	for rdr.Next() {
		rec := rdr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			out = append(out, rec.Column(0).(*array.String).Value(i)+"="+cellText(rec.Column(1), i))
		}
	}
	slices.Sort(out)
	return out
}

// change is one row of an update-mode table's change feed.
type change struct {
	kind string // insert, delete
	k    string
	v    int64
}

func changeFeed(epoch int64, cs ...change) []arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "total", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: ChangeTypeColumn, Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: CommitVersionColumn, Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, c := range cs {
		b.Field(0).(*array.StringBuilder).Append(c.k)
		b.Field(1).(*array.Int64Builder).Append(c.v)
		b.Field(2).(*array.StringBuilder).Append(c.kind)
		b.Field(3).(*array.Int64Builder).Append(epoch)
	}
	return []arrow.RecordBatch{b.NewRecordBatch()}
}

func ins(k string, v int64) change { return change{"insert", k, v} }
func del(k string, v int64) change { return change{"delete", k, v} }

// An update-mode table's change feed is applied to the Iceberg table:
// after each epoch its rows are the table's contents, and a crash before
// an epoch's snapshot re-applies that epoch once.
func TestUpdateModeChangeFeed(t *testing.T) {
	st := openStore(t)
	cfg := Config{Options: Options{Warehouse: t.TempDir(), Namespace: []string{"gold"}, Table: "totals"},
		Identity: "totals#9", Columns: keyedColumns, Updates: true}
	s := mustOpen(t, cfg)
	steps := []struct {
		changes []change
		want    []string
	}{
		{[]change{ins("a", 1), ins("b", 2)}, []string{"a=1", "b=2"}},
		{[]change{del("b", 2), ins("b", 3), ins("c", 1)}, []string{"a=1", "b=3", "c=1"}},
		{nil, []string{"a=1", "b=3", "c=1"}},
		{[]change{ins("d", 1), del("d", 1), del("a", 1)}, []string{"b=3", "c=1"}},
		{[]change{del("b", 3), del("c", 1), ins("c", 5)}, []string{"c=5"}},
	}
	for i, step := range steps {
		epoch := int64(i + 1)
		if err := connector.WriteEpoch(st, s, epoch, changeFeed(epoch, step.changes...)); err != nil {
			t.Fatal(err)
		}
		if got := readKeyed(t, s); !slices.Equal(got, step.want) {
			t.Errorf("after epoch %d: %v, want %v", epoch, got, step.want)
		}
		if snap := s.Table().CurrentSnapshot(); snap.Summary.Properties[SummaryEpoch] != itoa(int(epoch)) {
			t.Errorf("epoch %d's snapshot says %v", epoch, snap.Summary.Properties)
		}
	}
	// Epoch 6 reaches the store but not the table; the restart re-runs it.
	tx := st.Begin(true)
	if err := s.Write(tx, 6, changeFeed(6, del("c", 5), ins("c", 6), ins("e", 1))); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, cfg)
	if n, _ := s.LastCommitted(); n != 5 {
		t.Fatalf("after the crash LastCommitted = %d, want 5", n)
	}
	if err := connector.WriteEpoch(st, s, 6, changeFeed(6, del("c", 5), ins("c", 6), ins("e", 1))); err != nil {
		t.Fatal(err)
	}
	if got, want := readKeyed(t, mustOpen(t, cfg)), []string{"c=6", "e=1"}; !slices.Equal(got, want) {
		t.Errorf("after the re-run: %v, want %v", got, want)
	}
	// The current snapshot's data files hold exactly the table's rows
	// (what a reader of the files alone, such as DuckDB's read_parquet,
	// relies on).
	tasks, err := s.Table().Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	for _, task := range tasks {
		rows += task.File.Count()
		if len(task.DeleteFiles) > 0 {
			t.Errorf("delete files: %v", task.DeleteFiles)
		}
	}
	if rows != 2 {
		t.Errorf("the current data files hold %d rows, want 2", rows)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// partition_by makes a partitioned table, one folder per partition value.
func TestPartitionBy(t *testing.T) {
	opts, err := ParseOptions([]connector.Setting{{Name: "warehouse", Value: t.TempDir()}, {Name: "namespace", Value: "bronze"}, {Name: "partition_by", Value: "k"}}, "by_key")
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	cfg := Config{Options: opts, Identity: "by_key#3", Columns: keyedColumns}
	s := mustOpen(t, cfg)
	if err := connector.WriteEpoch(st, s, 1, keyed(map[string]int64{"x": 1, "y": 2})); err != nil {
		t.Fatal(err)
	}
	if err := connector.WriteEpoch(st, s, 2, keyed(map[string]int64{"x": 3})); err != nil {
		t.Fatal(err)
	}
	if got, want := readKeyed(t, s), []string{"x=1", "x=3", "y=2"}; !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	for _, part := range []string{"k=x", "k=y"} {
		m, _ := filepath.Glob(filepath.Join(opts.Warehouse, "bronze", "by_key", "data", part, "*.parquet"))
		if len(m) == 0 {
			entries, _ := os.ReadDir(filepath.Join(opts.Warehouse, "bronze", "by_key", "data"))
			t.Errorf("no data file under %s; data/ holds %v", part, entries)
		}
	}
	if spec := s.Table().Spec(); spec.NumFields() != 1 {
		t.Errorf("partition spec has %d fields", spec.NumFields())
	}
}

func TestPartitionByRefused(t *testing.T) {
	for _, tc := range []struct{ by, code string }{
		{"nosuch", sqlerr.UndefinedColumn},
		{"day(k)", sqlerr.InvalidParameterValue}, // day of a text column
		{"bucket(k)", sqlerr.InvalidParameterValue},
		{"k,", sqlerr.InvalidParameterValue},
		{"frobnicate(k)", sqlerr.InvalidParameterValue},
	} {
		opts, err := ParseOptions([]connector.Setting{{Name: "warehouse", Value: t.TempDir()}, {Name: "partition_by", Value: tc.by}}, "t")
		if err == nil {
			_, err = Open(Config{Options: opts, Identity: "t#1", Columns: keyedColumns})
		}
		if sqlerr.Code(err) != tc.code {
			t.Errorf("partition_by %q: %v (%s), want %s", tc.by, err, sqlerr.Code(err), tc.code)
		}
	}
}

func TestParseOptions(t *testing.T) {
	o, err := ParseOptions([]connector.Setting{{Name: "warehouse", Value: "/lake"}, {Name: "namespace", Value: "a.b"}, {Name: "table", Value: "t2"},
		{Name: "partition_by", Value: "region, day(ts), bucket(16, id), truncate(4, name), hours(ts)"}}, "t")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.Namespace, []string{"a", "b"}) || o.Table != "t2" || o.Warehouse != "/lake" {
		t.Errorf("parsed %+v", o)
	}
	want := []PartitionField{{"region", "identity"}, {"ts", "day"}, {"id", "bucket[16]"}, {"name", "truncate[4]"}, {"ts", "hour"}}
	if !slices.Equal(o.PartitionBy, want) {
		t.Errorf("partition_by = %v, want %v", o.PartitionBy, want)
	}
	if o, err := ParseOptions([]connector.Setting{{Name: "warehouse", Value: "/lake"}}, "events"); err != nil || o.Table != "events" || o.Namespace[0] != "default" {
		t.Errorf("defaults: %+v %v", o, err)
	}
	for _, bad := range [][]connector.Setting{
		{},
		{{Name: "warehouse", Value: "/lake"}, {Name: "path", Value: "x"}},
		{{Name: "warehouse", Value: "/lake"}, {Name: "table", Value: "a/b"}},
		{{Name: "warehouse", Value: "/lake"}, {Name: "namespace", Value: "a..b"}},
	} {
		if _, err := ParseOptions(bad, "t"); sqlerr.Code(err) != sqlerr.InvalidParameterValue {
			t.Errorf("%v: %v, want 22023", bad, err)
		}
	}
}

// An existing Iceberg table with other columns is refused (42804).
func TestExistingTableMismatch(t *testing.T) {
	cfg := Config{Options: Options{Warehouse: t.TempDir(), Namespace: []string{"default"}, Table: "t"}, Identity: "t#1", Columns: keyedColumns}
	mustOpen(t, cfg)
	cfg.Columns = []Column{{"k", types.Text}, {"total", types.Float8}}
	if _, err := Open(cfg); sqlerr.Code(err) != sqlerr.DatatypeMismatch {
		t.Errorf("got %v, want 42804", err)
	}
}
