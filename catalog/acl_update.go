package catalog

import "github.com/weir-sql/weir/sql/sqlerr"

// GRANT and REVOKE as changes of an ACL, following PostgreSQL's
// aclupdate: an item is identified by (grantee, grantor); a new one goes
// at the end; an item left with no privileges is removed. The caller
// starts from the object's effective ACL (Effective), so that the first
// GRANT on an object materialises its default, as PostgreSQL does.

// Grant returns acl with privs granted to grantee by grantor, and their
// grant option too when grantOption is set. A grantor other than the
// owner may not grant grant options back to itself (0LP01, PostgreSQL's
// check_circularity); the owner holds them anyway and may.
func (acl ACL) Grant(grantee, grantor, owner uint32, privs Privileges, grantOption bool) (ACL, error) {
	if grantOption && grantee == grantor && grantor != owner {
		return nil, sqlerr.New("0LP01", "grant options cannot be granted back to your own grantor")
	}
	out := acl.Clone()
	for i := range out {
		if out[i].Grantee == grantee && out[i].Grantor == grantor {
			out[i].Privs |= privs
			if grantOption {
				out[i].GrantOption |= privs
			}
			return out, nil
		}
	}
	it := ACLItem{Grantee: grantee, Grantor: grantor, Privs: privs}
	if grantOption {
		it.GrantOption = privs
	}
	return append(out, it), nil
}

// Revoke returns acl without privs granted to grantee by grantor (only
// their grant option with optionOnly). When the grantee thereby loses a
// grant option it used, the grants it made of those privileges are
// dependent: with cascade they are revoked too, recursively; without,
// Revoke fails with 2BP01 "dependent privileges exist", as PostgreSQL's
// recursive_revoke does. held gives the subset of privs whose grant
// option role still holds in acl through other items (its memberships,
// PUBLIC).
func (acl ACL) Revoke(grantee, grantor uint32, privs Privileges, optionOnly, cascade bool, owner uint32, held func(role uint32, acl ACL, privs Privileges) Privileges) (ACL, error) {
	out := acl.Clone()
	lost := Privileges(0)
	for i := 0; i < len(out); i++ {
		it := &out[i]
		if it.Grantee != grantee || it.Grantor != grantor {
			continue
		}
		before := it.GrantOption
		it.GrantOption &^= privs
		if !optionOnly {
			it.Privs &^= privs
		}
		lost = before &^ it.GrantOption
		if it.Privs == 0 {
			out = append(out[:i], out[i+1:]...)
		}
		break
	}
	if lost == 0 || grantee == owner || grantee == 0 {
		return out, nil
	}
	// The grant options the grantee still holds through other grants
	// keep its own grants alive.
	lost &^= held(grantee, out, lost)
	if lost == 0 {
		return out, nil
	}
	for _, it := range out {
		if it.Grantor != grantee || it.Privs&lost == 0 {
			continue
		}
		if !cascade {
			return nil, sqlerr.New("2BP01", "dependent privileges exist").
				WithHint("Use CASCADE to revoke them too.")
		}
		var err error
		if out, err = out.Revoke(it.Grantee, grantee, it.Privs&lost, false, true, owner, held); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// NewOwner is PostgreSQL's aclnewowner: acl with every item naming
// oldOwner, as grantee or grantor, naming newOwner instead; items that
// thereby share grantee and grantor are merged into the first of them.
// A nil ACL stays nil (the default follows the owner by itself).
func (acl ACL) NewOwner(oldOwner, newOwner uint32) ACL {
	if acl == nil {
		return nil
	}
	out := make(ACL, 0, len(acl))
	for _, it := range acl {
		if it.Grantee == oldOwner {
			it.Grantee = newOwner
		}
		if it.Grantor == oldOwner {
			it.Grantor = newOwner
		}
		merged := false
		for i := range out {
			if out[i].Grantee == it.Grantee && out[i].Grantor == it.Grantor {
				out[i].Privs |= it.Privs
				out[i].GrantOption |= it.GrantOption
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, it)
		}
	}
	return out
}
