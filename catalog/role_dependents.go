package catalog

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// What depends on a role, as PostgreSQL's pg_shdepend records it: the
// objects it owns, the ACLs that name it (as grantee or grantor, other
// than the object's owner) and the row-security policies that apply to
// it. DROP ROLE refuses while any remain,
// listing them in checkSharedDependencies' order: by object OID, then
// column (the whole object first), then "privileges" before "owner".

type roleDependent struct {
	oid   uint32
	sub   int
	owner bool
	desc  string
}

// Dependents describes, in PostgreSQL's words and order, every object
// that depends on role: "owner of table t", "privileges for schema s",
// "privileges for column c of table t", ...
func (tx *RoleTx) Dependents(role uint32) []string {
	var deps []roleDependent
	names := func(acl ACL, owner uint32) bool {
		for _, it := range acl {
			if (it.Grantee == role || it.Grantor == role) && owner != role {
				return true
			}
		}
		return false
	}
	for _, d := range tx.c.databases {
		if names(d.ACL, BootstrapRoleOID) {
			deps = append(deps, roleDependent{oid: d.OID, desc: "privileges for database " + d.Name})
		}
	}
	for _, s := range tx.c.schemas {
		if s.Owner == role {
			deps = append(deps, roleDependent{oid: s.OID, owner: true, desc: "owner of schema " + s.Name})
		}
		if names(s.ACL, s.Owner) {
			deps = append(deps, roleDependent{oid: s.OID, desc: "privileges for schema " + s.Name})
		}
	}
	for _, r := range tx.c.rels {
		what := r.Kind.noun() + " " + r.describedName()
		if r.Owner == role {
			deps = append(deps, roleDependent{oid: r.OID, owner: true, desc: "owner of " + what})
		}
		if names(r.ACL, r.Owner) {
			deps = append(deps, roleDependent{oid: r.OID, desc: "privileges for " + what})
		}
		for _, p := range r.Policies {
			if slices.Contains(p.Roles, role) && role != 0 {
				deps = append(deps, roleDependent{oid: p.OID, desc: "target of policy " + p.Name + " on " + what})
			}
		}
		for i, c := range r.Columns {
			if names(c.ACL, r.Owner) {
				deps = append(deps, roleDependent{oid: r.OID, sub: i + 1, desc: fmt.Sprintf("privileges for column %s of %s", c.Name, what)})
			}
		}
	}
	for _, s := range tx.c.sinks {
		if s.Owner == role {
			deps = append(deps, roleDependent{oid: s.OID, owner: true, desc: "owner of sink " + s.Name})
		}
	}
	// Secrets have no OID: they come last, by name.
	var secrets []roleDependent
	for _, s := range tx.c.secrets {
		if s.Owner == role {
			secrets = append(secrets, roleDependent{owner: true, desc: "owner of secret " + s.Name})
		}
		if names(s.ACL, s.Owner) {
			secrets = append(secrets, roleDependent{desc: "privileges for secret " + s.Name})
		}
	}
	sort.Slice(deps, func(i, j int) bool {
		a, b := deps[i], deps[j]
		if a.oid != b.oid {
			return a.oid < b.oid
		}
		if a.sub != b.sub {
			return a.sub < b.sub
		}
		return !a.owner && b.owner
	})
	sort.Slice(secrets, func(i, j int) bool { return secrets[i].desc < secrets[j].desc })
	out := make([]string, 0, len(deps)+len(secrets))
	for _, d := range append(deps, secrets...) {
		out = append(out, d.desc)
	}
	return out
}

// describedName is the relation's name as getObjectDescription gives
// it: qualified unless the schema is public.
func (r *Relation) describedName() string {
	if r.Schema != "public" && r.Schema != "" {
		return r.Schema + "." + r.Name
	}
	return r.Name
}

// OwnedObjects is the part of Dependents that is ownership: "owner of
// schema s", "owner of table t", ... by OID.
func (tx *RoleTx) OwnedObjects(role uint32) []string {
	var out []string
	for _, d := range tx.Dependents(role) {
		if strings.HasPrefix(d, "owner of ") {
			out = append(out, d)
		}
	}
	return out
}
