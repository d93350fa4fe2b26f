package pgcatalog

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

func pgNamespace() *Table {
	cols := []catalog.Column{
		col("oid", types.Oid),
		col("nspname", types.Name),
		col("nspowner", types.Oid),
		col("nspacl", aclitemArray),
	}
	return &Table{OID: 2615, Schema: "pg_catalog", Name: "pg_namespace", Kind: 'r', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, sc := range s.schemas() {
				rb.add(sc.OID, sc.Name, sc.Owner, nil)
			}
			return rb.finish()
		}}
}
