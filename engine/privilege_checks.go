package engine

import (
	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// The checks a bound statement passes before it runs, as PostgreSQL's
// ExecCheckPermissions makes them at executor start: every relation the
// binder recorded (planner.Access) needs SELECT on the columns the query
// references, or INSERT on the columns it writes, held by the current
// user, or, for a relation read inside a view's definition, by the
// view's owner. Like PostgreSQL they run at each execution, so that a
// prepared statement sees REVOKE and SET ROLE made since it was prepared.

// checkAccesses checks accs for the session's current user.
func (s *Session) checkAccesses(accs []planner.Access) error {
	if len(accs) == 0 {
		return nil
	}
	if s.superuser && !readsViews(accs) {
		return nil
	}
	role := s.currentRoleOID()
	if s.superuser {
		role = catalog.BootstrapRoleOID
	}
	return s.eng.checkAccessesAs(role, accs)
}

func readsViews(accs []planner.Access) bool {
	for _, a := range accs {
		if a.ViaView != 0 {
			return true
		}
	}
	return false
}

// checkAccessesAs checks accs as role: a streaming table's or a sink's
// owner, or a session's current user. Relations no longer in the catalog
// (dropped since binding) and the engine's inline relations are skipped:
// the statement fails on them elsewhere, or they are not the user's.
func (e *Engine) checkAccessesAs(role uint32, accs []planner.Access) error {
	for _, a := range accs {
		rel, ok := e.cat.RelationByOID(a.OID)
		if !ok {
			continue
		}
		as := role
		if a.ViaView != 0 {
			view, ok := e.cat.RelationByOID(a.ViaView)
			if !ok {
				continue
			}
			as = view.Owner
		}
		want := catalog.PrivSelect
		if a.Privs&planner.AccessInsert != 0 {
			want = catalog.PrivInsert
		}
		if !e.relationAllowed(as, rel, want, a.Columns) {
			return relationDenied(rel)
		}
	}
	return nil
}

// relationDenied is PostgreSQL's aclcheck_error for a relation: 42501
// "permission denied for table t" (view v; weir's streaming table and
// source too), without a statement position, as PostgreSQL sends it.
func relationDenied(rel *catalog.Relation) error {
	return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied for %s %s", relationNoun(rel.Kind), rel.Name)
}

// relationAllowed is whether role holds want on rel through the
// relation's ACL or, failing that, on each column of cols through the
// columns' ACLs; with no columns, on some column (SELECT count(*) FROM t
// is allowed with SELECT (a) ON t), as pg_attribute_aclcheck_all(ANY).
func (e *Engine) relationAllowed(role uint32, rel *catalog.Relation, want catalog.Privileges, cols []string) bool {
	missing := want &^ e.cat.RelationPrivileges(role, rel)
	if missing == 0 {
		return true
	}
	if missing&^catalog.AllPrivileges(catalog.ObjColumn) != 0 {
		return false
	}
	if len(cols) == 0 {
		for i := range rel.Columns {
			if e.cat.ColumnPrivileges(role, rel, i)&missing == missing {
				return true
			}
		}
		return false
	}
	for _, c := range cols {
		if e.cat.ColumnPrivileges(role, rel, rel.Column(c))&missing != missing {
			return false
		}
	}
	return true
}

// schemaUsable is whether the current user may look names up in sc:
// USAGE on it, or membership in pg_read_all_data or pg_write_all_data,
// which PostgreSQL gives USAGE on every schema.
func (s *Session) schemaUsable(sc *catalog.Schema) bool {
	if s.requireSchemaPrivilege(sc, catalog.PrivUsage) == nil {
		return true
	}
	role := s.currentRoleOID()
	return s.eng.cat.HasPrivsOfRole(role, catalog.ReadAllDataRoleOID) || s.eng.cat.HasPrivsOfRole(role, catalog.WriteAllDataRoleOID)
}

// checkSchemaUsage is PostgreSQL's LookupExplicitNamespace: a name
// qualified by a schema the current user has no USAGE on is 42501
// "permission denied for schema s" whether or not the object exists, so
// that the error tells nothing about what the schema holds.
func (s *Session) checkSchemaUsage(schema string) error {
	if schema == "" || s.superuser {
		return nil
	}
	sc, ok := s.eng.cat.Schema(schema)
	if !ok {
		return nil
	}
	if !s.schemaUsable(sc) {
		return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied for schema %s", sc.Name)
	}
	return nil
}

// withoutPosition is err without a statement position, for errors of a
// statement weir wrote itself (COPY t TO binds SELECT ... FROM t): a
// position there points into text the client never sent, and
// PostgreSQL's COPY gives none.
func withoutPosition(err error) error {
	if se, ok := err.(*sqlerr.Error); ok && se.Position != 0 {
		cp := *se
		cp.Position = 0
		return &cp
	}
	return err
}
