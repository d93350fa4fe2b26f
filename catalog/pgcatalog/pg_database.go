package pgcatalog

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// encodingUTF8 is pg_database.encoding for UTF8, weir's only encoding.
const encodingUTF8 int32 = 6

func pgDatabase() *Table {
	cols := []catalog.Column{
		col("oid", types.Oid),
		col("datname", types.Name),
		col("datdba", types.Oid),
		col("encoding", types.Int4),
		col("datlocprovider", types.Char),
		col("datistemplate", types.Bool),
		col("datallowconn", types.Bool),
		col("datconnlimit", types.Int4),
		col("datfrozenxid", xid),
		col("datminmxid", xid),
		col("dattablespace", types.Oid),
		col("datcollate", types.Text),
		col("datctype", types.Text),
		col("daticulocale", types.Text),
		col("datcollversion", types.Text),
		col("datacl", aclitemArray),
	}
	return &Table{OID: 1262, Schema: "pg_catalog", Name: "pg_database", Kind: 'r', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, d := range s.databases() {
				rb.add(d.OID, d.Name, catalog.BootstrapRoleOID, encodingUTF8, byte('c'), false, true,
					int32(-1), uint32(0), uint32(0), tablespaceDefault, "C.UTF-8", "C.UTF-8", nil, nil, s.aclText(d.ACL))
			}
			return rb.finish()
		}}
}
