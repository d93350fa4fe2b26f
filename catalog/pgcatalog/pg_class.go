package pgcatalog

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// Access method OIDs as in PostgreSQL's pg_am.
const (
	amHeap  uint32 = 2
	amBtree uint32 = 403
)

// tablespaceDefault is pg_default, where every relation lives.
const tablespaceDefault uint32 = 1663

var pgClassColumns = []catalog.Column{
	col("oid", types.Oid),
	col("relname", types.Name),
	col("relnamespace", types.Oid),
	col("reltype", types.Oid),
	col("reloftype", types.Oid),
	col("relowner", types.Oid),
	col("relam", types.Oid),
	col("relfilenode", types.Oid),
	col("reltablespace", types.Oid),
	col("relpages", types.Int4),
	col("reltuples", types.Float4),
	col("relallvisible", types.Int4),
	col("reltoastrelid", types.Oid),
	col("relhasindex", types.Bool),
	col("relisshared", types.Bool),
	col("relpersistence", types.Char),
	col("relkind", types.Char),
	col("relnatts", types.Int2),
	col("relchecks", types.Int2),
	col("relhasrules", types.Bool),
	col("relhastriggers", types.Bool),
	col("relhassubclass", types.Bool),
	col("relrowsecurity", types.Bool),
	col("relforcerowsecurity", types.Bool),
	col("relispopulated", types.Bool),
	col("relreplident", types.Char),
	col("relispartition", types.Bool),
	col("relrewrite", types.Oid),
	col("relfrozenxid", xid),
	col("relminmxid", xid),
	col("relacl", aclitemArray),
	col("reloptions", textArray),
	col("relpartbound", types.PgNodeTree),
}

// pgClass lists every relation: the virtual ones in their schemas, the
// user ones, and an index ("<table>_pkey", relkind 'i') for each primary
// key so that psql \d and JDBC getPrimaryKeys find it.
func pgClass() *Table {
	cols := pgClassColumns
	return &Table{OID: 1259, Schema: "pg_catalog", Name: "pg_class", Kind: 'r', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, r := range s.relations() {
				nsp := s.nspOID(r.Schema)
				am := amHeap
				if r.Kind == 'v' {
					am = 0
				}
				pk := r.pkAttnums()
				var opts any
				if r.Options != nil {
					opts = r.Options
				}
				rb.add(r.OID, r.Name, nsp, RowTypeOID(r.OID), uint32(0), r.Owner, am, uint32(0), uint32(0),
					int32(0), float32(-1), int32(0), uint32(0),
					pk != nil, false, byte('p'), r.Kind, int16(len(r.Columns)), int16(0),
					false, false, false, r.RowSecurity, r.ForceRowSecurity, true, byte('d'), false, uint32(0),
					uint32(0), uint32(0), s.relACLText(r), opts, nil)
				if pk != nil {
					// A new btree index has its metapage (relpages 1) and,
					// unlike a new table (reltuples -1), reltuples 0.
					rb.add(IndexOID(r.OID), PKIndexName(r.Name), nsp, uint32(0), uint32(0), r.Owner, amBtree, uint32(0), uint32(0),
						int32(1), float32(0), int32(0), uint32(0),
						false, false, byte('p'), byte('i'), int16(len(pk)), int16(0),
						false, false, false, false, false, true, byte('n'), false, uint32(0),
						uint32(0), uint32(0), nil, nil, nil)
				}
			}
			return rb.finish()
		}}
}
