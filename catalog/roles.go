package catalog

import (
	"sort"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// RoleTx is one change to roles and memberships, made as one catalog
// transaction: a statement such as CREATE ROLE x IN ROLE a ROLE b, or
// GRANT a, b TO c, d, either stores all of its effects or none.
//
// Contract: UpdateRoles holds the catalog's write lock while f runs; f
// reads and changes a working copy through the RoleTx only (calling the
// Catalog's own methods from f would deadlock), and must not block (on a
// client, say): every catalog reader waits for it. The changes are stored,
// and become visible, only if f returns nil and the store commit succeeds.
type RoleTx struct {
	c       *Catalog
	roles   map[string]*Role
	members map[memberPair]Membership
	writes  map[string][]byte // key → JSON value, nil to delete
	order   []string
}

// UpdateRoles runs f over a working copy of the roles and memberships and
// stores what it changed.
func (c *Catalog) UpdateRoles(f func(tx *RoleTx) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	tx := &RoleTx{c: c, roles: make(map[string]*Role, len(c.roles)),
		members: make(map[memberPair]Membership, len(c.members)), writes: map[string][]byte{}}
	for k, v := range c.roles {
		tx.roles[k] = v
	}
	for k, v := range c.members {
		tx.members[k] = v
	}
	if err := f(tx); err != nil {
		return err
	}
	if len(tx.order) == 0 {
		return nil
	}
	return c.commit(func(st *state.Txn) error {
		for _, k := range tx.order {
			v := tx.writes[k]
			var err error
			if v == nil {
				err = st.Delete([]byte(k))
			} else {
				err = st.Set([]byte(k), v)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}, func() {
		c.roles, c.members = tx.roles, tx.members
	})
}

func (tx *RoleTx) write(key []byte, obj any) error {
	k := string(key)
	var v []byte
	if obj != nil {
		var err error
		if v, err = encodeJSON(obj); err != nil {
			return err
		}
	}
	if _, seen := tx.writes[k]; !seen {
		tx.order = append(tx.order, k)
	}
	tx.writes[k] = v
	return nil
}

// Role returns the role called name.
func (tx *RoleTx) Role(name string) (*Role, bool) {
	r, ok := tx.roles[name]
	return r, ok
}

// RoleByOID returns the role with that OID.
func (tx *RoleTx) RoleByOID(oid uint32) (*Role, bool) {
	for _, r := range tx.roles {
		if r.OID == oid {
			return r, true
		}
	}
	return nil, false
}

// CreateRole adds r with a new OID: 42939 for a reserved name, 42710 if
// the name is taken.
func (tx *RoleTx) CreateRole(r Role) (*Role, error) {
	if len(r.Name) >= 3 && r.Name[:3] == "pg_" {
		return nil, sqlerr.New("42939", "role name \"%s\" is reserved", r.Name).
			WithDetail("Role names starting with \"pg_\" are reserved.")
	}
	if _, ok := tx.roles[r.Name]; ok {
		return nil, sqlerr.New(sqlerr.DuplicateObject, "role \"%s\" already exists", r.Name)
	}
	oid, err := tx.c.st.NextID(oidCounter)
	if err != nil {
		return nil, err
	}
	r.OID = uint32(oid)
	if err := tx.write([]byte(prefixRole+r.Name), &r); err != nil {
		return nil, err
	}
	tx.roles[r.Name] = &r
	return &r, nil
}

// PutRole replaces the role called name by r (same OID; r.Name may be a
// new name, which must be free).
func (tx *RoleTx) PutRole(name string, r Role) error {
	old, ok := tx.roles[name]
	if !ok {
		return sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	r.OID = old.OID
	if r.Name != name {
		if _, taken := tx.roles[r.Name]; taken {
			return sqlerr.New(sqlerr.DuplicateObject, "role \"%s\" already exists", r.Name)
		}
		if err := tx.write([]byte(prefixRole+name), nil); err != nil {
			return err
		}
		delete(tx.roles, name)
	}
	if err := tx.write([]byte(prefixRole+r.Name), &r); err != nil {
		return err
	}
	tx.roles[r.Name] = &r
	return nil
}

// DropRole removes the role called name and every membership in it or of
// it (PostgreSQL 15 leaves memberships it granted in place).
func (tx *RoleTx) DropRole(name string) error {
	r, ok := tx.roles[name]
	if !ok {
		return sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	if r.OID == BootstrapRoleOID || r.Predefined() {
		return sqlerr.New("2BP01", "cannot drop role %s because it is required by the database system", name)
	}
	for p := range tx.members {
		if p.role == r.OID || p.member == r.OID {
			if err := tx.DeleteMembership(p.role, p.member); err != nil {
				return err
			}
		}
	}
	if err := tx.write([]byte(prefixRole+name), nil); err != nil {
		return err
	}
	delete(tx.roles, name)
	return nil
}

// Membership returns the membership of member in role, if any.
func (tx *RoleTx) Membership(role, member uint32) (Membership, bool) {
	m, ok := tx.members[memberPair{role, member}]
	return m, ok
}

// SetMembership adds or replaces a membership.
func (tx *RoleTx) SetMembership(m Membership) error {
	if err := tx.write(memberKey(m.Role, m.Member), &m); err != nil {
		return err
	}
	tx.members[memberPair{m.Role, m.Member}] = m
	return nil
}

// DeleteMembership removes the membership of member in role.
func (tx *RoleTx) DeleteMembership(role, member uint32) error {
	if err := tx.write(memberKey(role, member), nil); err != nil {
		return err
	}
	delete(tx.members, memberPair{role, member})
	return nil
}

// IsMemberOf is Catalog.IsMemberOf over the working copy.
func (tx *RoleTx) IsMemberOf(member, role uint32) bool {
	return isMemberOf(tx.members, member, role)
}

// IsAdminOf is Catalog.IsAdminOf over the working copy.
func (tx *RoleTx) IsAdminOf(member, role uint32) bool {
	return isAdminOf(tx.members, member, role)
}

// CreateRole creates a role; 42710 if the name is taken.
func (c *Catalog) CreateRole(name, verifier string, superuser, login bool) (*Role, error) {
	var r *Role
	err := c.UpdateRoles(func(tx *RoleTx) error {
		var err error
		r, err = tx.CreateRole(Role{Name: name, Superuser: superuser, CanLogin: login, Verifier: verifier})
		return err
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// RoleChange is an ALTER ROLE: nil fields and "" Rename stay as they are.
type RoleChange struct {
	Superuser  *bool
	CanLogin   *bool
	CreateRole *bool
	CreateDB   *bool
	NoInherit  *bool
	Verifier   *string
	Rename     string
	BypassRLS  *bool
}

// AlterRole applies change to the role called name and returns the new
// version.
func (c *Catalog) AlterRole(name string, change RoleChange) (*Role, error) {
	var out *Role
	err := c.UpdateRoles(func(tx *RoleTx) error {
		old, ok := tx.Role(name)
		if !ok {
			return sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
		}
		if old.Predefined() {
			return sqlerr.New("42939", "role name \"%s\" is reserved", name).WithDetail("Cannot alter reserved roles.")
		}
		r := *old
		set := func(dst *bool, v *bool) {
			if v != nil {
				*dst = *v
			}
		}
		set(&r.Superuser, change.Superuser)
		set(&r.CanLogin, change.CanLogin)
		set(&r.CreateRole, change.CreateRole)
		set(&r.CreateDB, change.CreateDB)
		set(&r.NoInherit, change.NoInherit)
		set(&r.BypassRLS, change.BypassRLS)
		if change.Verifier != nil {
			r.Verifier = *change.Verifier
		}
		if change.Rename != "" && change.Rename != name {
			if _, taken := tx.Role(change.Rename); taken {
				return sqlerr.New(sqlerr.DuplicateObject, "role \"%s\" already exists", change.Rename)
			}
			if r.OID == BootstrapRoleOID {
				return sqlerr.New(sqlerr.FeatureNotSupported, "cannot rename role %s because it is required by the database system", name)
			}
			r.Name = change.Rename
		}
		out = &r
		return tx.PutRole(name, r)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DropRole drops a role. The bootstrap superuser and the predefined roles
// cannot be dropped.
func (c *Catalog) DropRole(name string, ifExists bool) error {
	return c.UpdateRoles(func(tx *RoleTx) error {
		if _, ok := tx.Role(name); !ok && ifExists {
			return notice(sqlerr.UndefinedObject, "role \"%s\" does not exist, skipping", name)
		}
		return tx.DropRole(name)
	})
}

// Role returns the role called name.
func (c *Catalog) Role(name string) (*Role, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.roles[name]
	return r, ok
}

// RoleByOID returns the role with that OID.
func (c *Catalog) RoleByOID(oid uint32) (*Role, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, r := range c.roles {
		if r.OID == oid {
			return r, true
		}
	}
	return nil, false
}

// Roles returns all roles, the predefined ones included, ordered by OID.
func (c *Catalog) Roles() []*Role {
	c.mu.RLock()
	out := make([]*Role, 0, len(c.roles))
	for _, r := range c.roles {
		out = append(out, r)
	}
	c.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].OID < out[j].OID })
	return out
}
