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

// schemaOwner is the owner of a new schema: AUTHORIZATION's role, which
// the current user must be able to become (PostgreSQL's check_can_set_role:
// 42501 "must be able to SET ROLE \"x\""), or the current user.
func (s *Session) schemaOwner(auth *pg_query.RoleSpec) (uint32, error) {
	if auth == nil {
		return s.ownerOfNew(&catalog.Relation{}), nil
	}
	name := s.roleSpecName(auth)
	r, ok := s.eng.cat.Role(name)
	if !ok {
		return 0, sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	if !s.superuser && !s.eng.cat.IsMemberOf(s.currentRoleOID(), r.OID) {
		return 0, sqlerr.New(sqlerr.InsufficientPrivilege, "must be able to SET ROLE \"%s\"", name)
	}
	return r.OID, nil
}
