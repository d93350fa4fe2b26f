package pgcatalog

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

var pgAttributeColumns = []catalog.Column{
	col("attrelid", types.Oid),
	col("attname", types.Name),
	col("atttypid", types.Oid),
	col("attstattarget", types.Int4),
	col("attlen", types.Int2),
	col("attnum", types.Int2),
	col("attndims", types.Int4),
	col("attcacheoff", types.Int4),
	col("atttypmod", types.Int4),
	col("attbyval", types.Bool),
	col("attalign", types.Char),
	col("attstorage", types.Char),
	col("attcompression", types.Char),
	col("attnotnull", types.Bool),
	col("atthasdef", types.Bool),
	col("atthasmissing", types.Bool),
	col("attidentity", types.Char),
	col("attgenerated", types.Char),
	col("attisdropped", types.Bool),
	col("attislocal", types.Bool),
	col("attinhcount", types.Int4),
	col("attcollation", types.Oid),
	col("attacl", aclitemArray),
	col("attoptions", textArray),
	col("attfdwoptions", textArray),
	col("attmissingval", anyArray),
}

// pgAttribute lists the columns of every relation, user and virtual, and
// of the primary key indexes (whose columns repeat the key's).
func pgAttribute() *Table {
	cols := pgAttributeColumns
	return &Table{OID: 1249, Schema: "pg_catalog", Name: "pg_attribute", Kind: 'r', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, r := range s.relations() {
				for i, c := range r.Columns {
					addAttribute(rb, r.OID, i+1, c, s.aclText(c.ACL))
				}
				for i, n := range r.pkAttnums() {
					c := r.Columns[n-1]
					c.Default = ""
					addAttribute(rb, IndexOID(r.OID), i+1, c, nil)
				}
			}
			return rb.finish()
		}}
}

func addAttribute(rb *rowBuilder, relOID uint32, attnum int, c catalog.Column, acl any) {
	info := c.Type.Info()
	ndims := int32(0)
	if isArrayType(info) {
		ndims = 1
	}
	rb.add(relOID, c.Name, info.OID, int32(-1), info.Len, int16(attnum), ndims, int32(-1),
		c.Type.PGTypmod(), info.ByVal, alignOf(info), storageOf(info), "",
		c.NotNull, c.Default != "", false, "", "", false, true, int32(0),
		collationOf(info.OID), acl, nil, nil, nil)
}
