package expr

import (
	"strings"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// has_table_privilege and its family, as PostgreSQL 15's utils/adt/acl.c
// answers them: a role (name, OID, or the current user when left out),
// an object (text resolved as PostgreSQL resolves it, or an OID) and a
// privilege string (a comma list, any case, each item optionally "WITH
// GRANT OPTION"). Any one listed privilege suffices (ACLMASK_ANY). A
// role name is resolved first, then an object given as text, then the
// privilege string; an object OID that names nothing gives NULL, after
// the privilege string is checked, as PostgreSQL orders it.

// Privilege bits are PostgreSQL's AclMode: INSERT 1<<0, SELECT 1<<1,
// UPDATE 1<<2, DELETE 1<<3, TRUNCATE 1<<4, REFERENCES 1<<5, TRIGGER
// 1<<6, EXECUTE 1<<7, USAGE 1<<8, CREATE 1<<9, TEMPORARY 1<<10, CONNECT
// 1<<11 (catalog.Privileges uses the same bits); a grant option for bit
// b is b<<16.
const (
	aclInsert     uint32 = 1 << 0
	aclSelect     uint32 = 1 << 1
	aclUpdate     uint32 = 1 << 2
	aclDelete     uint32 = 1 << 3
	aclTruncate   uint32 = 1 << 4
	aclReferences uint32 = 1 << 5
	aclTrigger    uint32 = 1 << 6
	aclExecute    uint32 = 1 << 7
	aclUsage      uint32 = 1 << 8
	aclCreate     uint32 = 1 << 9
	aclTemporary  uint32 = 1 << 10
	aclConnect    uint32 = 1 << 11
)

// Object kinds PrivilegeCatalog.ObjectPrivileges knows.
const (
	PrivObjRelation byte = 'r'
	PrivObjSchema   byte = 'n'
	PrivObjDatabase byte = 'd'
	PrivObjFunction byte = 'f'
)

// PrivilegeCatalog is what the has_*_privilege functions ask of the
// catalog; the engine's catalog view implements it beside
// RoleMembership. Role 0 is PUBLIC (which holds only what is granted to
// PUBLIC). Privileges are AclMode bits (above).
type PrivilegeCatalog interface {
	CatalogFuncs
	RoleMembership
	// ObjectPrivileges is what role holds on the object oid of kind k
	// (PrivObj…) and the grant-option subset, as PostgreSQL's aclmask:
	// everything for a superuser, every grant option for whoever has
	// the owner's privileges, and for relations what pg_read_all_data
	// and pg_write_all_data give. ok is false when there is no such
	// object.
	ObjectPrivileges(role uint32, k byte, oid uint32) (privs, grant uint32, ok bool)
	// ColumnPrivileges is what role holds on column attnum of relation
	// rel through the column's own ACL (not the relation's); ok is false
	// when the relation or the column does not exist.
	ColumnPrivileges(role, rel uint32, attnum int) (privs, grant uint32, ok bool)
	// ColumnAttnum finds the column called name (taken as it is, not as
	// an identifier) of relation rel: its attnum, and the relation's
	// name; relExists is false when rel names no relation.
	ColumnAttnum(rel uint32, name string) (attnum int, relName string, relExists bool)
	// RelationIsSequence reports whether rel is a sequence (weir has
	// none; the answer decides has_sequence_privilege's error).
	RelationIsSequence(rel uint32) bool
	// SchemaOID and DatabaseOID resolve plain names (not identifiers).
	SchemaOID(name string) (uint32, bool)
	DatabaseOID(name string) (uint32, bool)
	// FunctionOID resolves regprocedure input, "name(argtypes)".
	FunctionOID(signature string) (uint32, error)
}

func privilegeCatalog(ctx *Ctx) (PrivilegeCatalog, error) {
	if pc, ok := ctx.Catalog.(PrivilegeCatalog); ok {
		return pc, nil
	}
	return nil, sqlerr.New(sqlerr.FeatureNotSupported, "privilege information is not available here")
}

// privWord is one privilege string item and its bits.
type privWord struct {
	name string
	bits uint32
}

// privWords lists the items a kind accepts, each also "… WITH GRANT
// OPTION" (bits<<16).
func privWords(base ...privWord) []privWord {
	out := append([]privWord{}, base...)
	for _, w := range base {
		out = append(out, privWord{w.name + " WITH GRANT OPTION", w.bits << 16})
	}
	return out
}

var (
	tablePrivWords = privWords(privWord{"SELECT", aclSelect}, privWord{"INSERT", aclInsert}, privWord{"UPDATE", aclUpdate},
		privWord{"DELETE", aclDelete}, privWord{"TRUNCATE", aclTruncate}, privWord{"REFERENCES", aclReferences},
		privWord{"TRIGGER", aclTrigger}, privWord{"RULE", 0}) // RULE is accepted and means nothing, as in PostgreSQL
	columnPrivWords = privWords(privWord{"SELECT", aclSelect}, privWord{"INSERT", aclInsert}, privWord{"UPDATE", aclUpdate},
		privWord{"REFERENCES", aclReferences})
	schemaPrivWords   = privWords(privWord{"CREATE", aclCreate}, privWord{"USAGE", aclUsage})
	databasePrivWords = privWords(privWord{"CREATE", aclCreate}, privWord{"TEMPORARY", aclTemporary},
		privWord{"TEMP", aclTemporary}, privWord{"CONNECT", aclConnect})
	functionPrivWords = privWords(privWord{"EXECUTE", aclExecute})
	sequencePrivWords = privWords(privWord{"USAGE", aclUsage}, privWord{"SELECT", aclSelect}, privWord{"UPDATE", aclUpdate})
)

// parsePrivString is convert_any_priv_string: items split at commas,
// trimmed of white space, compared without regard to case.
func parsePrivString(s string, words []privWord) (uint32, error) {
	var mode uint32
	for _, chunk := range strings.Split(s, ",") {
		chunk = strings.TrimSpace(chunk)
		found := false
		for _, w := range words {
			if strings.EqualFold(w.name, chunk) {
				mode |= w.bits
				found = true
				break
			}
		}
		if !found {
			return 0, sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized privilege type: \"%s\"", chunk)
		}
	}
	return mode, nil
}

// holds reports whether privileges and grant options held cover any
// bit of mode.
func holds(privs, grant, mode uint32) bool {
	return (privs|grant<<16)&mode != 0
}

// privRole resolves a has_*_privilege role argument: a name ("public"
// is PUBLIC, 42704 for an unknown one), an OID as it is, or the current
// user when current is set.
func privRole(ctx *Ctx, pc PrivilegeCatalog, t types.T, v Datum, current bool) (uint32, error) {
	if current {
		oid, ok := pc.RoleOID(ctx.User)
		if !ok {
			return 0, sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", ctx.User)
		}
		return oid, nil
	}
	if t.OID == types.OidOid {
		return uint32(v.(int64)), nil
	}
	name := v.(string)
	if name == "public" {
		return 0, nil
	}
	oid, ok := pc.RoleOID(name)
	if !ok {
		return 0, sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	return oid, nil
}

// privObject is how one function of the family resolves its object
// argument given as text, and which privilege words it takes.
type privObject struct {
	kind    byte
	words   []privWord
	resolve func(ctx *Ctx, pc PrivilegeCatalog, name string) (uint32, error)
}

func resolveRelation(ctx *Ctx, pc PrivilegeCatalog, name string) (uint32, error) {
	return pc.RelationOID(name)
}

var privObjects = map[string]privObject{
	"has_table_privilege":      {PrivObjRelation, tablePrivWords, resolveRelation},
	"has_any_column_privilege": {PrivObjRelation, columnPrivWords, resolveRelation},
	"has_sequence_privilege":   {PrivObjRelation, sequencePrivWords, resolveRelation},
	"has_schema_privilege": {PrivObjSchema, schemaPrivWords, func(_ *Ctx, pc PrivilegeCatalog, name string) (uint32, error) {
		if oid, ok := pc.SchemaOID(name); ok {
			return oid, nil
		}
		return 0, sqlerr.New(sqlerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
	}},
	"has_database_privilege": {PrivObjDatabase, databasePrivWords, func(_ *Ctx, pc PrivilegeCatalog, name string) (uint32, error) {
		if oid, ok := pc.DatabaseOID(name); ok {
			return oid, nil
		}
		return 0, sqlerr.New(sqlerr.InvalidCatalogName, "database \"%s\" does not exist", name)
	}},
	"has_function_privilege": {PrivObjFunction, functionPrivWords, func(_ *Ctx, pc PrivilegeCatalog, name string) (uint32, error) {
		return pc.FunctionOID(name)
	}},
}

// objectCheck answers one call of a function of the family over an
// object: nil (NULL) when an object OID names nothing.
func objectCheck(ctx *Ctx, fn string, o privObject, roleT, objT types.T, role, obj, priv Datum, current bool) (Datum, error) {
	pc, err := privilegeCatalog(ctx)
	if err != nil {
		return nil, err
	}
	r, err := privRole(ctx, pc, roleT, role, current)
	if err != nil {
		return nil, err
	}
	var oid uint32
	byText := objT.OID != types.OidOid
	if byText {
		if oid, err = o.resolve(ctx, pc, obj.(string)); err != nil {
			return nil, err
		}
	} else {
		oid = uint32(obj.(int64))
	}
	mode, err := parsePrivString(priv.(string), o.words)
	if err != nil {
		return nil, err
	}
	if fn == "has_sequence_privilege" {
		if _, _, ok := pc.ObjectPrivileges(r, o.kind, oid); !ok {
			return nil, nil
		}
		if !pc.RelationIsSequence(oid) {
			name, _ := pc.RelationName(oid)
			if byText {
				name = obj.(string)
			}
			return nil, sqlerr.New(sqlerr.WrongObjectType, "\"%s\" is not a sequence", name)
		}
	}
	p, g, ok := pc.ObjectPrivileges(r, o.kind, oid)
	if !ok {
		return nil, nil
	}
	if holds(p, g, mode) {
		return true, nil
	}
	if fn != "has_any_column_privilege" {
		return false, nil
	}
	// No relation-level privilege: any column's own will do.
	for attnum := 1; ; attnum++ {
		cp, cg, ok := pc.ColumnPrivileges(r, oid, attnum)
		if !ok {
			return false, nil
		}
		if holds(cp, cg, mode) {
			return true, nil
		}
	}
}

// columnCheck is has_column_privilege: the column's own privileges, then
// the relation's. A column or relation OID that names nothing is NULL; a
// column name unknown in an existing relation is 42703.
func columnCheck(ctx *Ctx, roleT, relT, colT types.T, role, rel, col, priv Datum, current bool) (Datum, error) {
	pc, err := privilegeCatalog(ctx)
	if err != nil {
		return nil, err
	}
	r, err := privRole(ctx, pc, roleT, role, current)
	if err != nil {
		return nil, err
	}
	var oid uint32
	if relT.OID == types.OidOid {
		oid = uint32(rel.(int64))
	} else if oid, err = pc.RelationOID(rel.(string)); err != nil {
		return nil, err
	}
	var attnum int
	if colT.OID == types.OidInt2 {
		attnum = int(col.(int64))
	} else {
		n, relName, exists := pc.ColumnAttnum(oid, col.(string))
		if exists && n == 0 {
			return nil, sqlerr.New(sqlerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col.(string), relName)
		}
		attnum = n
	}
	mode, err := parsePrivString(priv.(string), columnPrivWords)
	if err != nil {
		return nil, err
	}
	if attnum == 0 {
		return nil, nil
	}
	cp, cg, ok := pc.ColumnPrivileges(r, oid, attnum)
	if !ok {
		return nil, nil
	}
	if holds(cp, cg, mode) {
		return true, nil
	}
	p, g, ok := pc.ObjectPrivileges(r, PrivObjRelation, oid)
	if !ok {
		return nil, nil
	}
	return holds(p, g, mode), nil
}

func init() {
	roleTypes := []types.T{types.Name, types.Oid}
	objTypes := []types.T{types.Text, types.Oid}
	for fn, o := range privObjects {
		fn, o := fn, o
		var ovs []Overload
		for _, rt := range roleTypes {
			for _, ot := range objTypes {
				rt, ot := rt, ot
				ovs = append(ovs, Overload{Args: []types.T{rt, ot, types.Text}, Ret: types.Bool,
					Impl: Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) {
						return objectCheck(ctx, fn, o, rt, ot, a[0], a[1], a[2], false)
					})})
			}
		}
		for _, ot := range objTypes {
			ot := ot
			ovs = append(ovs, Overload{Args: []types.T{ot, types.Text}, Ret: types.Bool,
				Impl: Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) {
					return objectCheck(ctx, fn, o, types.Name, ot, nil, a[0], a[1], true)
				})})
		}
		RegisterScalar(fn, ovs...)
	}
	var ovs []Overload
	colTypes := []types.T{types.Text, types.Int2}
	for _, rt := range roleTypes {
		for _, ot := range objTypes {
			for _, ct := range colTypes {
				rt, ot, ct := rt, ot, ct
				ovs = append(ovs, Overload{Args: []types.T{rt, ot, ct, types.Text}, Ret: types.Bool,
					Impl: Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) {
						return columnCheck(ctx, rt, ot, ct, a[0], a[1], a[2], a[3], false)
					})})
			}
		}
	}
	for _, ot := range objTypes {
		for _, ct := range colTypes {
			ot, ct := ot, ct
			ovs = append(ovs, Overload{Args: []types.T{ot, ct, types.Text}, Ret: types.Bool,
				Impl: Strict(types.Bool, func(ctx *Ctx, a []Datum) (Datum, error) {
					return columnCheck(ctx, types.Name, ot, ct, nil, a[0], a[1], a[2], true)
				})})
		}
	}
	RegisterScalar("has_column_privilege", ovs...)
}
