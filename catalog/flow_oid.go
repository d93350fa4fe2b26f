package catalog

// NewFlowOID draws an OID for a new flow's checkpoint from the counter
// relations draw theirs from, so that it never equals a relation's (the
// store keys checkpoints, like tables' chunks, by these OIDs).
func (c *Catalog) NewFlowOID() (uint32, error) {
	oid, err := c.st.NextID(oidCounter)
	if err != nil {
		return 0, err
	}
	return uint32(oid), nil
}
