package engine

import (
	"strings"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/catalog/pgcatalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// The catalog view answers has_table_privilege and its family
// (expr.PrivilegeCatalog) from the ACLs GRANT and REVOKE store, through
// catalog.Catalog.Privileges, so that the answers follow
// has_privs_of_role (INHERIT) exactly as the checks at bind time do.
// System relations have initdb's ACLs (pgcatalog.SystemRelationACL), and
// weir's built-in functions PostgreSQL's default: EXECUTE for PUBLIC.

var _ expr.PrivilegeCatalog = (*catalogView)(nil)

func (v *catalogView) ObjectPrivileges(role uint32, k byte, oid uint32) (uint32, uint32, bool) {
	cat := v.s.eng.cat
	switch k {
	case expr.PrivObjRelation:
		if rel, ok := cat.RelationByOID(oid); ok {
			p := cat.RelationPrivileges(role, rel)
			_, g := cat.Privileges(role, catalog.ObjRelation, rel.ACL, rel.Owner)
			return uint32(p), uint32(g), true
		}
		if r := virtualRelationByOID(oid); r != nil {
			p, g := cat.Privileges(role, catalog.ObjRelation, pgcatalog.SystemRelationACL(r.Schema, r.Name), catalog.BootstrapRoleOID)
			return uint32(p), uint32(g), true
		}
	case expr.PrivObjSchema:
		if sc := v.schemaByOID(oid); sc != nil {
			p, g := v.schemaPrivileges(role, sc)
			return uint32(p), uint32(g), true
		}
	case expr.PrivObjDatabase:
		for _, d := range cat.Databases() {
			if d.OID == oid {
				p, g := cat.Privileges(role, catalog.ObjDatabase, d.ACL, databaseOwnerOID)
				return uint32(p), uint32(g), true
			}
		}
	case expr.PrivObjFunction:
		if _, ok := v.ProcName(oid); ok {
			p, g := cat.Privileges(role, catalog.ObjFunction, nil, catalog.BootstrapRoleOID)
			return uint32(p), uint32(g), true
		}
	}
	return 0, 0, false
}

// databaseOwnerOID owns every database weir serves (pg_database.datdba).
const databaseOwnerOID = catalog.BootstrapRoleOID

// systemColumns is how many system columns (ctid, xmin, cmin, xmax,
// cmax, tableoid: attnums -1 to -6) a table answers for, as PostgreSQL's
// tables have them.
const systemColumns = 6

func (v *catalogView) ColumnPrivileges(role, rel uint32, attnum int) (uint32, uint32, bool) {
	cat := v.s.eng.cat
	if r, ok := cat.RelationByOID(rel); ok {
		switch {
		case attnum >= 1 && attnum <= len(r.Columns):
			p, g := cat.Privileges(role, catalog.ObjColumn, r.Columns[attnum-1].ACL, r.Owner)
			if r.Columns[attnum-1].ACL == nil {
				g = 0 // no column ACL: nothing at the column's level (the relation's decides)
			}
			return uint32(p), uint32(g), true
		case attnum < 0 && attnum >= -systemColumns && r.Kind == catalog.KindTable:
			return 0, 0, true
		}
		return 0, 0, false
	}
	if r := virtualRelationByOID(rel); r != nil && attnum >= 1 && attnum <= len(r.Cols) {
		return 0, 0, true
	}
	return 0, 0, false
}

func (v *catalogView) ColumnAttnum(rel uint32, name string) (int, string, bool) {
	var cols []string
	var relName string
	if r, ok := v.s.eng.cat.RelationByOID(rel); ok {
		relName = r.Name
		for _, c := range r.Columns {
			cols = append(cols, c.Name)
		}
		if r.Kind == catalog.KindTable {
			for i, sys := range []string{"ctid", "xmin", "cmin", "xmax", "cmax", "tableoid"} {
				if sys == name {
					return -1 - i, relName, true
				}
			}
		}
	} else if r := virtualRelationByOID(rel); r != nil {
		relName = r.Name
		for _, c := range r.Cols {
			cols = append(cols, c.Name)
		}
	} else {
		return 0, "", false
	}
	for i, c := range cols {
		if c == name {
			return i + 1, relName, true
		}
	}
	return 0, relName, true
}

// RelationIsSequence: weir has no sequences.
func (v *catalogView) RelationIsSequence(uint32) bool { return false }

func (v *catalogView) SchemaOID(name string) (uint32, bool) {
	if name == weirCatalogSchema {
		return pgcatalog.WeirCatalogOID, true
	}
	if sc, ok := v.s.eng.cat.Schema(name); ok {
		return sc.OID, true
	}
	return 0, false
}

func (v *catalogView) schemaByOID(oid uint32) *catalog.Schema {
	if oid == pgcatalog.WeirCatalogOID {
		return &catalog.Schema{OID: oid, Name: weirCatalogSchema, Owner: catalog.BootstrapRoleOID}
	}
	for _, sc := range v.s.eng.cat.Schemas() {
		if sc.OID == oid {
			return sc
		}
	}
	return nil
}

func (v *catalogView) DatabaseOID(name string) (uint32, bool) {
	for _, d := range v.s.eng.cat.Databases() {
		if d.Name == name {
			return d.OID, true
		}
	}
	return 0, false
}

// FunctionOID is regprocedure input: "name(type, …)", the name possibly
// qualified by pg_catalog, matched against the registry's overloads by
// argument types. 42883 names the input as given, as PostgreSQL does.
func (v *catalogView) FunctionOID(signature string) (uint32, error) {
	open := strings.IndexByte(signature, '(')
	if open < 0 {
		return 0, sqlerr.New(sqlerr.InvalidTextRepresentation, "expected a left parenthesis")
	}
	if !strings.HasSuffix(strings.TrimSpace(signature), ")") {
		return 0, sqlerr.New(sqlerr.InvalidTextRepresentation, "expected a right parenthesis")
	}
	schema, name := splitQualified(strings.TrimSpace(signature[:open]))
	notFound := sqlerr.New(sqlerr.UndefinedFunction, "function \"%s\" does not exist", signature)
	if schema != "" && schema != "pg_catalog" {
		return 0, notFound
	}
	inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(signature[open+1:]), ")"))
	var args []uint32
	if inner != "" {
		for _, a := range strings.Split(inner, ",") {
			oid, err := v.TypeOID(strings.TrimSpace(a))
			if err != nil {
				return 0, err
			}
			args = append(args, oid)
		}
	}
	for i, sig := range expr.ScalarSignatures() {
		if sig.Name != name || len(sig.Args) != len(args) {
			continue
		}
		match := true
		for j, t := range sig.Args {
			if t.OID != args[j] {
				match = false
				break
			}
		}
		if match {
			return pgcatalog.FunctionOIDBase + uint32(i), nil
		}
	}
	return 0, notFound
}

// virtualRelationByOID finds a relation weir serves itself (pg_catalog,
// information_schema, weir_catalog) by OID; nil if there is none.
func virtualRelationByOID(oid uint32) *planner.Relation {
	switch oid {
	case progressOID:
		return progressRelation()
	case expectationsOID:
		return expectationsRelation()
	}
	if r := monitorRelationByOID(oid); r != nil {
		return r
	}
	if t := pgcatalog.LookupOID(oid); t != nil {
		return virtualRelation(t)
	}
	return nil
}

// explicitSchema is LookupExplicitNamespace for a relation name given as
// text (regclass input, has_table_privilege): a schema that does not
// exist is 3F000, one the current user may not use 42501, as PostgreSQL
// refuses them before looking for the relation. "" (no schema) passes.
func (v *catalogView) explicitSchema(schema string) error {
	if schema == "" || schema == "pg_catalog" || schema == "information_schema" {
		return nil
	}
	if _, ok := v.SchemaOID(schema); !ok {
		return sqlerr.New(sqlerr.InvalidSchemaName, "schema \"%s\" does not exist", schema)
	}
	if sc, ok := v.s.eng.cat.Schema(schema); ok && !v.s.superuser {
		if p, _ := v.schemaPrivileges(v.s.currentRoleOID(), sc); p&catalog.PrivUsage == 0 {
			return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied for schema %s", sc.Name)
		}
	}
	return nil
}

// schemaPrivileges is pg_namespace_aclmask: the schema's ACL, and USAGE
// on every schema for the members of pg_read_all_data and
// pg_write_all_data (PostgreSQL 14's predefined roles reach every
// relation, so they must reach its schema).
func (v *catalogView) schemaPrivileges(role uint32, sc *catalog.Schema) (catalog.Privileges, catalog.Privileges) {
	cat := v.s.eng.cat
	p, g := cat.Privileges(role, catalog.ObjSchema, pgcatalog.SchemaACL(sc), sc.Owner)
	if p&catalog.PrivUsage == 0 && (cat.HasPrivsOfRole(role, catalog.ReadAllDataRoleOID) || cat.HasPrivsOfRole(role, catalog.WriteAllDataRoleOID)) {
		p |= catalog.PrivUsage
	}
	return p, g
}

// mayUseSchema reports whether the current user holds USAGE on sc: the
// effective search path leaves out schemas it may not use, as
// PostgreSQL's recomputeNamespacePath does, so an unqualified name never
// finds (nor reveals) a relation there.
func (s *Session) mayUseSchema(sc *catalog.Schema) bool {
	return s.superuser || s.schemaUsable(sc) // privilege_checks.go
}
