package pgcatalog

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// pgAttrdef lists column defaults. adbin holds the default's SQL text
// rather than a node tree, so pg_get_expr can return it as is.
func pgAttrdef() *Table {
	cols := []catalog.Column{
		col("oid", types.Oid),
		col("adrelid", types.Oid),
		col("adnum", types.Int2),
		col("adbin", types.PgNodeTree),
	}
	return &Table{OID: 2604, Schema: "pg_catalog", Name: "pg_attrdef", Kind: 'r', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, r := range s.userRelations() {
				for i, c := range r.Columns {
					if c.Default != "" {
						rb.add(attrdefOID(r.OID, i+1), r.OID, int16(i+1), c.Default)
					}
				}
			}
			return rb.finish()
		}}
}
