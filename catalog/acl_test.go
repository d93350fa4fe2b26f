package catalog

import (
	"reflect"
	"testing"
)

// The text forms and defaults are PostgreSQL 15's: acldefault('r', 10)
// is {weir=arwdDxt/weir}, acldefault('d', 10) {=Tc/weir,weir=CTc/weir}.
func TestACLText(t *testing.T) {
	name := func(oid uint32) string { return map[uint32]string{10: "weir", 16384: "alice"}[oid] }
	cases := []struct {
		acl  ACL
		want []string
	}{
		{DefaultACL(ObjRelation, 10), []string{"weir=arwdDxt/weir"}},
		{DefaultACL(ObjDatabase, 10), []string{"=Tc/weir", "weir=CTc/weir"}},
		{DefaultACL(ObjSchema, 10), []string{"weir=UC/weir"}},
		{ACL{{Grantee: 16384, Grantor: 10, Privs: PrivSelect | PrivInsert, GrantOption: PrivSelect}}, []string{"alice=ar*/weir"}},
		{ACL{{Grantee: 0, Grantor: 10, Privs: PrivSelect}}, []string{"=r/weir"}},
	}
	for _, c := range cases {
		if got := c.acl.Text(name); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: got %q, want %q", c.acl, got, c.want)
		}
	}
}

func TestACLMask(t *testing.T) {
	acl := ACL{{Grantee: 0, Grantor: 10, Privs: PrivSelect},
		{Grantee: 20, Grantor: 10, Privs: PrivInsert, GrantOption: PrivInsert}}
	p, g := acl.Mask(func(r uint32) bool { return r == 20 })
	if p != PrivSelect|PrivInsert || g != PrivInsert {
		t.Fatalf("mask %b grant %b", p, g)
	}
	p, _ = acl.Mask(func(uint32) bool { return false })
	if p != PrivSelect {
		t.Fatalf("PUBLIC only: %b", p)
	}
	if pr, ok := PrivilegeByName("temp"); !ok || pr != PrivTemporary {
		t.Fatal("TEMP")
	}
}

func TestHasPrivsOfNoInherit(t *testing.T) {
	members := map[memberPair]Membership{{role: 2, member: 1}: {}, {role: 3, member: 2}: {}}
	if !hasPrivsOf(members, nil, 1, 3) {
		t.Fatal("1 inherits 3 through 2")
	}
	if hasPrivsOf(members, map[uint32]bool{2: true}, 1, 3) {
		t.Fatal("2 is NOINHERIT: 1 must not reach 3 through it")
	}
	if !hasPrivsOf(members, map[uint32]bool{2: true}, 1, 2) {
		t.Fatal("1 inherits 2 directly")
	}
}

func TestACLGrantRevoke(t *testing.T) {
	const owner, alice, bob = 10, 20, 30
	name := func(oid uint32) string { return map[uint32]string{10: "weir", 20: "alice", 30: "bob"}[oid] }
	direct := func(role uint32, acl ACL, privs Privileges) Privileges {
		_, g := acl.Mask(func(r uint32) bool { return r == role })
		return g & privs
	}
	acl := DefaultACL(ObjRelation, owner)
	acl, _ = acl.Grant(alice, owner, owner, PrivSelect|PrivInsert, true)
	acl, _ = acl.Grant(bob, alice, owner, PrivSelect, false)
	if got := acl.Text(name); len(got) != 3 || got[1] != "alice=a*r*/weir" || got[2] != "bob=r/alice" {
		t.Fatalf("after grants: %q", got)
	}
	if _, err := acl.Revoke(alice, owner, PrivSelect, true, false, owner, direct); err == nil {
		t.Fatal("revoking alice's grant option must fail while bob's grant depends on it")
	}
	out, err := acl.Revoke(alice, owner, PrivSelect, true, true, owner, direct)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Text(name); len(got) != 2 || got[1] != "alice=a*r/weir" {
		t.Fatalf("after REVOKE GRANT OPTION FOR … CASCADE: %q", got)
	}
	if _, err := acl.Grant(alice, alice, owner, PrivSelect, true); err == nil {
		t.Fatal("grant option back to the grantor")
	}
}

// TestACLNewOwner follows aclnewowner: {weir=arwdDxt/weir, alice=r*/weir,
// bob=r/alice} given to alice is {alice=ar*wdDxt/alice, bob=r/alice}, as
// PostgreSQL 15 shows it after ALTER TABLE ... OWNER TO alice.
func TestACLNewOwner(t *testing.T) {
	name := func(oid uint32) string { return map[uint32]string{10: "weir", 16384: "alice", 16385: "bob"}[oid] }
	acl := ACL{{Grantee: 10, Grantor: 10, Privs: AllPrivileges(ObjRelation)},
		{Grantee: 16384, Grantor: 10, Privs: PrivSelect, GrantOption: PrivSelect},
		{Grantee: 16385, Grantor: 16384, Privs: PrivSelect}}
	got := acl.NewOwner(10, 16384).Text(name)
	if want := []string{"alice=ar*wdDxt/alice", "bob=r/alice"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if ACL(nil).NewOwner(10, 16384) != nil {
		t.Error("a default ACL must stay the default")
	}
}
