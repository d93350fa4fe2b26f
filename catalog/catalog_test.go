package catalog

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
)

var path = []string{"public"}

func openStore(t *testing.T, dir string) *state.Store {
	t.Helper()
	st, err := state.Open(dir, state.Options{Sync: state.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func openCatalog(t *testing.T, st *state.Store) *Catalog {
	t.Helper()
	c, err := Open(st)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func table(name string, cols ...string) *Relation {
	r := &Relation{Name: name, Kind: KindTable}
	for _, col := range cols {
		r.Columns = append(r.Columns, Column{Name: col, Type: types.Int4})
	}
	return r
}

func wantErr(t *testing.T, err error, code, msg string) *sqlerr.Error {
	t.Helper()
	e, ok := err.(*sqlerr.Error)
	if !ok || e.Code != code || e.Message != msg {
		t.Fatalf("got %v (%T), want %s %q", err, err, code, msg)
	}
	return e
}

func TestBootstrap(t *testing.T) {
	c := openCatalog(t, openStore(t, t.TempDir()))
	var names []string
	for _, s := range c.Schemas() {
		names = append(names, fmt.Sprintf("%s=%d", s.Name, s.OID))
	}
	if got := fmt.Sprint(names); got != "[pg_catalog=11 public=2200 information_schema=13000]" {
		t.Fatalf("schemas %s", got)
	}
	dbs := c.Databases()
	if len(dbs) != 1 || dbs[0].Name != "weir" || dbs[0].OID != FirstUserOID {
		t.Fatalf("databases %+v", dbs)
	}
	r, ok := c.Role("weir")
	if !ok || r.OID != 10 || !r.Superuser || !r.CanLogin {
		t.Fatalf("bootstrap role %+v", r)
	}
}

func TestCreateLookupDropPersist(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	c := openCatalog(t, st)
	v0 := c.Version()
	r, err := c.CreateRelation(&Relation{Name: "t", Kind: KindTable, PrimaryKey: []string{"a"},
		Columns: []Column{{Name: "a", Type: types.Int8, NotNull: true}, {Name: "b", Type: types.Text, Default: "'x'"}},
		Table:   &TableOptions{Retention: 24 * time.Hour}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if r.OID <= FirstUserOID || r.Schema != "public" || r.Owner != BootstrapRoleOID || r.Created.IsZero() {
		t.Fatalf("created %+v", r)
	}
	if c.Version() == v0 {
		t.Fatal("version did not change")
	}
	if _, err := c.CreateSchema("s", false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateRelation(&Relation{Schema: "s", Name: "v", Kind: KindView, ViewSQL: "SELECT 1",
		Columns: []Column{{Name: "x", Type: types.Int4}}}, false); err != nil {
		t.Fatal(err)
	}
	got, err := c.LookupRelation([]string{"s", "public"}, "", "t")
	if err != nil || got.OID != r.OID {
		t.Fatalf("lookup via search path: %v %v", got, err)
	}
	if _, err := c.LookupRelation(path, "", "v"); err == nil {
		t.Fatal("v found outside the search path")
	}
	if got, ok := c.RelationByOID(r.OID); !ok || got.Name != "t" {
		t.Fatal("RelationByOID")
	}
	// Table data goes with the table.
	tx := st.Begin(true)
	if err := tx.AppendChunks(r.OID, []arrow.RecordBatch{oneRow()}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st = openStore(t, dir)
	c = openCatalog(t, st)
	got, err = c.LookupRelation(nil, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	if got.OID != r.OID || len(got.Columns) != 2 || got.Columns[0].Type != types.Int8 || !got.Columns[0].NotNull ||
		got.Columns[1].Default != "'x'" || got.Table == nil || got.Table.Retention != 24*time.Hour || got.PrimaryKey[0] != "a" ||
		!got.Created.Equal(r.Created) {
		t.Fatalf("after reopen: %+v, want %+v", got, r)
	}
	if v, err := c.LookupRelation(nil, "s", "v"); err != nil || v.ViewSQL != "SELECT 1" || v.Kind != KindView {
		t.Fatalf("view after reopen: %+v %v", v, err)
	}
	if rows, _, _ := st.TableStats(r.OID); rows != 1 {
		t.Fatalf("table has %d rows", rows)
	}
	if err := c.DropRelation(path, "", "t", KindTable, false); err != nil {
		t.Fatal(err)
	}
	if rows, _, _ := st.TableStats(r.OID); rows != 0 {
		t.Fatalf("dropped table still has %d rows", rows)
	}
	next, err := c.CreateRelation(table("t2", "a"), false)
	if err != nil || next.OID <= r.OID {
		t.Fatalf("OIDs not increasing: %v after %d (%v)", next, r.OID, err)
	}
	st.Close()

	st = openStore(t, dir)
	defer st.Close()
	c = openCatalog(t, st)
	if _, err := c.LookupRelation(path, "", "t"); err == nil {
		t.Fatal("dropped table back after reopen")
	}
	if len(c.Relations()) != 2 {
		t.Fatalf("relations %v", c.Relations())
	}
}

func oneRow() arrow.RecordBatch {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.Append(1)
	col := b.NewArray()
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{col}, 1)
}

func TestErrors(t *testing.T) {
	st := openStore(t, t.TempDir())
	defer st.Close()
	c := openCatalog(t, st)
	if _, err := c.CreateRelation(table("t", "a"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateRelation(&Relation{Name: "v", Kind: KindView}, false); err != nil {
		t.Fatal(err)
	}
	_, err := c.CreateRelation(table("t", "a"), false)
	wantErr(t, err, "42P07", `relation "t" already exists`)
	old, err := c.CreateRelation(table("t", "b"), true)
	if !IsNotice(err) || old.Columns[0].Name != "a" {
		t.Fatalf("IF NOT EXISTS: %v %v", old, err)
	}
	wantErr(t, err, "42P07", `relation "t" already exists, skipping`)
	_, err = c.CreateRelation(&Relation{Schema: "nope", Name: "x"}, false)
	wantErr(t, err, "3F000", `schema "nope" does not exist`)
	_, err = c.CreateRelation(table("d", "a", "b", "a"), false)
	wantErr(t, err, "42701", `column "a" specified more than once`)

	wantErr(t, c.DropRelation(path, "", "nope", KindTable, false), "42P01", `table "nope" does not exist`)
	err = c.DropRelation(path, "", "nope", KindView, true)
	if !IsNotice(err) {
		t.Fatalf("DROP VIEW IF EXISTS: %v", err)
	}
	e := wantErr(t, c.DropRelation(path, "", "v", KindTable, false), "42809", `"v" is not a table`)
	if e.Hint != "Use DROP VIEW to remove a view." {
		t.Fatalf("hint %q", e.Hint)
	}
	e = wantErr(t, c.DropRelation(path, "", "t", KindView, false), "42809", `"t" is not a view`)
	if e.Hint != "Use DROP TABLE to remove a table." {
		t.Fatalf("hint %q", e.Hint)
	}
	_, err = c.LookupRelation(path, "", "nope")
	wantErr(t, err, "42P01", `relation "nope" does not exist`)
	_, err = c.LookupRelation(path, "s", "nope")
	wantErr(t, err, "42P01", `relation "s.nope" does not exist`)

	_, err = c.CreateSchema("public", false)
	wantErr(t, err, "42P06", `schema "public" already exists`)
	wantErr(t, c.DropSchema("nope", false, false), "3F000", `schema "nope" does not exist`)
	e = wantErr(t, c.DropSchema("public", false, false), "2BP01", `cannot drop schema public because other objects depend on it`)
	if err := c.DropSchema("public", false, true); err != nil {
		t.Fatal(err)
	}
	if len(c.Relations()) != 0 {
		t.Fatal("CASCADE left relations")
	}

	_, err = c.CreateRole("weir", "", false, true)
	wantErr(t, err, "42710", `role "weir" already exists`)
	wantErr(t, c.DropRole("nope", false), "42704", `role "nope" does not exist`)
	wantErr(t, c.DropRole("weir", false), "2BP01", `cannot drop role weir because it is required by the database system`)
}

func TestRoles(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	c := openCatalog(t, st)
	r, err := c.CreateRole("alice", "SCRAM-SHA-256$x", false, true)
	if err != nil || r.OID < FirstUserOID {
		t.Fatalf("%+v %v", r, err)
	}
	yes, v := true, "SCRAM-SHA-256$y"
	if _, err := c.AlterRole("alice", RoleChange{Superuser: &yes, Verifier: &v, Rename: "bob"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateRole("carol", "", false, false); err != nil {
		t.Fatal(err)
	}
	if err := c.DropRole("carol", false); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st = openStore(t, dir)
	defer st.Close()
	c = openCatalog(t, st)
	var names []string
	for _, r := range c.Roles() {
		names = append(names, r.Name)
	}
	if fmt.Sprint(names) != "[weir pg_monitor pg_read_all_settings pg_read_all_stats pg_stat_scan_tables pg_signal_backend pg_checkpoint pg_read_server_files pg_write_server_files pg_execute_server_program pg_database_owner pg_read_all_data pg_write_all_data bob]" {
		t.Fatalf("roles %v", names)
	}
	b, _ := c.Role("bob")
	if !b.Superuser || b.Verifier != v || b.OID != r.OID {
		t.Fatalf("bob %+v", b)
	}
}

func TestConcurrentReadersAndWriters(t *testing.T) {
	st := openStore(t, t.TempDir())
	defer st.Close()
	c := openCatalog(t, st)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				name := fmt.Sprintf("t%d_%d", w, i)
				if _, err := c.CreateRelation(table(name, "a"), false); err != nil {
					t.Error(err)
					return
				}
				if r, err := c.LookupRelation(path, "", name); err != nil || r.Name != name {
					t.Errorf("lookup %s: %v", name, err)
				}
				for _, r := range c.Relations() {
					if r.OID == 0 || r.Name == "" {
						t.Errorf("torn relation %+v", r)
					}
				}
			}
		}(w)
	}
	wg.Wait()
	rels := c.Relations()
	seen := map[uint32]bool{}
	for _, r := range rels {
		if seen[r.OID] {
			t.Fatalf("OID %d assigned twice", r.OID)
		}
		seen[r.OID] = true
	}
	if len(rels) != 80 {
		t.Fatalf("%d relations", len(rels))
	}
}
