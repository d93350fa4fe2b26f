package engine

import "github.com/weir-sql/weir/wire"

// pg_hba rules name groups of users as +role (and databases as samerole):
// the wire layer asks the engine about memberships through
// wire.RoleMembers.

var _ wire.RoleMembers = (*Engine)(nil)

// IsRoleMember implements wire.RoleMembers: user is role or a member of it,
// directly or through other roles (superuser status does not count, as in
// PostgreSQL's pg_hba matching).
func (e *Engine) IsRoleMember(user, role string) bool {
	if user == role {
		return true
	}
	u, ok := e.cat.Role(user)
	if !ok {
		return false
	}
	r, ok := e.cat.Role(role)
	if !ok {
		return false
	}
	return e.cat.IsMemberOf(u.OID, r.OID)
}
