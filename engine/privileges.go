package engine

import (
	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Privilege checks of the current user (SET ROLE's), as PostgreSQL makes
// them when a statement is bound: 42501 with PostgreSQL's messages. A
// superuser passes every check.

// currentRoleOID is the current user's OID (0 if the role was dropped
// while the session used it: it then holds only PUBLIC's privileges).
func (s *Session) currentRoleOID() uint32 {
	if r, ok := s.eng.cat.Role(s.user); ok {
		return r.OID
	}
	return 0
}

// relationNoun is how a permission error names a relation of kind k.
func relationNoun(k catalog.RelKind) string { return k.Noun() }

// requireRelationPrivilege checks that the current user holds want on
// rel, through the relation's ACL or, failing that, for each column of
// cols through the column's ACL (PostgreSQL's column privileges: SELECT
// (a) ON t lets a role read a only). cols nil with a column-level want
// means "any column" (SELECT count(*) needs SELECT on some column).
func (s *Session) requireRelationPrivilege(rel *catalog.Relation, want catalog.Privileges, cols []string) error {
	if s.superuser || s.eng.relationAllowed(s.currentRoleOID(), rel, want, cols) { // privilege_checks.go
		return nil
	}
	return relationDenied(rel)
}

// requireOwner checks that the current user has the privileges of rel's
// owner (ALTER, DROP, GRANT as owner): 42501 "must be owner of table t".
func (s *Session) requireOwner(rel *catalog.Relation) error {
	if s.superuser || s.eng.cat.HasPrivsOfRole(s.currentRoleOID(), rel.Owner) {
		return nil
	}
	return sqlerr.New(sqlerr.InsufficientPrivilege, "must be owner of %s %s", relationNoun(rel.Kind), rel.Name)
}

// requireSchemaPrivilege checks USAGE or CREATE on schema sc: 42501
// "permission denied for schema s".
func (s *Session) requireSchemaPrivilege(sc *catalog.Schema, want catalog.Privileges) error {
	if s.superuser {
		return nil
	}
	have, _ := s.eng.cat.Privileges(s.currentRoleOID(), catalog.ObjSchema, sc.EffectiveACL(), sc.Owner)
	if want&^have == 0 {
		return nil
	}
	return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied for schema %s", sc.Name)
}
