package pgcatalog

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// Catalogs whose rows are the same on every weir server: the built-in
// objects of PostgreSQL that clients expect by name or OID.

// fixedRows is the Rows function of a relation whose rows never change.
func fixedRows(cols []catalog.Column, rows [][]any) func(*Snapshot) (arrow.RecordBatch, error) {
	return func(*Snapshot) (arrow.RecordBatch, error) {
		rb := newRows(cols)
		for _, r := range rows {
			rb.add(r...)
		}
		return rb.finish()
	}
}

func pgAm() *Table {
	cols := []catalog.Column{
		col("oid", types.Oid),
		col("amname", types.Name),
		col("amhandler", types.Regproc),
		col("amtype", types.Char),
	}
	return &Table{OID: 2601, Schema: "pg_catalog", Name: "pg_am", Kind: 'r', Columns: cols,
		Rows: fixedRows(cols, [][]any{
			{amHeap, "heap", uint32(0), byte('t')},
			{amBtree, "btree", uint32(0), byte('i')},
		})}
}

func pgCollation() *Table {
	cols := []catalog.Column{
		col("oid", types.Oid),
		col("collname", types.Name),
		col("collnamespace", types.Oid),
		col("collowner", types.Oid),
		col("collprovider", types.Char),
		col("collisdeterministic", types.Bool),
		col("collencoding", types.Int4),
		col("collcollate", types.Text),
		col("collctype", types.Text),
		col("colliculocale", types.Text),
		col("collversion", types.Text),
	}
	nsp, owner := catalog.PGCatalogOID, catalog.BootstrapRoleOID
	return &Table{OID: 3456, Schema: "pg_catalog", Name: "pg_collation", Kind: 'r', Columns: cols,
		Rows: fixedRows(cols, [][]any{
			{collationDefault, "default", nsp, owner, byte('d'), true, int32(-1), nil, nil, nil, nil},
			{collationC, "C", nsp, owner, byte('c'), true, int32(-1), "C", "C", nil, nil},
			{collationPOSIX, "POSIX", nsp, owner, byte('c'), true, int32(-1), "POSIX", "POSIX", nil, nil},
		})}
}

func pgLanguage() *Table {
	cols := []catalog.Column{
		col("oid", types.Oid),
		col("lanname", types.Name),
		col("lanowner", types.Oid),
		col("lanispl", types.Bool),
		col("lanpltrusted", types.Bool),
		col("lanplcallfoid", types.Oid),
		col("laninline", types.Oid),
		col("lanvalidator", types.Oid),
		col("lanacl", aclitemArray),
	}
	owner, z := catalog.BootstrapRoleOID, uint32(0)
	return &Table{OID: 2612, Schema: "pg_catalog", Name: "pg_language", Kind: 'r', Columns: cols,
		Rows: fixedRows(cols, [][]any{
			{langInternal, "internal", owner, false, false, z, z, z, nil},
			{langC, "c", owner, false, false, z, z, z, nil},
			{langSQL, "sql", owner, false, true, z, z, z, nil},
			{langPLpgSQL, "plpgsql", owner, true, true, z, z, z, nil},
		})}
}

func pgTablespace() *Table {
	cols := []catalog.Column{
		col("oid", types.Oid),
		col("spcname", types.Name),
		col("spcowner", types.Oid),
		col("spcacl", aclitemArray),
		col("spcoptions", textArray),
	}
	owner := catalog.BootstrapRoleOID
	return &Table{OID: 1213, Schema: "pg_catalog", Name: "pg_tablespace", Kind: 'r', Columns: cols,
		Rows: fixedRows(cols, [][]any{
			{tablespaceDefault, "pg_default", owner, nil, nil},
			{uint32(1664), "pg_global", owner, nil, nil},
		})}
}

// pgExtension is empty: weir has no extensions, and Grafana's probe for
// timescaledb must find none.
func pgExtension() *Table {
	cols := []catalog.Column{
		col("oid", types.Oid),
		col("extname", types.Name),
		col("extowner", types.Oid),
		col("extnamespace", types.Oid),
		col("extrelocatable", types.Bool),
		col("extversion", types.Text),
		col("extconfig", oidArray),
		col("extcondition", textArray),
	}
	return &Table{OID: 3079, Schema: "pg_catalog", Name: "pg_extension", Kind: 'r', Columns: cols,
		Rows: emptyRows(cols)}
}
