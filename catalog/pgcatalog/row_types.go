package pgcatalog

// Every relation has a composite row type named like it, and an array
// type of that ("_name"), as in PostgreSQL: pgjdbc's getUDTs lists them,
// psycopg's CompositeInfo.fetch('table') reads a table's fields through
// them, and pg_class.reltype points at them. weir stores neither; their
// OIDs are derived from the relation's, below the other derived OIDs
// (table.go) and above the catalog's own (which grow from 16384).
const (
	rowTypeOIDBase      uint32 = 1 << 27
	rowArrayTypeOIDBase uint32 = 1<<27 + 1<<26
)

// RowTypeOID is the pg_type OID of relation relOID's row type.
func RowTypeOID(relOID uint32) uint32 { return rowTypeOIDBase + relOID }

// RowArrayTypeOID is the pg_type OID of the array of relOID's row type.
func RowArrayTypeOID(relOID uint32) uint32 { return rowArrayTypeOIDBase + relOID }

// RelationOfRowType returns the relation whose row type (or, with array
// true, the array of it) is oid.
func RelationOfRowType(oid uint32) (rel uint32, array bool, ok bool) {
	switch {
	case oid >= rowTypeOIDBase && oid < rowArrayTypeOIDBase:
		return oid - rowTypeOIDBase, false, true
	case oid >= rowArrayTypeOIDBase && oid < attrdefOIDBase:
		return oid - rowArrayTypeOIDBase, true, true
	}
	return 0, false, false
}

// addRowTypes appends the row type and its array type of every relation
// to pg_type's rows.
func addRowTypes(rb *rowBuilder, s *Snapshot) {
	for _, r := range s.relations() {
		nsp := s.nspOID(r.Schema)
		rb.add(RowTypeOID(r.OID), r.Name, nsp, r.Owner,
			int16(-1), false, byte('c'), byte('C'), false, true,
			byte(','), r.OID, uint32(0), uint32(0), RowArrayTypeOID(r.OID),
			recordInOID, recordOutOID, recordRecvOID, recordSendOID, uint32(0), uint32(0), uint32(0),
			byte('d'), byte('x'), false, uint32(0), int32(-1), int32(0),
			uint32(0), nil, nil, nil)
		rb.add(RowArrayTypeOID(r.OID), "_"+r.Name, nsp, r.Owner,
			int16(-1), false, byte('b'), byte('A'), false, true,
			byte(','), uint32(0), arraySubscriptHandlerOID, RowTypeOID(r.OID), uint32(0),
			ArrayInOID, ArrayOutOID, ArrayRecvOID, ArraySendOID, uint32(0), uint32(0), uint32(0),
			byte('d'), byte('x'), false, uint32(0), int32(-1), int32(0),
			uint32(0), nil, nil, nil)
	}
}

// OIDs of record_in, record_out, record_recv, record_send and
// array_subscript_handler, as in PostgreSQL.
const (
	recordInOID              uint32 = 2290
	recordOutOID             uint32 = 2291
	recordRecvOID            uint32 = 2402
	recordSendOID            uint32 = 2403
	arraySubscriptHandlerOID uint32 = 6179
)
