package catalog

import (
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
)

// UpdateFilesSource changes the files source oid (CREATE SOURCE ... WITH
// (connector = 'files')) with change, which gets a copy of its definition
// to modify, and stores it, with the relation's columns made again from
// it (the data columns, then the rescued-data column): schema evolution
// widens a named source this way. Its identity, its connector and its
// other settings stay. An error from change is returned as is, and
// nothing changes; the relation as it is now is returned.
func (c *Catalog) UpdateFilesSource(oid uint32, change func(*FilesSource) error) (*Relation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.rels[oid]
	if !ok || old.Kind != KindSource || old.Source == nil || old.Source.Files == nil {
		return nil, sqlerr.New(sqlerr.UndefinedObject, "files source with OID %d does not exist", oid)
	}
	r := old.clone()
	if err := change(r.Source.Files); err != nil {
		return nil, err
	}
	def := r.Source.Files
	r.Columns = r.Columns[:0:0]
	for _, col := range def.Columns {
		// A column of the old definition keeps its comment and settings.
		for _, o := range old.Columns {
			if o.Name == col.Name && o.Type.OID == col.Type.OID {
				col = o
				break
			}
		}
		r.Columns = append(r.Columns, col)
	}
	if def.Rescued != "" {
		r.Columns = append(r.Columns, Column{Name: def.Rescued, Type: types.JSONB})
	}
	err := c.commit(
		func(tx *state.Txn) error { return putJSON(tx, relKey(r.OID), r) },
		func() { c.addRel(r) })
	if err != nil {
		return nil, err
	}
	return r, nil
}
