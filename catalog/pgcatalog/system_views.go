package pgcatalog

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// pg_tables, pg_views and pg_matviews: PostgreSQL's convenience views over
// pg_class, listing user relations and (as PostgreSQL does) the system
// ones. Streaming tables are tables to clients; weir has no materialized
// views.

func pgTables() *Table {
	cols := []catalog.Column{
		col("schemaname", types.Name),
		col("tablename", types.Name),
		col("tableowner", types.Name),
		col("tablespace", types.Name),
		col("hasindexes", types.Bool),
		col("hasrules", types.Bool),
		col("hastriggers", types.Bool),
		col("rowsecurity", types.Bool),
	}
	return &Table{OID: 12020, Schema: "pg_catalog", Name: "pg_tables", Kind: 'v', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, r := range s.relations() {
				if r.Kind != 'r' {
					continue
				}
				rb.add(r.Schema, r.Name, s.roleName(r.Owner), nil, r.pkAttnums() != nil, false, false, r.RowSecurity)
			}
			return rb.finish()
		}}
}

func pgViews() *Table {
	cols := []catalog.Column{
		col("schemaname", types.Name),
		col("viewname", types.Name),
		col("viewowner", types.Name),
		col("definition", types.Text),
	}
	return &Table{OID: 12021, Schema: "pg_catalog", Name: "pg_views", Kind: 'v', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, r := range s.relations() {
				if r.Kind != 'v' {
					continue
				}
				rb.add(r.Schema, r.Name, s.roleName(r.Owner), nullIfEmpty(r.ViewSQL))
			}
			return rb.finish()
		}}
}

func pgMatviews() *Table {
	cols := []catalog.Column{
		col("schemaname", types.Name),
		col("matviewname", types.Name),
		col("matviewowner", types.Name),
		col("tablespace", types.Name),
		col("hasindexes", types.Bool),
		col("ispopulated", types.Bool),
		col("definition", types.Text),
	}
	return &Table{OID: 12022, Schema: "pg_catalog", Name: "pg_matviews", Kind: 'v', Columns: cols,
		Rows: emptyRows(cols)}
}
