package pgcatalog

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// OIDs of the array I/O functions, as in PostgreSQL. pgjdbc recognises
// array types by typinput = 'array_in'::regproc, so array types carry them
// and pg_proc has rows for them.
const (
	ArrayInOID   uint32 = 750
	ArrayOutOID  uint32 = 751
	ArrayRecvOID uint32 = 2400
	ArraySendOID uint32 = 2401
)

var pgTypeColumns = []catalog.Column{
	col("oid", types.Oid),
	col("typname", types.Name),
	col("typnamespace", types.Oid),
	col("typowner", types.Oid),
	col("typlen", types.Int2),
	col("typbyval", types.Bool),
	col("typtype", types.Char),
	col("typcategory", types.Char),
	col("typispreferred", types.Bool),
	col("typisdefined", types.Bool),
	col("typdelim", types.Char),
	col("typrelid", types.Oid),
	col("typsubscript", types.Regproc),
	col("typelem", types.Oid),
	col("typarray", types.Oid),
	col("typinput", types.Regproc),
	col("typoutput", types.Regproc),
	col("typreceive", types.Regproc),
	col("typsend", types.Regproc),
	col("typmodin", types.Regproc),
	col("typmodout", types.Regproc),
	col("typanalyze", types.Regproc),
	col("typalign", types.Char),
	col("typstorage", types.Char),
	col("typnotnull", types.Bool),
	col("typbasetype", types.Oid),
	col("typtypmod", types.Int4),
	col("typndims", types.Int4),
	col("typcollation", types.Oid),
	col("typdefaultbin", types.PgNodeTree),
	col("typdefault", types.Text),
	col("typacl", aclitemArray),
}

// preferredTypes are the typispreferred types of PostgreSQL's categories.
var preferredTypes = map[uint32]bool{
	types.OidBool: true, types.OidText: true, types.OidOid: true, types.OidFloat8: true,
	types.OidTimestampTZ: true, types.OidInterval: true,
}

// pgType lists every type sql/types knows, all in pg_catalog, and the row
// types of the relations (row_types.go).
func pgType() *Table {
	cols := pgTypeColumns
	return &Table{OID: 1247, Schema: "pg_catalog", Name: "pg_type", Kind: 'r', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			all := types.All()
			for i := range all {
				info := &all[i]
				typtype := byte('b')
				if isPseudo(info) {
					typtype = 'p'
				}
				var in, out, recv, send uint32
				if isArrayType(info) {
					in, out, recv, send = ArrayInOID, ArrayOutOID, ArrayRecvOID, ArraySendOID
				}
				rb.add(info.OID, info.Name, catalog.PGCatalogOID, catalog.BootstrapRoleOID,
					info.Len, info.ByVal, typtype, info.Category, preferredTypes[info.OID], true,
					byte(','), uint32(0), uint32(0), info.Elem, info.Array,
					in, out, recv, send, uint32(0), uint32(0), uint32(0),
					alignOf(info), storageOf(info), false, uint32(0), int32(-1), int32(0),
					collationOf(info.OID), nil, nil, nil)
			}
			addRowTypes(rb, s)
			return rb.finish()
		}}
}

// isPseudo reports pseudo-types (record, any, void, unknown, ...) and
// arrays of them, which PostgreSQL marks typtype 'p'.
func isPseudo(info *types.Info) bool {
	if info.Category == 'P' || info.OID == types.OidUnknown {
		return true
	}
	if isArrayType(info) {
		if e, ok := types.Lookup(info.Elem); ok {
			return isPseudo(e)
		}
	}
	return false
}
