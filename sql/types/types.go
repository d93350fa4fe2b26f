// Package types maps SQL types to PostgreSQL OIDs and to the Arrow types that
// carry their values between operators, and encodes values for the wire.
//
// Representation of each SQL type inside an Arrow column (fixed; every package
// relies on it):
//
//	bool                         arrow.Boolean
//	int2 / int4 / int8           arrow.Int16 / Int32 / Int64
//	oid, regclass, regtype, ...  arrow.Uint32
//	float4 / float8              arrow.Float32 / Float64
//	numeric                      arrow.String holding the canonical decimal text
//	                             (exact; arithmetic goes through apd)
//	text, varchar, bpchar, name,
//	"char", json, jsonb          arrow.String
//	bytea                        arrow.Binary
//	date                         arrow.Date32 (days since 1970-01-01)
//	time                         arrow.Time64 (microseconds)
//	timestamp                    arrow.Timestamp(us, no zone)   wall clock as if UTC
//	timestamptz                  arrow.Timestamp(us, "UTC")     absolute instant
//	interval                     arrow.MonthDayNanoInterval     (nanos = micros*1000)
//	uuid                         arrow.FixedSizeBinary(16)
//	T[]                          arrow.List of T's representation (one dimension)
//	struct (record with fields)  arrow.Struct of the fields' representations
//	                             (struct.go: the type modifier names the shape)
//	unknown (untyped literal)    arrow.String
package types

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// OIDs of the PostgreSQL types weir knows, as in pg_type.h.
const (
	OidBool         uint32 = 16
	OidBytea        uint32 = 17
	OidChar         uint32 = 18
	OidName         uint32 = 19
	OidInt8         uint32 = 20
	OidInt2         uint32 = 21
	OidInt2Vector   uint32 = 22
	OidInt4         uint32 = 23
	OidRegproc      uint32 = 24
	OidText         uint32 = 25
	OidOid          uint32 = 26
	OidOidVector    uint32 = 30
	OidJSON         uint32 = 114
	OidPgNodeTree   uint32 = 194
	OidFloat4       uint32 = 700
	OidFloat8       uint32 = 701
	OidUnknown      uint32 = 705
	OidBpchar       uint32 = 1042
	OidVarchar      uint32 = 1043
	OidDate         uint32 = 1082
	OidTime         uint32 = 1083
	OidTimestamp    uint32 = 1114
	OidTimestampTZ  uint32 = 1184
	OidInterval     uint32 = 1186
	OidNumeric      uint32 = 1700
	OidRegclass     uint32 = 2205
	OidRegtype      uint32 = 2206
	OidRegnamespace uint32 = 4089
	OidRegrole      uint32 = 4096
	OidRecord       uint32 = 2249
	OidAny          uint32 = 2276
	OidAnyArray     uint32 = 2277
	OidVoid         uint32 = 2278
	OidUUID         uint32 = 2950
	OidJSONB        uint32 = 3802
	OidAnyElement   uint32 = 2283
	OidXid          uint32 = 28
	OidACLItem      uint32 = 1033
)

// T is a SQL type: a PostgreSQL type OID and its type modifier (-1 when none;
// for varchar(n) it is n+4, for numeric(p,s) ((p<<16)|s)+4, as PostgreSQL does).
// Arrays are their own OIDs (e.g. 1007 for int4[]); Elem gives the element.
type T struct {
	OID    uint32
	Typmod int32
}

// Commonly used types.
var (
	Unknown      = T{OidUnknown, -1}
	Bool         = T{OidBool, -1}
	Int2         = T{OidInt2, -1}
	Int4         = T{OidInt4, -1}
	Int8         = T{OidInt8, -1}
	Float4       = T{OidFloat4, -1}
	Float8       = T{OidFloat8, -1}
	Numeric      = T{OidNumeric, -1}
	Text         = T{OidText, -1}
	Varchar      = T{OidVarchar, -1}
	Bpchar       = T{OidBpchar, -1}
	Name         = T{OidName, -1}
	Char         = T{OidChar, -1}
	Bytea        = T{OidBytea, -1}
	Date         = T{OidDate, -1}
	Time         = T{OidTime, -1}
	Timestamp    = T{OidTimestamp, -1}
	TimestampTZ  = T{OidTimestampTZ, -1}
	Interval     = T{OidInterval, -1}
	UUID         = T{OidUUID, -1}
	JSON         = T{OidJSON, -1}
	JSONB        = T{OidJSONB, -1}
	Oid          = T{OidOid, -1}
	Regclass     = T{OidRegclass, -1}
	Regtype      = T{OidRegtype, -1}
	Regproc      = T{OidRegproc, -1}
	Regnamespace = T{OidRegnamespace, -1}
	Regrole      = T{OidRegrole, -1}
	PgNodeTree   = T{OidPgNodeTree, -1}
	Void         = T{OidVoid, -1}
	Record       = T{OidRecord, -1}
)

// Info describes a base type as pg_type does.
type Info struct {
	OID      uint32
	Name     string // pg_type.typname
	SQLName  string // format_type spelling, e.g. "integer", "character varying"
	Len      int16  // typlen: -1 variable, -2 cstring
	ByVal    bool
	Category byte   // typcategory
	Array    uint32 // OID of the array type, 0 if none
	Elem     uint32 // for array types, the element OID
	Arrow    arrow.DataType
}

// baseTypes lists every type weir can store or compute; pg_type is built from it.
var baseTypes = []Info{
	{OidBool, "bool", "boolean", 1, true, 'B', 1000, 0, arrow.FixedWidthTypes.Boolean},
	{OidBytea, "bytea", "bytea", -1, false, 'U', 1001, 0, arrow.BinaryTypes.Binary},
	{OidChar, "char", "\"char\"", 1, true, 'Z', 1002, 0, arrow.BinaryTypes.String},
	{OidName, "name", "name", 64, false, 'S', 1003, 0, arrow.BinaryTypes.String},
	{OidInt8, "int8", "bigint", 8, true, 'N', 1016, 0, arrow.PrimitiveTypes.Int64},
	{OidInt2, "int2", "smallint", 2, true, 'N', 1005, 0, arrow.PrimitiveTypes.Int16},
	{OidInt2Vector, "int2vector", "int2vector", -1, false, 'A', 1006, OidInt2, arrow.BinaryTypes.String},
	{OidInt4, "int4", "integer", 4, true, 'N', 1007, 0, arrow.PrimitiveTypes.Int32},
	{OidRegproc, "regproc", "regproc", 4, true, 'N', 1008, 0, arrow.PrimitiveTypes.Uint32},
	{OidText, "text", "text", -1, false, 'S', 1009, 0, arrow.BinaryTypes.String},
	{OidOid, "oid", "oid", 4, true, 'N', 1028, 0, arrow.PrimitiveTypes.Uint32},
	{OidXid, "xid", "xid", 4, true, 'U', 1011, 0, arrow.PrimitiveTypes.Uint32},
	{OidOidVector, "oidvector", "oidvector", -1, false, 'A', 1013, OidOid, arrow.BinaryTypes.String},
	{OidJSON, "json", "json", -1, false, 'U', 199, 0, arrow.BinaryTypes.String},
	{OidPgNodeTree, "pg_node_tree", "pg_node_tree", -1, false, 'Z', 0, 0, arrow.BinaryTypes.String},
	{OidFloat4, "float4", "real", 4, true, 'N', 1021, 0, arrow.PrimitiveTypes.Float32},
	{OidFloat8, "float8", "double precision", 8, true, 'N', 1022, 0, arrow.PrimitiveTypes.Float64},
	{OidUnknown, "unknown", "unknown", -2, false, 'X', 0, 0, arrow.BinaryTypes.String},
	{OidACLItem, "aclitem", "aclitem", 12, false, 'U', 1034, 0, arrow.BinaryTypes.String},
	{OidBpchar, "bpchar", "character", -1, false, 'S', 1014, 0, arrow.BinaryTypes.String},
	{OidVarchar, "varchar", "character varying", -1, false, 'S', 1015, 0, arrow.BinaryTypes.String},
	{OidDate, "date", "date", 4, true, 'D', 1182, 0, arrow.FixedWidthTypes.Date32},
	{OidTime, "time", "time without time zone", 8, true, 'D', 1183, 0, arrow.FixedWidthTypes.Time64us},
	{OidTimestamp, "timestamp", "timestamp without time zone", 8, true, 'D', 1115, 0, &arrow.TimestampType{Unit: arrow.Microsecond}},
	{OidTimestampTZ, "timestamptz", "timestamp with time zone", 8, true, 'D', 1185, 0, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
	{OidInterval, "interval", "interval", 16, false, 'T', 1187, 0, arrow.FixedWidthTypes.MonthDayNanoInterval},
	{OidNumeric, "numeric", "numeric", -1, false, 'N', 1231, 0, arrow.BinaryTypes.String},
	{OidRegclass, "regclass", "regclass", 4, true, 'N', 2210, 0, arrow.PrimitiveTypes.Uint32},
	{OidRegtype, "regtype", "regtype", 4, true, 'N', 2211, 0, arrow.PrimitiveTypes.Uint32},
	{OidRegnamespace, "regnamespace", "regnamespace", 4, true, 'N', 4090, 0, arrow.PrimitiveTypes.Uint32},
	{OidRegrole, "regrole", "regrole", 4, true, 'N', 4097, 0, arrow.PrimitiveTypes.Uint32},
	{OidRecord, "record", "record", -1, false, 'P', 2287, 0, arrow.BinaryTypes.String},
	{OidAny, "any", "\"any\"", 4, true, 'P', 0, 0, arrow.BinaryTypes.String},
	{OidAnyArray, "anyarray", "anyarray", -1, false, 'P', 0, 0, arrow.BinaryTypes.String},
	{OidAnyElement, "anyelement", "anyelement", 4, true, 'P', 0, 0, arrow.BinaryTypes.String},
	{OidVoid, "void", "void", 4, true, 'P', 0, 0, arrow.Null},
	{OidUUID, "uuid", "uuid", 16, false, 'U', 2951, 0, &arrow.FixedSizeBinaryType{ByteWidth: 16}},
	{OidJSONB, "jsonb", "jsonb", -1, false, 'U', 3807, 0, arrow.BinaryTypes.String},
}

var (
	byOID  = map[uint32]*Info{}
	byName = map[string]*Info{}
)

func init() {
	n := len(baseTypes)
	for i := 0; i < n; i++ {
		b := &baseTypes[i]
		if b.Array == 0 {
			continue
		}
		baseTypes = append(baseTypes, Info{
			OID: b.Array, Name: "_" + b.Name, SQLName: b.SQLName + "[]", Len: -1,
			Category: arrayCategory(b.OID), Elem: b.OID, Arrow: arrow.ListOf(b.Arrow),
		})
	}
	for i := range baseTypes {
		byOID[baseTypes[i].OID] = &baseTypes[i]
		byName[baseTypes[i].Name] = &baseTypes[i]
	}
}

// All lists every known type, base types first, then array types.
func All() []Info { return baseTypes }

// Lookup returns the description of a type OID.
func Lookup(oid uint32) (*Info, bool) { i, ok := byOID[oid]; return i, ok }

// Info returns the description of t; unknown OIDs describe as unknown.
func (t T) Info() *Info {
	if i, ok := byOID[t.OID]; ok {
		return i
	}
	return byOID[OidUnknown]
}

// Arrow returns the Arrow type that carries values of t.
func (t T) Arrow() arrow.DataType {
	if t.OID == OidRecord {
		if dt, ok := structArrow(t); ok {
			return dt
		}
	}
	return t.Info().Arrow
}

// IsArray reports whether t is an array type (T[]). int2vector and
// oidvector have an element type in pg_type but are not arrays here: like
// format_type, weir treats them as types of their own (held as text).
func (t T) IsArray() bool { return t.Info().isArray() }

func (i *Info) isArray() bool {
	return i.Elem != 0 && i.Category == 'A' && strings.HasPrefix(i.Name, "_")
}

// Elem returns the element type of an array type.
func (t T) Elem() T { return T{t.Info().Elem, -1} }

// ArrayOf returns the array type whose elements are t; T{} (OID 0) when
// t has none. Struct types have none yet: record[] would carry its
// elements as text, not as the struct's Arrow representation.
func ArrayOf(t T) T {
	if t.IsStruct() {
		return T{}
	}
	return T{t.Info().Array, -1}
}

// String is the format_type spelling, with the modifier.
func (t T) String() string { return FormatType(t.OID, t.Typmod) }

// FormatType spells a type as PostgreSQL's format_type(oid, typmod) does.
func FormatType(oid uint32, typmod int32) string {
	i, ok := byOID[oid]
	if !ok {
		return "???"
	}
	if i.isArray() {
		return FormatType(i.Elem, typmod) + "[]"
	}
	name := i.SQLName
	if typmod < 0 {
		return name
	}
	switch oid {
	case OidVarchar, OidBpchar:
		return fmt.Sprintf("%s(%d)", name, typmod-4)
	case OidNumeric:
		m := typmod - 4
		return fmt.Sprintf("numeric(%d,%d)", (m>>16)&0xffff, m&0xffff)
	case OidTimestamp:
		return fmt.Sprintf("timestamp(%d) without time zone", typmod)
	case OidTimestampTZ:
		return fmt.Sprintf("timestamp(%d) with time zone", typmod)
	case OidTime:
		return fmt.Sprintf("time(%d) without time zone", typmod)
	case OidInterval:
		return name + formatIntervalTypmod(typmod)
	}
	return name
}

// SQL type names as written in DDL and casts, mapped to their OID.
var sqlNames = map[string]uint32{
	"bool": OidBool, "boolean": OidBool,
	"int2": OidInt2, "smallint": OidInt2,
	"int4": OidInt4, "int": OidInt4, "integer": OidInt4, "serial": OidInt4, "serial4": OidInt4,
	"int8": OidInt8, "bigint": OidInt8, "bigserial": OidInt8, "serial8": OidInt8,
	"float4": OidFloat4, "real": OidFloat4,
	"float8": OidFloat8, "double precision": OidFloat8, "float": OidFloat8,
	"numeric": OidNumeric, "decimal": OidNumeric,
	"text": OidText, "varchar": OidVarchar, "character varying": OidVarchar,
	"bpchar": OidBpchar, "char": OidBpchar, "character": OidBpchar, "name": OidName,
	"bytea": OidBytea, "date": OidDate,
	"time": OidTime, "time without time zone": OidTime,
	"timestamp": OidTimestamp, "timestamp without time zone": OidTimestamp,
	"timestamptz": OidTimestampTZ, "timestamp with time zone": OidTimestampTZ,
	"interval": OidInterval, "uuid": OidUUID, "json": OidJSON, "jsonb": OidJSONB,
	"oid": OidOid, "regclass": OidRegclass, "regtype": OidRegtype, "regproc": OidRegproc,
	"regprocedure": OidRegproc, "regnamespace": OidRegnamespace, "regrole": OidRegrole,
	"unknown": OidUnknown, "record": OidRecord, "void": OidVoid, "pg_node_tree": OidPgNodeTree,
	"xid": OidXid, "int2vector": OidInt2Vector, "oidvector": OidOidVector, "aclitem": OidACLItem,
}

// ByName resolves a type name as written in SQL (after pg_catalog. is
// stripped); "\"char\"" is the one-byte char type.
func ByName(name string) (T, bool) {
	if name == "\"char\"" {
		return Char, true
	}
	if oid, ok := sqlNames[name]; ok {
		return T{oid, -1}, true
	}
	if i, ok := byName[name]; ok {
		return T{i.OID, -1}, true
	}
	return T{}, false
}

// ByTypname resolves a pg_type.typname ("int4", "bpchar", "char" = the
// one-byte "char" type, "_int4" = int4[]).
func ByTypname(name string) (T, bool) {
	if i, ok := byName[name]; ok {
		return T{i.OID, -1}, true
	}
	return T{}, false
}

// arrayCategory is the typcategory of the array of elem: 'A', except that
// _record is a pseudo-type as in pg_type.
func arrayCategory(elem uint32) byte {
	if elem == OidRecord {
		return 'P'
	}
	return 'A'
}
