package catalog

import (
	"sort"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// CreateRole creates a role; 42710 if the name is taken.
func (c *Catalog) CreateRole(name, verifier string, superuser, login bool) (*Role, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.roles[name]; ok {
		return nil, sqlerr.New(sqlerr.DuplicateObject, "role \"%s\" already exists", name)
	}
	if len(name) >= 3 && name[:3] == "pg_" {
		return nil, sqlerr.New("42939", "role name \"%s\" is reserved", name).
			WithDetail("Role names starting with \"pg_\" are reserved.")
	}
	oid, err := c.st.NextID(oidCounter)
	if err != nil {
		return nil, err
	}
	r := &Role{OID: uint32(oid), Name: name, Superuser: superuser, CanLogin: login, Verifier: verifier}
	err = c.commit(
		func(tx *state.Txn) error { return putJSON(tx, []byte(prefixRole+name), r) },
		func() { c.roles[name] = r })
	if err != nil {
		return nil, err
	}
	return r, nil
}

// RoleChange is an ALTER ROLE: nil fields and "" Rename stay as they are.
type RoleChange struct {
	Superuser *bool
	CanLogin  *bool
	Verifier  *string
	Rename    string
}

// AlterRole applies change to the role called name and returns the new
// version.
func (c *Catalog) AlterRole(name string, change RoleChange) (*Role, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.roles[name]
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	r := *old
	if change.Superuser != nil {
		r.Superuser = *change.Superuser
	}
	if change.CanLogin != nil {
		r.CanLogin = *change.CanLogin
	}
	if change.Verifier != nil {
		r.Verifier = *change.Verifier
	}
	if change.Rename != "" && change.Rename != name {
		if _, taken := c.roles[change.Rename]; taken {
			return nil, sqlerr.New(sqlerr.DuplicateObject, "role \"%s\" already exists", change.Rename)
		}
		if r.OID == BootstrapRoleOID {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "cannot rename role %s because it is required by the database system", name)
		}
		r.Name = change.Rename
	}
	err := c.commit(func(tx *state.Txn) error {
		if r.Name != name {
			if err := tx.Delete([]byte(prefixRole + name)); err != nil {
				return err
			}
		}
		return putJSON(tx, []byte(prefixRole+r.Name), &r)
	}, func() {
		delete(c.roles, name)
		c.roles[r.Name] = &r
	})
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// DropRole drops a role. The bootstrap superuser cannot be dropped.
func (c *Catalog) DropRole(name string, ifExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.roles[name]
	if !ok {
		if ifExists {
			return notice(sqlerr.UndefinedObject, "role \"%s\" does not exist, skipping", name)
		}
		return sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	if r.OID == BootstrapRoleOID {
		return sqlerr.New("55006", "cannot drop role %s because it is required by the database system", name)
	}
	return c.commit(
		func(tx *state.Txn) error { return tx.Delete([]byte(prefixRole + name)) },
		func() { delete(c.roles, name) })
}

// Role returns the role called name.
func (c *Catalog) Role(name string) (*Role, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.roles[name]
	return r, ok
}

// Roles returns all roles ordered by OID.
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
