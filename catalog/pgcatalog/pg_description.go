package pgcatalog

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// pgClassOID is pg_class's own OID, the classoid of a relation's comment.
const pgClassOID uint32 = 1259

// pgNamespaceOID is pg_namespace's OID, the classoid of a schema's comment.
const pgNamespaceOID uint32 = 2615

// pgDescription lists the comments of streaming tables and of their
// columns (COMMENT in CREATE STREAMING TABLE), as PostgreSQL lists COMMENT
// ON: obj_description(oid, 'pg_class'), col_description(oid, attnum) and
// psql's \d+ read them from here.
func pgDescription() *Table {
	cols := []catalog.Column{
		col("objoid", types.Oid),
		col("classoid", types.Oid),
		col("objsubid", types.Int4),
		col("description", types.Text),
	}
	return &Table{OID: 2609, Schema: "pg_catalog", Name: "pg_description", Kind: 'r', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			// initdb's comments on its schemas (psql's \dn+ shows them).
			rb.add(catalog.PGCatalogOID, pgNamespaceOID, int32(0), "system catalog schema")
			rb.add(catalog.PublicOID, pgNamespaceOID, int32(0), "standard public schema")
			if s.Cat != nil {
				for _, r := range s.Cat.Relations() {
					if st := r.Streaming; st != nil && st.HasComment {
						rb.add(r.OID, pgClassOID, int32(0), st.Comment)
					}
					for i, c := range r.Columns {
						if c.Comment != "" {
							rb.add(r.OID, pgClassOID, int32(i+1), c.Comment)
						}
					}
				}
			}
			return rb.finish()
		}}
}
