package pgcatalog

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// weir's only index-like object is the primary key. It appears as a
// unique btree index in pg_index (and pg_class) and as a 'p' constraint in
// pg_constraint, both named "<table>_pkey" as PostgreSQL names them.

// vectorText is the text form of an int2vector or oidvector ("1 2"),
// which is how weir carries those types.
func vectorText[T int16 | uint32](v []T) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatInt(int64(x), 10)
	}
	return strings.Join(parts, " ")
}

func pgIndex() *Table {
	cols := []catalog.Column{
		col("indexrelid", types.Oid),
		col("indrelid", types.Oid),
		col("indnatts", types.Int2),
		col("indnkeyatts", types.Int2),
		col("indisunique", types.Bool),
		col("indnullsnotdistinct", types.Bool),
		col("indisprimary", types.Bool),
		col("indisexclusion", types.Bool),
		col("indimmediate", types.Bool),
		col("indisclustered", types.Bool),
		col("indisvalid", types.Bool),
		col("indcheckxmin", types.Bool),
		col("indisready", types.Bool),
		col("indislive", types.Bool),
		col("indisreplident", types.Bool),
		col("indkey", int2Vector),
		col("indcollation", oidVector),
		col("indclass", oidVector),
		col("indoption", int2Vector),
		col("indexprs", types.PgNodeTree),
		col("indpred", types.PgNodeTree),
	}
	return &Table{OID: 2610, Schema: "pg_catalog", Name: "pg_index", Kind: 'r', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, r := range s.userRelations() {
				pk := r.pkAttnums()
				if pk == nil {
					continue
				}
				colls := make([]uint32, len(pk))
				for i, n := range pk {
					colls[i] = collationOf(r.Columns[n-1].Type.OID)
				}
				n := int16(len(pk))
				rb.add(IndexOID(r.OID), r.OID, n, n, true, false, true, false, true, false,
					true, false, true, true, false,
					vectorText(pk), vectorText(colls), vectorText(make([]uint32, len(pk))),
					vectorText(make([]int16, len(pk))), nil, nil)
			}
			return rb.finish()
		}}
}

func pgConstraint() *Table {
	cols := []catalog.Column{
		col("oid", types.Oid),
		col("conname", types.Name),
		col("connamespace", types.Oid),
		col("contype", types.Char),
		col("condeferrable", types.Bool),
		col("condeferred", types.Bool),
		col("convalidated", types.Bool),
		col("conrelid", types.Oid),
		col("contypid", types.Oid),
		col("conindid", types.Oid),
		col("conparentid", types.Oid),
		col("confrelid", types.Oid),
		col("confupdtype", types.Char),
		col("confdeltype", types.Char),
		col("confmatchtype", types.Char),
		col("conislocal", types.Bool),
		col("coninhcount", types.Int4),
		col("connoinherit", types.Bool),
		col("conkey", int2Array),
		col("confkey", int2Array),
		col("conpfeqop", oidArray),
		col("conppeqop", oidArray),
		col("conffeqop", oidArray),
		col("confdelsetcols", int2Array),
		col("conexclop", oidArray),
		col("conbin", types.PgNodeTree),
	}
	return &Table{OID: 2606, Schema: "pg_catalog", Name: "pg_constraint", Kind: 'r', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, r := range s.userRelations() {
				pk := r.pkAttnums()
				if pk == nil {
					continue
				}
				rb.add(ConstraintOID(r.OID), PKIndexName(r.Name), s.nspOID(r.Schema), byte('p'),
					false, false, true, r.OID, uint32(0), IndexOID(r.OID), uint32(0), uint32(0),
					byte(' '), byte(' '), byte(' '), true, int32(0), true,
					pk, nil, nil, nil, nil, nil, nil, nil)
			}
			return rb.finish()
		}}
}
