package pgcatalog_test

import (
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/catalog/pgcatalog"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
)

// fixture is a catalog with schema s1, table s1.orders (primary key id,
// defaults) and view public.big_orders.
type fixture struct {
	snap   *pgcatalog.Snapshot
	orders *catalog.Relation
	view   *catalog.Relation
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st, err := state.Open(t.TempDir(), state.Options{Sync: state.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cat, err := catalog.Open(st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cat.CreateSchema("s1", false); err != nil {
		t.Fatal(err)
	}
	orders, err := cat.CreateRelation(&catalog.Relation{
		Schema: "s1", Name: "orders", Kind: catalog.KindTable,
		Columns: []catalog.Column{
			{Name: "id", Type: types.Int8, NotNull: true, Default: "nextval('orders_id_seq')"},
			{Name: "customer", Type: types.Text, NotNull: true, Default: "'nobody'::text"},
			{Name: "amount", Type: types.T{OID: types.OidNumeric, Typmod: 10<<16 | 2 + 4}},
			{Name: "ts", Type: types.TimestampTZ},
			{Name: "code", Type: types.T{OID: types.OidVarchar, Typmod: 20 + 4}},
			{Name: "tags", Type: types.ArrayOf(types.Text)},
		},
		PrimaryKey: []string{"id"},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	view, err := cat.CreateRelation(&catalog.Relation{
		Name: "big_orders", Kind: catalog.KindView, ViewSQL: "SELECT id FROM s1.orders WHERE amount > 100",
		Columns: []catalog.Column{{Name: "id", Type: types.Int8}},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{
		snap: &pgcatalog.Snapshot{
			Cat: cat, Database: catalog.DefaultDB, User: catalog.BootstrapRole,
			SearchPath: []string{"public"},
			Functions: []pgcatalog.Function{
				{Name: "length", NumArgs: 1, ArgTypes: []types.T{types.Text}, RetType: types.Int4},
				{Name: "sum", NumArgs: 1, RetType: types.Numeric, IsAggregate: true},
			},
			Settings: []pgcatalog.Setting{
				{Name: "max_index_keys", Setting: "32", Category: "Preset Options", ShortDesc: "x", VarType: "integer"},
			},
		},
		orders: orders, view: view,
	}
}

// row is one result row as column name → text form ("NULL" for NULL).
type row map[string]string

func rows(t *testing.T, f *fixture, schema, name string) []row {
	t.Helper()
	tab := pgcatalog.Lookup(schema, name)
	if tab == nil {
		t.Fatalf("no relation %s.%s", schema, name)
	}
	rec, err := tab.Rows(f.snap)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer rec.Release()
	if !rec.Schema().Equal(tab.ArrowSchema()) {
		t.Fatalf("%s: schema %v, want %v", name, rec.Schema(), tab.ArrowSchema())
	}
	return toRows(rec)
}

func toRows(rec arrow.RecordBatch) []row {
	out := make([]row, rec.NumRows())
	for i := range out {
		out[i] = row{}
		for j, c := range rec.Columns() {
			v := "NULL"
			if !c.IsNull(i) {
				v = c.ValueStr(i)
			}
			out[i][rec.Schema().Field(j).Name] = v
		}
	}
	return out
}

// find returns the rows whose columns have the given values.
func find(rs []row, kv ...string) []row {
	var out []row
next:
	for _, r := range rs {
		for i := 0; i+1 < len(kv); i += 2 {
			if r[kv[i]] != kv[i+1] {
				continue next
			}
		}
		out = append(out, r)
	}
	return out
}

func one(t *testing.T, rs []row, kv ...string) row {
	t.Helper()
	m := find(rs, kv...)
	if len(m) != 1 {
		t.Fatalf("%d rows match %v", len(m), kv)
	}
	return m[0]
}

func check(t *testing.T, r row, kv ...string) {
	t.Helper()
	for i := 0; i+1 < len(kv); i += 2 {
		if r[kv[i]] != kv[i+1] {
			t.Errorf("%s = %q, want %q (row %v)", kv[i], r[kv[i]], kv[i+1], r)
		}
	}
}

func itoa(oid uint32) string { return strconv.FormatUint(uint64(oid), 10) }

func TestEveryTableBuildsRows(t *testing.T) {
	f := newFixture(t)
	seen := map[string]bool{}
	oids := map[uint32]string{}
	for _, tab := range pgcatalog.Tables() {
		key := tab.Schema + "." + tab.Name
		if seen[key] {
			t.Errorf("%s defined twice", key)
		}
		seen[key] = true
		if other, ok := oids[tab.OID]; ok || tab.OID == 0 || tab.OID >= catalog.FirstUserOID {
			t.Errorf("%s: OID %d (also %s)", key, tab.OID, other)
		}
		oids[tab.OID] = key
		rows(t, f, tab.Schema, tab.Name)
	}
	if pgcatalog.Lookup("", "pg_class") == nil || pgcatalog.Lookup("", "tables") != nil {
		t.Error("Lookup with no schema must search pg_catalog only")
	}
	if pgcatalog.Lookup("pg_catalog", "pg_class").OID != 1259 {
		t.Error("pg_class must have OID 1259")
	}
}

func TestPgClass(t *testing.T) {
	f := newFixture(t)
	rs := rows(t, f, "pg_catalog", "pg_class")
	s1 := one(t, rows(t, f, "pg_catalog", "pg_namespace"), "nspname", "s1")["oid"]
	check(t, one(t, rs, "relname", "orders"),
		"oid", itoa(f.orders.OID), "relnamespace", s1, "relkind", "r", "relnatts", "6",
		"relhasindex", "true", "relam", "2", "relpersistence", "p", "relreplident", "d",
		"reltuples", "-1", "relacl", "NULL", "reloptions", "NULL", "relowner", "10")
	check(t, one(t, rs, "relname", "orders_pkey"),
		"oid", itoa(pgcatalog.IndexOID(f.orders.OID)), "relkind", "i", "relam", "403", "relnamespace", s1)
	check(t, one(t, rs, "relname", "big_orders"), "relkind", "v", "relam", "0", "relhasindex", "false", "relnamespace", "2200")
	check(t, one(t, rs, "relname", "pg_class"), "oid", "1259", "relkind", "r", "relnamespace", "11")
	check(t, one(t, rs, "relname", "columns"), "relkind", "v", "relnamespace", "13000")
}

func TestPgAttribute(t *testing.T) {
	f := newFixture(t)
	rs := rows(t, f, "pg_catalog", "pg_attribute")
	rel := itoa(f.orders.OID)
	check(t, one(t, rs, "attrelid", rel, "attname", "id"),
		"attnum", "1", "atttypid", "20", "atttypmod", "-1", "attlen", "8", "attnotnull", "true",
		"atthasdef", "true", "attisdropped", "false", "attidentity", "", "attgenerated", "",
		"attcollation", "0", "attstorage", "p", "attstattarget", "-1", "attacl", "NULL", "attislocal", "true")
	check(t, one(t, rs, "attrelid", rel, "attname", "customer"),
		"attnum", "2", "atttypid", "25", "attlen", "-1", "attcollation", "100", "attstorage", "x")
	check(t, one(t, rs, "attrelid", rel, "attname", "amount"),
		"atttypid", "1700", "atttypmod", "655366", "attnotnull", "false", "atthasdef", "false")
	check(t, one(t, rs, "attrelid", rel, "attname", "tags"), "atttypid", "1009", "attndims", "1")
	check(t, one(t, rs, "attrelid", itoa(pgcatalog.IndexOID(f.orders.OID))), "attname", "id", "attnum", "1")
	check(t, one(t, rs, "attrelid", "1259", "attname", "relname"), "atttypid", "19", "attcollation", "950")
	d := one(t, rows(t, f, "pg_catalog", "pg_attrdef"), "adrelid", rel, "adnum", "2")
	check(t, d, "adbin", "'nobody'::text")
}

func TestPgType(t *testing.T) {
	f := newFixture(t)
	rs := rows(t, f, "pg_catalog", "pg_type")
	check(t, one(t, rs, "typname", "int4"),
		"oid", "23", "typlen", "4", "typbyval", "true", "typtype", "b", "typcategory", "N",
		"typarray", "1007", "typelem", "0", "typnamespace", "11", "typdelim", ",", "typcollation", "0",
		"typbasetype", "0", "typtypmod", "-1", "typrelid", "0", "typinput", "0")
	check(t, one(t, rs, "typname", "_int4"),
		"oid", "1007", "typelem", "23", "typarray", "0", "typcategory", "A", "typinput", "750")
	check(t, one(t, rs, "typname", "text"), "typcollation", "100", "typispreferred", "true")
	check(t, one(t, rs, "typname", "record"), "typtype", "p")
	proc := rows(t, f, "pg_catalog", "pg_proc")
	check(t, one(t, proc, "oid", "750"), "proname", "array_in")
	check(t, one(t, proc, "proname", "length"), "prokind", "f", "prorettype", "23", "proargtypes", "25", "pronargs", "1")
	check(t, one(t, proc, "proname", "sum"), "prokind", "a")
}

func TestPrimaryKeyCatalogs(t *testing.T) {
	f := newFixture(t)
	rel, idx := itoa(f.orders.OID), itoa(pgcatalog.IndexOID(f.orders.OID))
	check(t, one(t, rows(t, f, "pg_catalog", "pg_index"), "indrelid", rel),
		"indexrelid", idx, "indisprimary", "true", "indisunique", "true", "indkey", "1", "indnkeyatts", "1")
	check(t, one(t, rows(t, f, "pg_catalog", "pg_constraint"), "conrelid", rel),
		"conname", "orders_pkey", "contype", "p", "conindid", idx, "conkey", "[1]")
	check(t, one(t, rows(t, f, "information_schema", "table_constraints"), "table_name", "orders"),
		"constraint_name", "orders_pkey", "constraint_type", "PRIMARY KEY", "table_schema", "s1")
	check(t, one(t, rows(t, f, "information_schema", "key_column_usage"), "table_name", "orders"),
		"column_name", "id", "ordinal_position", "1")
}

func TestInformationSchema(t *testing.T) {
	f := newFixture(t)
	cols := rows(t, f, "information_schema", "columns")
	want := map[string][]string{
		"id":       {"data_type", "bigint", "is_nullable", "NO", "numeric_precision", "64", "udt_name", "int8", "column_default", "nextval('orders_id_seq')"},
		"customer": {"data_type", "text", "is_nullable", "NO", "character_maximum_length", "NULL", "udt_name", "text"},
		"amount":   {"data_type", "numeric", "numeric_precision", "10", "numeric_scale", "2", "numeric_precision_radix", "10"},
		"ts":       {"data_type", "timestamp with time zone", "datetime_precision", "6", "udt_name", "timestamptz"},
		"code":     {"data_type", "character varying", "character_maximum_length", "20", "udt_name", "varchar"},
		"tags":     {"data_type", "ARRAY", "udt_name", "_text", "is_nullable", "YES"},
	}
	for name, kv := range want {
		r := one(t, cols, "table_schema", "s1", "table_name", "orders", "column_name", name)
		check(t, r, append(kv, "table_catalog", "weir")...)
	}
	check(t, one(t, cols, "table_name", "orders", "column_name", "code"), "ordinal_position", "5", "dtd_identifier", "5")
	tabs := rows(t, f, "information_schema", "tables")
	check(t, one(t, tabs, "table_name", "orders"), "table_type", "BASE TABLE", "is_insertable_into", "YES")
	check(t, one(t, tabs, "table_name", "big_orders"), "table_type", "VIEW", "table_schema", "public")
	check(t, one(t, rows(t, f, "information_schema", "views"), "table_name", "big_orders"),
		"view_definition", f.view.ViewSQL)
	check(t, one(t, rows(t, f, "pg_catalog", "pg_views"), "viewname", "big_orders"),
		"definition", f.view.ViewSQL, "viewowner", "weir")
	one(t, rows(t, f, "information_schema", "schemata"), "schema_name", "s1")
}

func TestRolesDatabasesSettings(t *testing.T) {
	f := newFixture(t)
	check(t, one(t, rows(t, f, "pg_catalog", "pg_roles"), "rolname", "weir"),
		"oid", "10", "rolsuper", "true", "rolcanlogin", "true", "rolconnlimit", "-1", "rolpassword", "********")
	check(t, one(t, rows(t, f, "pg_catalog", "pg_database"), "datname", "weir"),
		"encoding", "6", "datcollate", "C.UTF-8", "dattablespace", "1663", "datconnlimit", "-1", "datacl", "NULL")
	check(t, one(t, rows(t, f, "pg_catalog", "pg_settings"), "name", "max_index_keys"),
		"setting", "32", "vartype", "integer", "unit", "NULL")
	check(t, one(t, rows(t, f, "pg_catalog", "pg_stat_activity")), "datname", "weir", "usename", "weir")
	check(t, one(t, rows(t, f, "pg_catalog", "pg_tables"), "tablename", "orders"), "schemaname", "s1", "hasindexes", "true")
}
