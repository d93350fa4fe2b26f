package catalog

import (
	"sort"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

func (c *Catalog) addRel(r *Relation) {
	c.rels[r.OID] = r
	m := c.byName[r.Schema]
	if m == nil {
		m = map[string]*Relation{}
		c.byName[r.Schema] = m
	}
	m[r.Name] = r
}

func (c *Catalog) removeRel(r *Relation) {
	delete(c.rels, r.OID)
	delete(c.byName[r.Schema], r.Name)
}

// CreateRelation stores a copy of rel under a fresh OID and returns it.
// rel.Schema "" means public; Owner 0 means the bootstrap role; a zero
// Created is set to now. With ifNotExists, an existing relation of that name
// is returned with a NOTICE error (see IsNotice).
func (c *Catalog) CreateRelation(rel *Relation, ifNotExists bool) (*Relation, error) {
	r := rel.clone()
	if r.Schema == "" {
		r.Schema = "public"
	}
	if r.Owner == 0 {
		r.Owner = BootstrapRoleOID
	}
	if r.Created.IsZero() {
		r.Created = time.Now().UTC()
	}
	seen := make(map[string]bool, len(r.Columns))
	for _, col := range r.Columns {
		if seen[col.Name] {
			return nil, sqlerr.New(sqlerr.DuplicateColumn, "column \"%s\" specified more than once", col.Name)
		}
		seen[col.Name] = true
	}
	for _, pk := range r.PrimaryKey {
		if !seen[pk] {
			return nil, sqlerr.New(sqlerr.UndefinedColumn, "column \"%s\" named in key does not exist", pk)
		}
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.schemas[r.Schema]; !ok {
		return nil, sqlerr.New(sqlerr.InvalidSchemaName, "schema \"%s\" does not exist", r.Schema)
	}
	if old, ok := c.byName[r.Schema][r.Name]; ok {
		if ifNotExists {
			return old, notice(sqlerr.DuplicateTable, "relation \"%s\" already exists, skipping", r.Name)
		}
		return nil, sqlerr.New(sqlerr.DuplicateTable, "relation \"%s\" already exists", r.Name)
	}
	oid, err := c.st.NextID(oidCounter)
	if err != nil {
		return nil, err
	}
	r.OID = uint32(oid)
	err = c.commit(
		func(tx *state.Txn) error { return putJSON(tx, relKey(r.OID), r) },
		func() { c.addRel(r) })
	if err != nil {
		return nil, err
	}
	return r, nil
}

// DropRelation drops the relation called name of the given kind, found in
// schema or, if schema is "", along searchPath. Dropping a table also
// deletes its data, in the same transaction.
func (c *Catalog) DropRelation(searchPath []string, schema, name string, kind RelKind, ifExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.lookupLocked(searchPath, schema, name)
	if r == nil {
		if schema != "" {
			if _, ok := c.schemas[schema]; !ok && !ifExists {
				return sqlerr.New(sqlerr.InvalidSchemaName, "schema \"%s\" does not exist", schema)
			}
		}
		if ifExists {
			return notice(sqlerr.UndefinedTable, "%s \"%s\" does not exist, skipping", kind.noun(), name)
		}
		return sqlerr.New(sqlerr.UndefinedTable, "%s \"%s\" does not exist", kind.noun(), name)
	}
	if r.Kind != kind {
		return sqlerr.New(sqlerr.WrongObjectType, "\"%s\" is not a %s", name, kind.noun()).
			WithHint("Use " + r.Kind.dropCommand() + " to remove a " + r.Kind.noun() + ".")
	}
	return c.commit(func(tx *state.Txn) error {
		if err := tx.Delete(relKey(r.OID)); err != nil {
			return err
		}
		if r.Kind.HasData() {
			return state.DropTable(tx, r.OID)
		}
		return nil
	}, func() { c.removeRel(r) })
}

// LookupRelation finds name in schema or, if schema is "", in the first
// schema of searchPath that has it. Unknown: 42P01.
func (c *Catalog) LookupRelation(searchPath []string, schema, name string) (*Relation, error) {
	c.mu.RLock()
	r := c.lookupLocked(searchPath, schema, name)
	c.mu.RUnlock()
	if r != nil {
		return r, nil
	}
	if schema != "" {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "relation \"%s.%s\" does not exist", schema, name)
	}
	return nil, sqlerr.New(sqlerr.UndefinedTable, "relation \"%s\" does not exist", name)
}

func (c *Catalog) lookupLocked(searchPath []string, schema, name string) *Relation {
	if schema != "" {
		return c.byName[schema][name]
	}
	for _, s := range searchPath {
		if r, ok := c.byName[s][name]; ok {
			return r
		}
	}
	return nil
}

// RelationByOID returns the relation with that OID.
func (c *Catalog) RelationByOID(oid uint32) (*Relation, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.rels[oid]
	return r, ok
}

// Relations returns all relations ordered by OID.
func (c *Catalog) Relations() []*Relation {
	c.mu.RLock()
	out := make([]*Relation, 0, len(c.rels))
	for _, r := range c.rels {
		out = append(out, r)
	}
	c.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].OID < out[j].OID })
	return out
}
