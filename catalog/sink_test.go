package catalog

import (
	"reflect"
	"testing"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// A sink is a typed object of its own: its options come back from the
// store as they went in, it needs a streaming table to read, and its name
// is unique among the schema's sinks.
func TestSinkPersists(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	c := openCatalog(t, st)
	table, err := c.CreateRelation(&Relation{Name: "silver", Kind: KindStreamingTable, ViewSQL: "SELECT 1",
		Streaming: &StreamingTable{Definition: "CREATE STREAMING TABLE silver AS SELECT 1"},
		Columns:   []Column{{Name: "region", Type: types.Text}}}, false)
	if err != nil {
		t.Fatal(err)
	}
	files := &FilesSink{Path: "/lake/silver", Format: "parquet", TargetFileSize: 128 << 20, PartitionBy: []string{"region"}}
	s, err := c.CreateSink(&Sink{Name: "out", From: table.OID, Connector: "files", Files: files, Definition: "CREATE SINK out ..."}, false)
	if err != nil {
		t.Fatal(err)
	}
	files.PartitionBy[0] = "changed" // the catalog keeps its own copy
	if _, err := c.CreateSink(&Sink{Name: "out", From: table.OID, Connector: "files", Files: files}, false); sqlerr.Code(err) != sqlerr.DuplicateObject {
		t.Errorf("a second sink out: %v", err)
	}
	if _, err := c.CreateSink(&Sink{Name: "out", From: table.OID, Connector: "files", Files: files}, true); !IsNotice(err) {
		t.Errorf("IF NOT EXISTS: %v", err)
	}
	if _, err := c.CreateSink(&Sink{Name: "x", From: 999999, Connector: "files", Files: files}, false); sqlerr.Code(err) != sqlerr.UndefinedTable {
		t.Errorf("a sink of no table: %v", err)
	}
	if err := c.SetSinkEpochBase(s.OID, 7); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st = openStore(t, dir)
	c = openCatalog(t, st)
	got, err := c.LookupSink([]string{"public"}, "", "out")
	if err != nil {
		t.Fatal(err)
	}
	want := &FilesSink{Path: "/lake/silver", Format: "parquet", TargetFileSize: 128 << 20, PartitionBy: []string{"region"}}
	if got.OID != s.OID || got.Schema != "public" || got.From != table.OID || got.EpochBase != 7 || !reflect.DeepEqual(got.Files, want) || got.Definition != "CREATE SINK out ..." {
		t.Fatalf("after reopening: %+v %+v", got, got.Files)
	}
	if n := len(c.SinksOf(table.OID)); n != 1 {
		t.Errorf("SinksOf: %d", n)
	}
	if err := c.DropSink(s.OID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.LookupSink([]string{"public"}, "", "out"); sqlerr.Code(err) != sqlerr.UndefinedObject {
		t.Errorf("after DROP: %v", err)
	}
	if n := len(c.Sinks()); n != 0 {
		t.Errorf("Sinks after DROP: %d", n)
	}
}
