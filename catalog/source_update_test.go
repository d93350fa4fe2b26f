package catalog

import (
	"testing"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// UpdateFilesSource stores a files source's new definition and makes its
// columns again from it (data columns, then the rescued-data column),
// durably; it refuses a relation that is not a files source, and an error
// from the change leaves everything as it was.
func TestUpdateFilesSource(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	c := openCatalog(t, st)
	def := &FilesSource{Path: "/data/landing", Format: "json", Rescued: "_rescued_data", Version: 1,
		Columns: []Column{{Name: "id", Type: types.Int8}}}
	r, err := c.CreateRelation(&Relation{Name: "evs", Kind: KindSource, ViewSQL: "SELECT 1",
		Source:  &Source{Connector: "files", Files: def},
		Columns: []Column{{Name: "id", Type: types.Int8, Comment: "the event"}, {Name: "_rescued_data", Type: types.JSONB}}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateFilesSource(r.OID, func(d *FilesSource) error {
		d.Columns = append(d.Columns, Column{Name: "oops", Type: types.Text})
		return sqlerr.New(sqlerr.DataException, "no")
	}); sqlerr.Code(err) != sqlerr.DataException {
		t.Fatalf("a failing change: %v", err)
	}
	if got, _ := c.RelationByOID(r.OID); len(got.Columns) != 2 {
		t.Fatalf("a failing change changed the source: %+v", got.Columns)
	}
	if _, err := c.UpdateFilesSource(r.OID, func(d *FilesSource) error {
		d.Columns = append(d.Columns, Column{Name: "extra", Type: types.Text})
		d.Version = 2
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st = openStore(t, dir)
	c = openCatalog(t, st)
	got, ok := c.RelationByOID(r.OID)
	if !ok || got.Source.Files.Version != 2 || len(got.Source.Files.Columns) != 2 {
		t.Fatalf("after reopening: %+v", got.Source.Files)
	}
	var names []string
	for _, col := range got.Columns {
		names = append(names, col.Name+" "+col.Type.String())
	}
	if len(names) != 3 || names[0] != "id bigint" || names[1] != "extra text" || names[2] != "_rescued_data jsonb" || got.Columns[0].Comment != "the event" {
		t.Fatalf("columns after the update: %q (%+v)", names, got.Columns)
	}
	if _, err := c.UpdateFilesSource(12345, func(*FilesSource) error { return nil }); sqlerr.Code(err) != sqlerr.UndefinedObject {
		t.Fatalf("an unknown OID: %v", err)
	}
}
