package pgcatalog

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// Language OIDs as in PostgreSQL's pg_language.
const (
	langInternal uint32 = 12
	langC        uint32 = 13
	langSQL      uint32 = 14
	langPLpgSQL  uint32 = 13570
)

// builtinProcs are functions pg_proc lists whatever the registry holds,
// because catalog rows refer to them by OID (pg_type.typinput ...).
var builtinProcs = []struct {
	oid    uint32
	name   string
	args   []uint32
	result uint32
}{
	{ArrayInOID, "array_in", []uint32{2275, types.OidOid, types.OidInt4}, types.OidAnyArray},
	{ArrayOutOID, "array_out", []uint32{types.OidAnyArray}, 2275},
	{ArrayRecvOID, "array_recv", []uint32{2281, types.OidOid, types.OidInt4}, types.OidAnyArray},
	{ArraySendOID, "array_send", []uint32{types.OidAnyArray}, types.OidBytea},
}

// FunctionOID is the pg_proc OID of s.Functions[i].
func (s *Snapshot) FunctionOID(i int) uint32 {
	if f := s.Functions[i]; f.OID != 0 {
		return f.OID
	}
	return FunctionOIDBase + uint32(i)
}

func pgProc() *Table {
	cols := []catalog.Column{
		col("oid", types.Oid),
		col("proname", types.Name),
		col("pronamespace", types.Oid),
		col("proowner", types.Oid),
		col("prolang", types.Oid),
		col("procost", types.Float4),
		col("prorows", types.Float4),
		col("provariadic", types.Oid),
		col("prosupport", types.Regproc),
		col("prokind", types.Char),
		col("prosecdef", types.Bool),
		col("proleakproof", types.Bool),
		col("proisstrict", types.Bool),
		col("proretset", types.Bool),
		col("provolatile", types.Char),
		col("proparallel", types.Char),
		col("pronargs", types.Int2),
		col("pronargdefaults", types.Int2),
		col("prorettype", types.Oid),
		col("proargtypes", oidVector),
		col("proallargtypes", oidArray),
		col("proargmodes", charArray),
		col("proargnames", textArray),
		col("proargdefaults", types.PgNodeTree),
		col("protrftypes", oidArray),
		col("prosrc", types.Text),
		col("probin", types.Text),
		col("prosqlbody", types.PgNodeTree),
		col("proconfig", textArray),
		col("proacl", aclitemArray),
	}
	addProc := func(rb *rowBuilder, oid uint32, name string, kind byte, retset bool, args []uint32, ret uint32) {
		rb.add(oid, name, catalog.PGCatalogOID, catalog.BootstrapRoleOID, langInternal,
			float32(1), float32(0), uint32(0), uint32(0), kind, false, false, true, retset,
			byte('i'), byte('s'), int16(len(args)), int16(0), ret, vectorText(args),
			nil, nil, nil, nil, nil, name, nil, nil, nil, nil)
	}
	return &Table{OID: 1255, Schema: "pg_catalog", Name: "pg_proc", Kind: 'r', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, p := range builtinProcs {
				addProc(rb, p.oid, p.name, 'f', false, p.args, p.result)
			}
			for i, f := range s.Functions {
				kind := byte('f')
				switch {
				case f.IsAggregate:
					kind = 'a'
				case f.IsWindow:
					kind = 'w'
				}
				// Without declared argument types (variadic or polymorphic
				// registry entries) the arguments show as "any".
				args := make([]uint32, f.NumArgs)
				for j := range args {
					args[j] = types.OidAny
					if len(f.ArgTypes) == f.NumArgs {
						args[j] = f.ArgTypes[j].OID
					}
				}
				addProc(rb, s.FunctionOID(i), f.Name, kind, f.ReturnsSet, args, f.RetType.OID)
			}
			addUserProcs(rb, s) // pg_proc_user.go
			return rb.finish()
		}}
}
