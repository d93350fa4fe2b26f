package pgcatalog

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
)

// information_schema's role views, as PostgreSQL 15 defines them over
// pg_auth_members: enabled_roles (the roles whose privileges the current
// user has), applicable_roles (the memberships of those roles, and the
// database owner's implicit pg_database_owner) and
// administrable_role_authorizations (those held WITH ADMIN OPTION).

// usableRole reports pg_has_role(role, 'USAGE') for the current user:
// has_privs_of_role (a superuser has every role's privileges; others
// those of the roles they reach through memberships that inherit).
func (s *Snapshot) usableRole(role uint32) bool {
	if s.Cat == nil {
		return true
	}
	me, ok := s.Cat.Role(s.User)
	if !ok {
		return false
	}
	return s.Cat.HasPrivsOfRole(me.OID, role)
}

func isEnabledRoles() *Table {
	cols := []catalog.Column{col("role_name", sqlIdentifier)}
	return &Table{Name: "enabled_roles", Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, r := range s.roles() {
				if s.usableRole(r.OID) {
					rb.add(r.Name)
				}
			}
			return rb.finish()
		}}
}

// applicableRoles are applicable_roles' rows; onlyAdmin keeps those held
// WITH ADMIN OPTION.
func applicableRoles(name string, onlyAdmin bool) *Table {
	cols := []catalog.Column{
		col("grantee", sqlIdentifier),
		col("role_name", sqlIdentifier),
		col("is_grantable", yesOrNo),
	}
	return &Table{Name: name, Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			ms := s.memberships()
			// The bootstrap superuser owns the database, so it is the
			// implicit member of pg_database_owner.
			ms = append(ms, catalog.Membership{Role: catalog.DatabaseOwnerRoleOID, Member: catalog.BootstrapRoleOID})
			for _, m := range ms {
				if (onlyAdmin && !m.Admin) || !s.usableRole(m.Member) {
					continue
				}
				grantee, role := s.roleName(m.Member), s.roleName(m.Role)
				if grantee == "" || role == "" {
					continue
				}
				rb.add(grantee, role, yesNo(m.Admin))
			}
			return rb.finish()
		}}
}

func isApplicableRoles() *Table { return applicableRoles("applicable_roles", false) }

func isAdministrableRoleAuthorizations() *Table {
	return applicableRoles("administrable_role_authorizations", true)
}
