package engine

import "github.com/weir-sql/weir/sql/expr"

// Membership questions of the session's identities, as PostgreSQL's
// is_member_of_role and has_privs_of_role answer them: having a role's
// privileges follows only memberships that inherit (catalog's
// HasPrivsOfRole: a NOINHERIT member must SET ROLE first), being its
// member any; a superuser has both for every role.

// hasPrivsOf reports whether the current user has the privileges of the
// role called name; false if there is no such role.
func (s *Session) hasPrivsOf(name string) bool {
	if s.superuser || name == s.user {
		return true
	}
	r, ok := s.eng.cat.Role(name)
	return ok && s.hasPrivsOfOID(r.OID)
}

// hasPrivsOfOID is hasPrivsOf for a role OID.
func (s *Session) hasPrivsOfOID(role uint32) bool {
	if s.superuser {
		return true
	}
	me, ok := s.eng.cat.Role(s.user)
	return ok && s.eng.cat.HasPrivsOfRole(me.OID, role)
}

// isMember reports whether the role called member is a member of the
// role called role (superuser status aside).
func (s *Session) isMember(member, role string) bool {
	if member == role {
		return true
	}
	m, ok1 := s.eng.cat.Role(member)
	r, ok2 := s.eng.cat.Role(role)
	return ok1 && ok2 && s.eng.cat.IsMemberOf(m.OID, r.OID)
}

// The catalog view answers pg_has_role's questions (expr.RoleMembership).
var _ expr.RoleMembership = (*catalogView)(nil)

func (v *catalogView) RoleOID(name string) (uint32, bool) {
	r, ok := v.s.eng.cat.Role(name)
	if !ok {
		return 0, false
	}
	return r.OID, true
}

func (v *catalogView) RoleIsSuperuser(oid uint32) bool {
	r, ok := v.s.eng.cat.RoleByOID(oid)
	return ok && r.Superuser
}

func (v *catalogView) IsMemberOf(member, role uint32) bool {
	return v.s.eng.cat.IsMemberOf(member, role)
}

func (v *catalogView) IsAdminOf(member, role uint32) bool {
	return v.s.eng.cat.IsAdminOf(member, role)
}

func (v *catalogView) HasPrivsOfRole(member, role uint32) bool {
	return v.s.eng.cat.HasPrivsOfRole(member, role)
}
