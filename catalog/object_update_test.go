package catalog

import "testing"

// An ACL set through UpdateRelation/UpdateSchema lasts across a reopen
// of the store.
func TestUpdateACLPersists(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	c := openCatalog(t, st)
	rel, err := c.CreateRelation(table("t", "a"), false)
	if err != nil {
		t.Fatal(err)
	}
	acl := ACL{{Grantee: 0, Grantor: BootstrapRoleOID, Privs: PrivSelect}}
	if _, err := c.UpdateRelation(rel.OID, func(r *Relation) error {
		r.ACL = acl
		r.Columns[0].ACL = acl
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateSchema("public", func(s *Schema) error { s.ACL = acl; return nil }); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st = openStore(t, dir)
	defer st.Close()
	c = openCatalog(t, st)
	r, _ := c.RelationByOID(rel.OID)
	s, _ := c.Schema("public")
	if len(r.ACL) != 1 || r.ACL[0].Privs != PrivSelect || len(r.Columns[0].ACL) != 1 || len(s.ACL) != 1 {
		t.Fatalf("after reopen: rel %+v, schema %+v", r, s)
	}
}
