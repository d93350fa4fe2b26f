package engine

// Membership questions of the session's identities, as PostgreSQL's
// is_member_of_role and has_privs_of_role answer them. Every weir role
// inherits (rolinherit is true), so having a role's privileges and being
// its member are the same; a superuser has both for every role.

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
	return ok && s.eng.cat.IsMemberOf(me.OID, role)
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
