package catalog

import (
	"reflect"
	"testing"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// A source is a typed object: its connector options and watermark come
// back from the store as they went in, it shows as a view to clients, and
// it is dropped only as a source.
func TestSourcePersists(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	c := openCatalog(t, st)
	src := &Source{Connector: "nexmark", WatermarkColumn: "date_time", WatermarkDelayUS: 4_000_000,
		Definition: "CREATE SOURCE bid WITH (connector = 'nexmark', table = 'bid')",
		Nexmark: &NexmarkSource{Table: "bid", EventsPerSecond: 1000, MaxEvents: 5000, Seed: 3, BatchRows: 92,
			DisorderUS: 1_000_000, LateFraction: 0.01, LateByUS: 60_000_000, Paced: true}}
	r, err := c.CreateRelation(&Relation{Name: "bid", Kind: KindSource, ViewSQL: "SELECT 1", Source: src,
		Columns: []Column{{Name: "date_time", Type: types.Timestamp}}}, false)
	if err != nil {
		t.Fatal(err)
	}
	src.Nexmark.Seed = 99 // the catalog keeps its own copy
	st.Close()
	st = openStore(t, dir)
	c = openCatalog(t, st)
	got, ok := c.RelationByOID(r.OID)
	if !ok || got.Kind != KindSource || got.Source == nil || got.Source.Nexmark == nil {
		t.Fatalf("after reopening: %+v", got)
	}
	want := *r.Source
	if !reflect.DeepEqual(*got.Source.Nexmark, *want.Nexmark) || got.Source.WatermarkColumn != "date_time" || got.Source.WatermarkDelayUS != 4_000_000 ||
		got.Source.Definition != want.Definition || got.Source.Nexmark.Seed != 3 {
		t.Fatalf("source after reopening: %+v %+v", got.Source, got.Source.Nexmark)
	}
	if got.Kind.PGRelKind() != 'v' || got.Kind.HasData() || got.Kind.Noun() != "source" {
		t.Fatalf("kind %c: relkind %c, has data %v, %s", got.Kind, got.Kind.PGRelKind(), got.Kind.HasData(), got.Kind.Noun())
	}
	err = c.DropRelation(nil, "public", "bid", KindTable, false)
	if e := wantErr(t, err, sqlerr.WrongObjectType, `"bid" is not a table`); e.Hint != "Use DROP SOURCE to remove a source." {
		t.Fatalf("hint %q", e.Hint)
	}
	if err := c.DropRelation(nil, "public", "bid", KindSource, false); err != nil {
		t.Fatal(err)
	}
}
