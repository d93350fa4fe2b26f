package pgcatalog

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// pgSettings shows Snapshot.Settings, the session's view of the
// run-time parameters (pgjdbc reads max_index_keys from it).
func pgSettings() *Table {
	cols := []catalog.Column{
		col("name", types.Text),
		col("setting", types.Text),
		col("unit", types.Text),
		col("category", types.Text),
		col("short_desc", types.Text),
		col("extra_desc", types.Text),
		col("context", types.Text),
		col("vartype", types.Text),
		col("source", types.Text),
		col("min_val", types.Text),
		col("max_val", types.Text),
		col("enumvals", textArray),
		col("boot_val", types.Text),
		col("reset_val", types.Text),
		col("sourcefile", types.Text),
		col("sourceline", types.Int4),
		col("pending_restart", types.Bool),
	}
	return &Table{OID: 12010, Schema: "pg_catalog", Name: "pg_settings", Kind: 'v', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, st := range s.Settings {
				context := st.Context
				if context == "" {
					context = "user"
				}
				source := st.Source
				if source == "" {
					source = "default"
				}
				var enumvals any
				if st.VarType == "enum" {
					enumvals = st.EnumVals
				}
				rb.add(st.Name, st.Setting, nullIfEmpty(st.Unit), st.Category, st.ShortDesc, nil,
					context, st.VarType, source, nil, nil, enumvals, st.Setting, st.Setting,
					nil, nil, false)
			}
			return rb.finish()
		}}
}
