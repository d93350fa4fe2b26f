package catalog

// Privilege checks over the catalog: whether a role holds privileges on
// an object, as PostgreSQL's pg_class_aclmask and friends answer it.

// HasPrivsOfRole is has_privs_of_role: member is role, or a superuser,
// or reaches role through memberships along which every member
// inherits (Role.NoInherit unset).
func (c *Catalog) HasPrivsOfRole(member, role uint32) bool {
	if member == role {
		return true
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if r := c.roleByOIDLocked(member); r != nil && r.Superuser {
		return true
	}
	return hasPrivsOf(c.members, c.noInherit(), member, role)
}

// noInherit lists the roles marked NOINHERIT (c.mu held).
func (c *Catalog) noInherit() map[uint32]bool {
	var out map[uint32]bool
	for _, r := range c.roles {
		if r.NoInherit {
			if out == nil {
				out = map[uint32]bool{}
			}
			out[r.OID] = true
		}
	}
	return out
}

func (c *Catalog) roleByOIDLocked(oid uint32) *Role {
	for _, r := range c.roles {
		if r.OID == oid {
			return r
		}
	}
	return nil
}

// hasPrivsOf walks memberships from member, passing only through roles
// that inherit.
func hasPrivsOf(members map[memberPair]Membership, noInherit map[uint32]bool, member, role uint32) bool {
	if member == role {
		return true
	}
	byMember := map[uint32][]uint32{}
	for p := range members {
		byMember[p.member] = append(byMember[p.member], p.role)
	}
	seen := map[uint32]bool{member: true}
	queue := []uint32{member}
	for len(queue) > 0 {
		m := queue[0]
		queue = queue[1:]
		if noInherit[m] {
			continue
		}
		for _, r := range byMember[m] {
			if r == role {
				return true
			}
			if !seen[r] {
				seen[r] = true
				queue = append(queue, r)
			}
		}
	}
	return false
}

// Privileges is what role holds on an object of kind k with that ACL
// and owner, and the grant-option subset: everything for a superuser;
// every grant option for the owner and those with its privileges.
func (c *Catalog) Privileges(role uint32, k ObjectKind, acl ACL, owner uint32) (Privileges, Privileges) {
	c.mu.RLock()
	r := c.roleByOIDLocked(role)
	c.mu.RUnlock()
	if r != nil && r.Superuser {
		all := AllPrivileges(k)
		return all, all
	}
	p, g := acl.Effective(k, owner).Mask(func(grantee uint32) bool { return c.HasPrivsOfRole(role, grantee) })
	if c.HasPrivsOfRole(role, owner) {
		g = AllPrivileges(k) // the owner's grant options are implicit
	}
	return p, g
}

// RelationPrivileges is Privileges for a relation, adding what the
// predefined roles pg_read_all_data (SELECT) and pg_write_all_data
// (INSERT, UPDATE, DELETE) give their members.
func (c *Catalog) RelationPrivileges(role uint32, rel *Relation) Privileges {
	p, _ := c.Privileges(role, ObjRelation, rel.ACL, rel.Owner)
	if p&PrivSelect == 0 && c.HasPrivsOfRole(role, ReadAllDataRoleOID) {
		p |= PrivSelect
	}
	if c.HasPrivsOfRole(role, WriteAllDataRoleOID) {
		p |= PrivInsert | PrivUpdate | PrivDelete
	}
	return p
}

// ColumnPrivileges is what role holds on column col of rel through the
// column's own ACL (attacl), without the relation's.
func (c *Catalog) ColumnPrivileges(role uint32, rel *Relation, col int) Privileges {
	if col < 0 || col >= len(rel.Columns) {
		return 0
	}
	p, _ := c.Privileges(role, ObjColumn, rel.Columns[col].ACL, rel.Owner)
	return p
}
