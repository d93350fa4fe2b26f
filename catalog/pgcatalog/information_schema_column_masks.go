package pgcatalog

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
)

// isColumnMasksOID is information_schema.column_masks' OID, apart from
// the numbered views of information_schema.go.
const isColumnMasksOID = informationSchemaOIDBase + 90

// isColumnMasks is Databricks' INFORMATION_SCHEMA.COLUMN_MASKS (Unity
// Catalog's extension of the standard information schema): one row per
// masked column, with the mask function and the extra columns it is
// passed (mask_col_usage, comma-separated; NULL if none).
func isColumnMasks() *Table {
	cols := []catalog.Column{
		col("catalog_name", sqlIdentifier),
		col("schema_name", sqlIdentifier),
		col("table_name", sqlIdentifier),
		col("column_name", sqlIdentifier),
		col("mask_catalog", sqlIdentifier),
		col("mask_schema", sqlIdentifier),
		col("mask_name", sqlIdentifier),
		col("mask_col_usage", characterData),
	}
	return &Table{OID: isColumnMasksOID, Schema: "information_schema", Name: "column_masks", Kind: 'v', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			if s.Cat != nil {
				for _, r := range s.Cat.Relations() {
					for _, c := range r.Columns {
						if c.Mask == nil {
							continue
						}
						schema, name := "", c.Mask.Function
						if i := strings.LastIndexByte(name, '.'); i >= 0 {
							schema, name = name[:i], name[i+1:]
						}
						var usage any
						if len(c.Mask.UsingColumns) > 0 {
							usage = strings.Join(c.Mask.UsingColumns, ",")
						}
						rb.add(s.Database, r.Schema, r.Name, c.Name, s.Database, schema, name, usage)
					}
				}
			}
			return rb.finish()
		}}
}
