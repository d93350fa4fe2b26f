package engine

import (
	"context"
	"slices"
	"sort"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// REASSIGN OWNED and DROP OWNED, as PostgreSQL 15's shdepReassignOwned
// and shdepDropOwned: the usual way to empty a role before DROP ROLE.
// The current user must have the privileges of every role named (and,
// for REASSIGN, of the new owner). REASSIGN OWNED gives the roles'
// objects to the new owner (their ACLs follow it, as with ALTER ...
// OWNER TO) and leaves their privileges alone; DROP OWNED revokes every
// privilege granted to the roles (with CASCADE of the grants they made
// from them) and drops the objects they own, as the DROP statements of
// those objects would, in an order that drops readers before what they
// read.

// ownedRoles resolves the role list of REASSIGN/DROP OWNED and checks
// that the current user has their privileges; verb is what the error
// says ("reassign objects", "drop objects").
func (s *Session) ownedRoles(specs []*pg_query.Node, verb string) ([]*catalog.Role, error) {
	var out []*catalog.Role
	for _, n := range specs {
		r, err := s.roleNamed(n.GetRoleSpec()) // alter_owner.go
		if err != nil {
			return nil, err
		}
		if !s.superuser && !s.eng.cat.HasPrivsOfRole(s.currentRoleOID(), r.OID) {
			return nil, sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied to %s", verb)
		}
		out = append(out, r)
	}
	return out, nil
}

func (s *Session) reassignOwned(st *pg_query.ReassignOwnedStmt) (wire.Result, error) {
	roles, err := s.ownedRoles(st.Roles, "reassign objects")
	if err != nil {
		return nil, err
	}
	to, err := s.roleNamed(st.Newrole)
	if err != nil {
		return nil, err
	}
	if !s.superuser && !s.eng.cat.HasPrivsOfRole(s.currentRoleOID(), to.OID) {
		return nil, sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied to reassign objects")
	}
	for _, r := range roles {
		if r.OID == catalog.BootstrapRoleOID {
			return nil, sqlerr.New("2BP01", "cannot reassign ownership of objects owned by role %s because they are required by the database system", r.Name)
		}
	}
	for _, r := range roles {
		if err := s.reassign(r.OID, to.OID); err != nil {
			return nil, err
		}
	}
	return commandResult("REASSIGN OWNED"), nil
}

// reassign gives every object from owns to to.
func (s *Session) reassign(from, to uint32) error {
	if from == to {
		return nil
	}
	cat := s.eng.cat
	for _, sc := range cat.Schemas() {
		if sc.Owner != from {
			continue
		}
		if _, err := cat.UpdateSchema(sc.Name, func(sc *catalog.Schema) error {
			sc.ACL = sc.EffectiveACL().NewOwner(from, to)
			sc.Owner = to
			return nil
		}); err != nil {
			return err
		}
	}
	for _, rel := range cat.Relations() {
		if rel.Owner != from {
			continue
		}
		if _, err := cat.UpdateRelation(rel.OID, func(r *catalog.Relation) error {
			r.Owner = to
			r.ACL = r.ACL.NewOwner(from, to)
			for i := range r.Columns {
				r.Columns[i].ACL = r.Columns[i].ACL.NewOwner(from, to)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	for _, sec := range cat.Secrets() {
		if sec.Owner != from {
			continue
		}
		if _, err := cat.UpdateSecret(sec.Name, func(sec *catalog.Secret) error {
			sec.ACL = sec.ACL.NewOwner(from, to)
			sec.Owner = to
			return nil
		}); err != nil {
			return err
		}
	}
	return cat.ReassignSinks(from, to)
}

func (s *Session) dropOwned(st *pg_query.DropOwnedStmt, io wire.ExecIO) (wire.Result, error) {
	roles, err := s.ownedRoles(st.Roles, "drop objects")
	if err != nil {
		return nil, err
	}
	for _, r := range roles {
		if r.OID == catalog.BootstrapRoleOID {
			return nil, sqlerr.New("2BP01", "cannot drop objects owned by role %s because they are required by the database system", r.Name)
		}
	}
	cascade := st.Behavior == pg_query.DropBehavior_DROP_CASCADE
	for _, r := range roles {
		if err := s.revokeAllFrom(r.OID); err != nil {
			return nil, err
		}
	}
	for _, r := range roles {
		if err := s.dropAllOf(r.OID, cascade, io); err != nil {
			return nil, err
		}
	}
	return commandResult("DROP OWNED"), nil
}

// revokeAllFrom takes every privilege role was granted on any object,
// revoking with CASCADE the grants it made of them.
func (s *Session) revokeAllFrom(role uint32) error {
	cat := s.eng.cat
	held := func(r uint32, a catalog.ACL, p catalog.Privileges) catalog.Privileges {
		_, g := a.Mask(func(x uint32) bool { return cat.HasPrivsOfRole(r, x) })
		return g & p
	}
	strip := func(acl catalog.ACL, owner uint32) (catalog.ACL, bool, error) {
		changed := false
		for {
			i := -1
			for j, it := range acl {
				if it.Grantee == role && role != owner {
					i = j
					break
				}
			}
			if i < 0 {
				return acl, changed, nil
			}
			var err error
			if acl, err = acl.Revoke(role, acl[i].Grantor, acl[i].Privs, false, true, owner, held); err != nil {
				return nil, false, err
			}
			if acl == nil {
				acl = catalog.ACL{}
			}
			changed = true
		}
	}
	for _, rel := range cat.Relations() {
		acl, changed, err := strip(rel.ACL, rel.Owner)
		if err != nil {
			return err
		}
		cols := map[int]catalog.ACL{}
		for i, c := range rel.Columns {
			ca, ch, err := strip(c.ACL, rel.Owner)
			if err != nil {
				return err
			}
			if ch {
				if len(ca) == 0 {
					ca = nil
				}
				cols[i] = ca
			}
		}
		policies, policiesChanged := withoutRole(rel.Policies, role)
		if !changed && len(cols) == 0 && !policiesChanged {
			continue
		}
		if _, err := cat.UpdateRelation(rel.OID, func(r *catalog.Relation) error {
			if changed {
				r.ACL = acl
			}
			if policiesChanged {
				r.Policies = policies
			}
			for i, a := range cols {
				r.Columns[i].ACL = a
			}
			return nil
		}); err != nil {
			return err
		}
	}
	for _, sc := range cat.Schemas() {
		if acl, changed, err := strip(sc.ACL, sc.Owner); err != nil {
			return err
		} else if changed {
			if _, err := cat.UpdateSchema(sc.Name, func(sc *catalog.Schema) error { sc.ACL = acl; return nil }); err != nil {
				return err
			}
		}
	}
	for _, db := range cat.Databases() {
		if acl, changed, err := strip(db.ACL, catalog.BootstrapRoleOID); err != nil {
			return err
		} else if changed {
			if _, err := cat.UpdateDatabase(db.Name, func(d *catalog.Database) error { d.ACL = acl; return nil }); err != nil {
				return err
			}
		}
	}
	for _, sec := range cat.Secrets() {
		if acl, changed, err := strip(sec.ACL, sec.Owner); err != nil {
			return err
		} else if changed {
			if _, err := cat.UpdateSecret(sec.Name, func(sec *catalog.Secret) error { sec.ACL = acl; return nil }); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropAllOf drops every object role owns with the statement that drops
// it: sinks first, then relations newest first (a reader is newer than
// what it reads), then schemas and secrets.
func (s *Session) dropAllOf(role uint32, cascade bool, io wire.ExecIO) error {
	cat := s.eng.cat
	behavior := ""
	if cascade {
		behavior = " CASCADE"
	}
	var stmts []string
	for _, def := range cat.Sinks() {
		if def.Owner == role {
			stmts = append(stmts, "DROP SINK IF EXISTS "+quotedQualifiedName(def.Schema, def.Name))
		}
	}
	rels := cat.Relations()
	sort.Slice(rels, func(i, j int) bool { return rels[i].OID > rels[j].OID })
	for _, r := range rels {
		if r.Owner != role {
			continue
		}
		stmts = append(stmts, dropCommandOf(r.Kind)+" IF EXISTS "+quotedQualifiedName(r.Schema, r.Name)+behavior)
	}
	for _, sc := range cat.Schemas() {
		if sc.Owner == role {
			stmts = append(stmts, "DROP SCHEMA IF EXISTS "+quoteIdentIfNeeded(sc.Name)+behavior)
		}
	}
	for _, sec := range cat.Secrets() {
		if sec.Owner == role {
			stmts = append(stmts, "DROP SECRET IF EXISTS "+quoteIdentIfNeeded(sec.Name))
		}
	}
	for _, text := range stmts {
		if err := s.runNested(text, io); err != nil {
			return err
		}
	}
	return nil
}

// runNested runs one statement of weir's own making within the current
// one, keeping the current statement's cancellation and connection.
func (s *Session) runNested(text string, io wire.ExecIO) error {
	done, runIO := s.runDone, s.runIO
	defer func() { s.runDone, s.runIO = done, runIO }()
	stmts, err := s.prepareNew(text, nil)
	if err != nil {
		return err
	}
	for _, st := range stmts {
		res, err := st.(*statement).Execute(context.Background(), nil, quietIO{io})
		if err != nil {
			return err
		}
		if res != nil {
			res.Close()
		}
	}
	return nil
}

// quietIO passes a nested statement's notices on, but its IF EXISTS
// "does not exist, skipping" ones (an object dropped by an earlier
// CASCADE).
type quietIO struct{ wire.ExecIO }

func (q quietIO) Notice(severity, code, message string) {
	if code == sqlerr.UndefinedTable || code == sqlerr.UndefinedObject || code == sqlerr.InvalidSchemaName {
		return
	}
	q.ExecIO.Notice(severity, code, message)
}

// quotedQualifiedName is schema.name, quoted where needed.
func quotedQualifiedName(schema, name string) string {
	if schema == "" {
		return quoteIdentIfNeeded(name)
	}
	return quoteIdentIfNeeded(schema) + "." + quoteIdentIfNeeded(name)
}

// withoutRole is DROP OWNED's change of a relation's row-security
// policies (RemoveRoleFromObjectPolicy): role is taken from the policies
// that name it, and a policy that named it alone is dropped.
func withoutRole(policies []catalog.Policy, role uint32) ([]catalog.Policy, bool) {
	var out []catalog.Policy
	changed := false
	for _, p := range policies {
		i := slices.Index(p.Roles, role)
		if i < 0 {
			out = append(out, p)
			continue
		}
		changed = true
		if len(p.Roles) == 1 {
			continue
		}
		p.Roles = slices.Delete(slices.Clone(p.Roles), i, i+1)
		out = append(out, p)
	}
	return out, changed
}
