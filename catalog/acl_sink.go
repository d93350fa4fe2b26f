package catalog

import "github.com/weir-sql/weir/state"

// ReassignSinks gives every sink owned by from to to (REASSIGN OWNED):
// a sink has an owner but no ACL.
func (c *Catalog) ReassignSinks(from, to uint32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, old := range c.sinks {
		if old.Owner != from {
			continue
		}
		s := old.clone()
		s.Owner = to
		if err := c.commit(func(tx *state.Txn) error { return putJSON(tx, sinkKey(s.OID), s) },
			func() { c.sinks[s.OID] = s }); err != nil {
			return err
		}
	}
	return nil
}
