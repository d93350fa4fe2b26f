package catalog

import (
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// Updates of an object's access control (ACL, owner), row security and
// column masks. Each change function gets a copy to modify and returns
// an error to change nothing; the object's identity (OID, name, schema,
// kind) stays whatever change does. The stored object is returned.

// UpdateRelation changes relation oid with change and stores it.
func (c *Catalog) UpdateRelation(oid uint32, change func(*Relation) error) (*Relation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.rels[oid]
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "relation with OID %d does not exist", oid)
	}
	r := old.clone()
	if err := change(r); err != nil {
		return nil, err
	}
	r.OID, r.Schema, r.Name, r.Kind, r.Created = old.OID, old.Schema, old.Name, old.Kind, old.Created
	err := c.commit(
		func(tx *state.Txn) error { return putJSON(tx, relKey(r.OID), r) },
		func() { c.addRel(r) })
	if err != nil {
		return nil, err
	}
	return r, nil
}

// UpdateSchema changes schema name with change and stores it.
func (c *Catalog) UpdateSchema(name string, change func(*Schema) error) (*Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.schemas[name]
	if !ok {
		return nil, sqlerr.New(sqlerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
	}
	s := *old
	s.ACL = old.ACL.Clone()
	if err := change(&s); err != nil {
		return nil, err
	}
	s.OID, s.Name = old.OID, old.Name
	err := c.commit(
		func(tx *state.Txn) error { return putJSON(tx, []byte(prefixSchema+name), &s) },
		func() { c.schemas[name] = &s })
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// UpdateDatabase changes database name with change and stores it.
func (c *Catalog) UpdateDatabase(name string, change func(*Database) error) (*Database, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.databases[name]
	if !ok {
		return nil, sqlerr.New(sqlerr.InvalidCatalogName, "database \"%s\" does not exist", name)
	}
	d := *old
	d.ACL = old.ACL.Clone()
	if err := change(&d); err != nil {
		return nil, err
	}
	d.OID, d.Name = old.OID, old.Name
	err := c.commit(
		func(tx *state.Txn) error { return putJSON(tx, []byte(prefixDB+name), &d) },
		func() { c.databases[name] = &d })
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// UpdateSecret changes secret name's access control (ACL, owner) with
// change and stores it; its sealed value stays.
func (c *Catalog) UpdateSecret(name string, change func(*Secret) error) (*Secret, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.secrets[name]
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedObject, "secret \"%s\" does not exist", name)
	}
	s := *old
	s.ACL = old.ACL.Clone()
	if err := change(&s); err != nil {
		return nil, err
	}
	s.Name, s.Nonce, s.Sealed, s.Created = old.Name, old.Nonce, old.Sealed, old.Created
	err := c.commit(
		func(tx *state.Txn) error { return putJSON(tx, secretKey(name), &s) },
		func() { c.secrets[name] = &s })
	if err != nil {
		return nil, err
	}
	return &s, nil
}
