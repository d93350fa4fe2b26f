package catalog

import (
	"sort"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// CreateSchema creates a schema owned by the bootstrap role. With
// ifNotExists, an existing schema is returned with a NOTICE error.
func (c *Catalog) CreateSchema(name string, ifNotExists bool) (*Schema, error) {
	return c.CreateSchemaOwned(name, BootstrapRoleOID, ifNotExists)
}

// CreateSchemaOwned is CreateSchema with the schema's owner.
func (c *Catalog) CreateSchemaOwned(name string, owner uint32, ifNotExists bool) (*Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.schemas[name]; ok {
		if ifNotExists {
			return old, notice(sqlerr.DuplicateSchema, "schema \"%s\" already exists, skipping", name)
		}
		return nil, sqlerr.New(sqlerr.DuplicateSchema, "schema \"%s\" already exists", name)
	}
	if len(name) >= 3 && name[:3] == "pg_" {
		return nil, sqlerr.New("42939", "unacceptable schema name \"%s\"", name).
			WithDetail("The prefix \"pg_\" is reserved for system schemas.")
	}
	oid, err := c.st.NextID(oidCounter)
	if err != nil {
		return nil, err
	}
	s := &Schema{OID: uint32(oid), Name: name, Owner: owner}
	err = c.commit(
		func(tx *state.Txn) error { return putJSON(tx, []byte(prefixSchema+name), s) },
		func() { c.schemas[name] = s })
	if err != nil {
		return nil, err
	}
	return s, nil
}

// DropSchema drops a schema; with cascade also every relation in it (and
// their data), in one transaction.
func (c *Catalog) DropSchema(name string, ifExists, cascade bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.schemas[name]
	if !ok {
		if ifExists {
			return notice(sqlerr.InvalidSchemaName, "schema \"%s\" does not exist, skipping", name)
		}
		return sqlerr.New(sqlerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
	}
	if s.OID == PGCatalogOID || s.OID == InformationSchemaOID {
		return sqlerr.New("2BP01", "cannot drop schema %s because it is required by the database system", name)
	}
	var rels []*Relation
	for _, r := range c.byName[name] {
		rels = append(rels, r)
	}
	sort.Slice(rels, func(i, j int) bool { return rels[i].OID < rels[j].OID })
	if len(rels) > 0 && !cascade {
		return sqlerr.New("2BP01", "cannot drop schema %s because other objects depend on it", name).
			WithDetail(rels[0].Kind.noun() + " " + name + "." + rels[0].Name + " depends on schema " + name).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	return c.commit(func(tx *state.Txn) error {
		for _, r := range rels {
			if err := tx.Delete(relKey(r.OID)); err != nil {
				return err
			}
			if r.Kind.HasData() {
				if err := state.DropTable(tx, r.OID); err != nil {
					return err
				}
			}
		}
		return tx.Delete([]byte(prefixSchema + name))
	}, func() {
		for _, r := range rels {
			c.removeRel(r)
		}
		delete(c.byName, name)
		delete(c.schemas, name)
	})
}

// Schema returns the schema called name.
func (c *Catalog) Schema(name string) (*Schema, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	s, ok := c.schemas[name]
	return s, ok
}

// Schemas returns all schemas ordered by OID.
func (c *Catalog) Schemas() []*Schema {
	c.mu.RLock()
	out := make([]*Schema, 0, len(c.schemas))
	for _, s := range c.schemas {
		out = append(out, s)
	}
	c.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].OID < out[j].OID })
	return out
}
