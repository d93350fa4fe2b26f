package catalog

import (
	"errors"
	"strings"
	"testing"
)

// TestRoleTxAtomic: a RoleTx whose function fails stores nothing, not even
// the changes made before the failure; one that succeeds stores all.
func TestRoleTxAtomic(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	c := openCatalog(t, st)
	boom := errors.New("boom")
	err := c.UpdateRoles(func(tx *RoleTx) error {
		a, err := tx.CreateRole(Role{Name: "a"})
		if err != nil {
			return err
		}
		if err := tx.SetMembership(Membership{Role: MonitorRoleOID, Member: a.OID, Grantor: BootstrapRoleOID}); err != nil {
			return err
		}
		return boom
	})
	if err != boom {
		t.Fatal(err)
	}
	if _, ok := c.Role("a"); ok || len(c.Memberships()) != len(predefinedMemberships) {
		t.Fatalf("a failed RoleTx left changes: %v", c.Memberships())
	}

	var a, b *Role
	err = c.UpdateRoles(func(tx *RoleTx) error {
		var err error
		if a, err = tx.CreateRole(Role{Name: "a"}); err != nil {
			return err
		}
		if b, err = tx.CreateRole(Role{Name: "b"}); err != nil {
			return err
		}
		return tx.SetMembership(Membership{Role: a.OID, Member: b.OID, Grantor: BootstrapRoleOID, Admin: true})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !c.IsMemberOf(b.OID, a.OID) || c.IsMemberOf(a.OID, b.OID) || !c.IsAdminOf(b.OID, a.OID) || c.IsAdminOf(a.OID, a.OID) {
		t.Fatal("membership of b in a not as granted")
	}
	// Through pg_monitor, a member of pg_monitor is in pg_read_all_stats.
	if err := c.UpdateRoles(func(tx *RoleTx) error {
		return tx.SetMembership(Membership{Role: MonitorRoleOID, Member: a.OID, Grantor: BootstrapRoleOID})
	}); err != nil {
		t.Fatal(err)
	}
	if !c.IsMemberOf(b.OID, ReadAllStatsRoleOID) || c.IsAdminOf(b.OID, MonitorRoleOID) {
		t.Fatal("transitive membership")
	}

	// Dropping a removes its memberships both ways.
	if err := c.DropRole("a", false); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st = openStore(t, dir)
	defer st.Close()
	c = openCatalog(t, st)
	if got := c.Memberships(); len(got) != len(predefinedMemberships) {
		t.Fatalf("memberships after dropping a: %v", got)
	}
	wantErr(t, c.DropRole("pg_monitor", false), "2BP01", "cannot drop role pg_monitor because it is required by the database system")
	_, err = c.AlterRole("pg_signal_backend", RoleChange{Rename: "x"})
	wantErr(t, err, "42939", `role name "pg_signal_backend" is reserved`)
}

// TestDependents lists what a role owns and holds in PostgreSQL's
// words, by OID, privileges before ownership of the same object.
func TestDependents(t *testing.T) {
	st := openStore(t, t.TempDir())
	defer st.Close()
	c := openCatalog(t, st)
	o, err := c.CreateRole("o", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	tb := table("t1", "a")
	tb.Owner = o.OID
	if _, err := c.CreateRelation(tb, false); err != nil {
		t.Fatal(err)
	}
	p, err := c.CreateRole("p", "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	pt := table("t0", "a")
	pt.Policies = []Policy{{OID: 1, Name: "mine", Permissive: true, Command: '*', Roles: []uint32{p.OID, o.OID}}}
	if _, err := c.CreateRelation(pt, false); err != nil {
		t.Fatal(err)
	}
	v := &Relation{Schema: "pg_catalog", Name: "v1", Kind: KindView, Owner: o.OID, ViewSQL: "SELECT 1"}
	if _, err := c.CreateRelation(v, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateSchema("public", func(s *Schema) error {
		s.ACL = ACL{{Grantee: o.OID, Grantor: s.Owner, Privs: PrivCreate}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var owned []string
	c.UpdateRoles(func(tx *RoleTx) error { owned = tx.Dependents(o.OID); return nil })
	want := []string{"target of policy mine on table t0", "privileges for schema public", "owner of table t1", "owner of view pg_catalog.v1"}
	if strings.Join(owned, "|") != strings.Join(want, "|") {
		t.Fatalf("dependents %q, want %q", owned, want)
	}
}
