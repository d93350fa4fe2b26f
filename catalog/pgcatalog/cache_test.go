package pgcatalog_test

import (
	"testing"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/catalog/pgcatalog"
	"github.com/weir-sql/weir/sql/types"
)

// TestCachedRowsFollowCatalogVersion: pg_class is built once per catalog
// version, rebuilt after a change, and a batch a reader holds stays valid
// when the cache moves on; session-dependent relations are never cached.
func TestCachedRowsFollowCatalogVersion(t *testing.T) {
	f := newFixture(t)
	cat := f.snap.Cat
	pgClass := pgcatalog.Lookup("pg_catalog", "pg_class")
	snap := func() *pgcatalog.Snapshot { return f.snap }
	first, err := pgcatalog.CachedRows(pgClass, cat, snap)
	if err != nil {
		t.Fatal(err)
	}
	again, err := pgcatalog.CachedRows(pgClass, cat, snap)
	if err != nil {
		t.Fatal(err)
	}
	if first != again {
		t.Errorf("pg_class was built twice for one catalog version")
	}
	again.Release()
	before := first.NumRows()
	if _, err := cat.CreateRelation(&catalog.Relation{Schema: "s1", Name: "later", Kind: catalog.KindTable,
		Columns: []catalog.Column{{Name: "x", Type: types.Int4}}}, false); err != nil {
		t.Fatal(err)
	}
	after, err := pgcatalog.CachedRows(pgClass, cat, snap)
	if err != nil {
		t.Fatal(err)
	}
	defer after.Release()
	if after.NumRows() != before+1 {
		t.Errorf("pg_class after CREATE TABLE has %d rows, want %d", after.NumRows(), before+1)
	}
	found := false
	for _, r := range toRows(after) {
		found = found || r["relname"] == "later"
	}
	if !found {
		t.Errorf("pg_class after CREATE TABLE does not list the new table")
	}
	// The reader of the first version still holds a readable batch.
	if n := len(toRows(first)); int64(n) != before {
		t.Errorf("held batch has %d rows, want %d", n, before)
	}
	first.Release()

	calls := 0
	settings := pgcatalog.Lookup("pg_catalog", "pg_settings")
	for i := 0; i < 2; i++ {
		b, err := pgcatalog.CachedRows(settings, cat, func() *pgcatalog.Snapshot { calls++; return f.snap })
		if err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	if calls != 2 {
		t.Errorf("pg_settings (session settings) built %d times for 2 scans, want 2", calls)
	}
}
