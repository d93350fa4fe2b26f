package pgcatalog

import "github.com/weir-sql/weir/sql/types"

// Collation OIDs as in PostgreSQL's pg_collation.
const (
	collationDefault uint32 = 100
	collationC       uint32 = 950
	collationPOSIX   uint32 = 951
)

// collationOf is the typcollation of a type (and so the attcollation of a
// column of it): text types use the database default, name uses "C" as in
// PostgreSQL 12+, everything else is not collatable. Arrays inherit it.
func collationOf(oid uint32) uint32 {
	info, ok := types.Lookup(oid)
	if !ok {
		return 0
	}
	if info.Category == 'A' && info.Elem != 0 && oid != types.OidInt2Vector && oid != types.OidOidVector {
		return collationOf(info.Elem)
	}
	switch oid {
	case types.OidText, types.OidVarchar, types.OidBpchar:
		return collationDefault
	case types.OidName:
		return collationC
	}
	return 0
}

// storageOf is typstorage/attstorage: fixed-length types are stored plain,
// variable-length ones extended, except numeric, inet and cidr, which
// PostgreSQL stores 'main' (psql's \d+ shows it in the Storage column).
func storageOf(info *types.Info) byte {
	if info.Len > 0 {
		return 'p'
	}
	switch info.OID {
	case types.OidNumeric, 869, 650: // numeric, inet, cidr
		return 'm'
	}
	return 'x'
}

// alignOf is typalign/attalign.
func alignOf(info *types.Info) byte {
	switch info.Len {
	case 1:
		return 'c'
	case 2:
		return 's'
	case 8, 16:
		return 'd'
	case -2, 64:
		return 'c'
	}
	return 'i'
}

// isArrayType tells true array types (_int4, ...) from int2vector and
// oidvector, which have an element type but are not arrays to clients.
func isArrayType(info *types.Info) bool {
	return info.Category == 'A' && info.Elem != 0 && len(info.Name) > 0 && info.Name[0] == '_'
}
