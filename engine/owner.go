package engine

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Ownership of new objects, as in PostgreSQL: an object belongs to the
// role that created it, the current user (SET ROLE's); a relation that
// replaces one of the same name (CREATE OR REPLACE VIEW) keeps the old
// owner.

// ownerOfNew is the owner a relation about to be created gets.
func (s *Session) ownerOfNew(rel *catalog.Relation) uint32 {
	if rel.Owner != 0 {
		return rel.Owner
	}
	if oid := s.currentRoleOID(); oid != 0 {
		return oid
	}
	return catalog.BootstrapRoleOID
}

// schemaOwner is the owner of a new schema, which the current user may
// create only with CREATE on the database: AUTHORIZATION's role, which
// the current user must be a member of (PostgreSQL 15's
// check_is_member_of_role: 42501 "must be member of role \"x\""), or the
// current user.
func (s *Session) schemaOwner(auth *pg_query.RoleSpec) (uint32, error) {
	if auth == nil {
		return s.ownerOfNew(&catalog.Relation{}), s.requireDatabaseCreate()
	}
	name := s.roleSpecName(auth)
	r, ok := s.eng.cat.Role(name)
	if !ok {
		return 0, sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	// CreateSchemaCommand: CREATE on the database, then membership.
	if err := s.requireDatabaseCreate(); err != nil { // alter_owner.go
		return 0, err
	}
	if err := s.requireSetRole(r); err != nil { // alter_owner.go
		return 0, err
	}
	return r.OID, nil
}

// requireCreateIn checks that the current user may create objects in
// schema (CREATE on it), as PostgreSQL's
// RangeVarGetAndCheckCreationNamespace does before it looks for a
// relation of the same name: 42501 "permission denied for schema s". A
// schema that does not exist is the creating statement's to report.
func (s *Session) requireCreateIn(schema string) error {
	if s.superuser {
		return nil
	}
	sc, ok := s.eng.cat.Schema(schema)
	if !ok {
		return nil
	}
	return s.requireSchemaPrivilege(sc, catalog.PrivCreate)
}

// requireDropOwner is RangeVarCallbackForDropRelation's check: the owner
// of the relation or of its schema (or a role with their privileges, or
// a superuser) may drop it; anyone else gets 42501 "must be owner of
// table t".
func (s *Session) requireDropOwner(rel *catalog.Relation) error {
	if s.superuser {
		return nil
	}
	if sc, ok := s.eng.cat.Schema(rel.Schema); ok && s.eng.cat.HasPrivsOfRole(s.currentRoleOID(), sc.Owner) {
		return nil
	}
	return s.requireOwner(rel)
}

// requireSchemaOwner is DROP SCHEMA's check: 42501 "must be owner of
// schema s" for a role without the owner's privileges. A schema that does
// not exist is DROP's to report (or skip, with IF EXISTS).
func (s *Session) requireSchemaOwner(name string) error {
	sc, ok := s.eng.cat.Schema(name)
	if !ok || s.superuser || s.eng.cat.HasPrivsOfRole(s.currentRoleOID(), sc.Owner) {
		return nil
	}
	return sqlerr.New(sqlerr.InsufficientPrivilege, "must be owner of schema %s", name)
}

// requireSinkOwner is DROP SINK's check, as for a relation: the owner of
// the sink or of its schema.
func (s *Session) requireSinkOwner(def *catalog.Sink) error {
	if s.superuser {
		return nil
	}
	me := s.currentRoleOID()
	if s.eng.cat.HasPrivsOfRole(me, def.Owner) {
		return nil
	}
	if sc, ok := s.eng.cat.Schema(def.Schema); ok && s.eng.cat.HasPrivsOfRole(me, sc.Owner) {
		return nil
	}
	return sqlerr.New(sqlerr.InsufficientPrivilege, "must be owner of sink %s", def.Name)
}

// requireNamedSchemaUsage is LookupExplicitNamespace's check for a name
// qualified by schema ("" for none): USAGE on it, or 42501 "permission
// denied for schema s" before anything in it is looked up, so that a
// role without USAGE learns nothing of what the schema holds (DROP ...
// IF EXISTS included, as in PostgreSQL). A schema that does not exist is
// the lookup's to report.
func (s *Session) requireNamedSchemaUsage(schema string) error {
	if schema == "" || s.superuser {
		return nil
	}
	sc, ok := s.eng.cat.Schema(schema)
	if !ok {
		return nil
	}
	return s.requireSchemaPrivilege(sc, catalog.PrivUsage)
}

// checkDropRelations makes DROP TABLE|VIEW's privilege checks for every
// relation named before any is dropped, as PostgreSQL's RemoveRelations
// looks all of them up (USAGE on a named schema, then ownership) before
// deleting: a DROP naming one table of another role drops none.
func (s *Session) checkDropRelations(d *pg_query.DropStmt, kind catalog.RelKind) error {
	for _, o := range d.Objects {
		names := stringNames(o.GetList().GetItems())
		schema, name := "", names[len(names)-1]
		if len(names) > 1 {
			schema = names[len(names)-2]
		}
		if err := s.requireNamedSchemaUsage(schema); err != nil {
			return err
		}
		if rel, err := s.eng.cat.LookupRelation(s.searchPath(), schema, name); err == nil && rel.Kind == kind {
			if err := s.requireDropOwner(rel); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkDropSchemas is DROP SCHEMA's ownership check of every schema
// named, before any is dropped.
func (s *Session) checkDropSchemas(d *pg_query.DropStmt) error {
	for _, o := range d.Objects {
		if err := s.requireSchemaOwner(o.GetString_().GetSval()); err != nil {
			return err
		}
	}
	return nil
}
