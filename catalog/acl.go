package catalog

import "strings"

// Access-control lists as PostgreSQL keeps them (utils/acl.h): an object
// has an owner and an ACL, a list of items "grantee holds these
// privileges, some with grant option, from grantor". A nil ACL is the
// object's default (pg_class.relacl and friends are NULL): all privileges
// of its kind for the owner, plus what PostgreSQL gives PUBLIC by default
// (CONNECT and TEMPORARY on a database, EXECUTE on a function). The owner
// holds its privileges through the ACL like anyone else, so an owner may
// revoke its own SELECT (and a streaming table run as that owner then
// fails); what an owner keeps regardless is the right to GRANT, REVOKE,
// ALTER and DROP its object.

// Privileges is a set of privileges, one bit each, in the order
// PostgreSQL's aclitem text form prints their letters.
type Privileges uint16

const (
	PrivInsert     Privileges = 1 << iota // a
	PrivSelect                            // r
	PrivUpdate                            // w
	PrivDelete                            // d
	PrivTruncate                          // D
	PrivReferences                        // x
	PrivTrigger                           // t
	PrivExecute                           // X
	PrivUsage                             // U
	PrivCreate                            // C
	PrivTemporary                         // T
	PrivConnect                           // c
)

// privLetters are the aclitem letters of the bits above, in bit order.
const privLetters = "arwdDxtXUCTc"

// privNames are GRANT's names of the bits above, in bit order.
var privNames = [...]string{"INSERT", "SELECT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER",
	"EXECUTE", "USAGE", "CREATE", "TEMPORARY", "CONNECT"}

// PrivilegeByName is GRANT's privilege name (any case; TEMP is
// TEMPORARY) as a bit; false for an unknown name.
func PrivilegeByName(name string) (Privileges, bool) {
	n := strings.ToUpper(name)
	if n == "TEMP" {
		n = "TEMPORARY"
	}
	for i, p := range privNames {
		if p == n {
			return 1 << i, true
		}
	}
	return 0, false
}

// Names lists the privileges of p by GRANT's names, in bit order.
func (p Privileges) Names() []string {
	var out []string
	for i, n := range privNames {
		if p&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// Letters is p in aclitem letters, with "*" after each letter also in
// grant (the grant-option subset of p).
func (p Privileges) Letters(grant Privileges) string {
	var b strings.Builder
	for i := range privLetters {
		if p&(1<<i) != 0 {
			b.WriteByte(privLetters[i])
			if grant&(1<<i) != 0 {
				b.WriteByte('*')
			}
		}
	}
	return b.String()
}

// ObjectKind is the kind of object an ACL belongs to: it fixes which
// privileges apply and what the default ACL is (acldefault's letters).
type ObjectKind byte

const (
	ObjRelation ObjectKind = 'r' // tables, streaming tables, views, sources
	ObjColumn   ObjectKind = 'c' // a column of a relation (attacl)
	ObjSchema   ObjectKind = 'n'
	ObjDatabase ObjectKind = 'd'
	ObjFunction ObjectKind = 'f'
	ObjSecret   ObjectKind = 'S' // weir's CREATE SECRET (USAGE), like a foreign server
)

// AllPrivileges is what GRANT ALL means for objects of kind k.
func AllPrivileges(k ObjectKind) Privileges {
	switch k {
	case ObjRelation:
		return PrivInsert | PrivSelect | PrivUpdate | PrivDelete | PrivTruncate | PrivReferences | PrivTrigger
	case ObjColumn:
		return PrivInsert | PrivSelect | PrivUpdate | PrivReferences
	case ObjSchema:
		return PrivUsage | PrivCreate
	case ObjDatabase:
		return PrivCreate | PrivTemporary | PrivConnect
	case ObjFunction:
		return PrivExecute
	case ObjSecret:
		return PrivUsage
	}
	return 0
}

// ACLItem is one entry of an ACL. Grantee 0 is PUBLIC. GrantOption is
// the subset of Privs the grantee may grant on.
type ACLItem struct {
	Grantee     uint32
	Grantor     uint32
	Privs       Privileges
	GrantOption Privileges `json:",omitempty"`
}

// ACL is an access-control list; nil is the default of its object.
type ACL []ACLItem

// DefaultACL is acldefault(k, owner): what a nil ACL means. The owner's
// item carries no grant options: an owner (and whoever has its
// privileges) holds every grant option implicitly (Catalog.Privileges),
// as in PostgreSQL's aclmask.
func DefaultACL(k ObjectKind, owner uint32) ACL {
	switch k {
	case ObjColumn:
		return nil // a column has no privileges of its own by default
	case ObjDatabase:
		all := AllPrivileges(k)
		return ACL{{Grantee: 0, Grantor: owner, Privs: PrivTemporary | PrivConnect},
			{Grantee: owner, Grantor: owner, Privs: all}}
	case ObjFunction:
		return ACL{{Grantee: 0, Grantor: owner, Privs: PrivExecute},
			{Grantee: owner, Grantor: owner, Privs: PrivExecute}}
	}
	return ACL{{Grantee: owner, Grantor: owner, Privs: AllPrivileges(k)}}
}

// Effective is acl, or the default of kind k for owner when acl is nil.
func (acl ACL) Effective(k ObjectKind, owner uint32) ACL {
	if acl == nil {
		return DefaultACL(k, owner)
	}
	return acl
}

// Mask is the union of the privileges acl grants to PUBLIC and to every
// role whose privileges role has (privsOf: has_privs_of_role, which
// follows INHERIT memberships); the second result is the grant-option
// subset. Superusers are the caller's business (they hold everything).
func (acl ACL) Mask(privsOf func(grantee uint32) bool) (Privileges, Privileges) {
	var p, g Privileges
	for _, it := range acl {
		if it.Grantee == 0 || privsOf(it.Grantee) {
			p |= it.Privs
			g |= it.GrantOption
		}
	}
	return p, g
}

// Text is the ACL in aclitem[] text form, one string per item:
// "grantee=letters/grantor", grantee "" for PUBLIC; name gives a role's
// name (quoted as aclitem quotes it by the caller's choice).
func (acl ACL) Text(name func(oid uint32) string) []string {
	out := make([]string, len(acl))
	for i, it := range acl {
		grantee := ""
		if it.Grantee != 0 {
			grantee = name(it.Grantee)
		}
		out[i] = grantee + "=" + it.Privs.Letters(it.GrantOption) + "/" + name(it.Grantor)
	}
	return out
}

// Clone returns a copy the caller may change (nil stays nil).
func (acl ACL) Clone() ACL {
	if acl == nil {
		return nil
	}
	return append(ACL{}, acl...)
}
