package engine

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// Role membership as PostgreSQL 15 has it (GrantRole, AddRoleMems and
// DelRoleMems in user.c): GRANT role TO role [WITH ADMIN OPTION]
// [GRANTED BY role], REVOKE [ADMIN OPTION FOR] role FROM role, and the IN
// ROLE / ROLE / ADMIN lists of CREATE ROLE. Each statement is one
// catalog.RoleTx, so a failure part-way stores nothing.

// invalidGrantOperation is SQLSTATE 0LP01.
const invalidGrantOperation = "0LP01"

// roleNotices collects a statement's NOTICEs and WARNINGs while the
// catalog's write lock is held; they are sent once it is released, so
// that a client slow to read cannot hold up other sessions' DDL.
type roleNotices struct {
	list []roleNotice
}

type roleNotice struct{ severity, code, msg string }

func (n *roleNotices) add(severity, code, msg string) {
	n.list = append(n.list, roleNotice{severity, code, msg})
}

// send delivers the notices where the statement has a connection.
func (n *roleNotices) send(io wire.ExecIO) {
	if io == nil {
		return
	}
	for _, m := range n.list {
		io.Notice(m.severity, m.code, m.msg)
	}
}

// roleSpecName is the role a RoleSpec names: PUBLIC is no role here, as
// in PostgreSQL's get_rolespec_oid.
func (s *Session) roleSpecName(r *pg_query.RoleSpec) string {
	switch r.GetRoletype() {
	case pg_query.RoleSpecType_ROLESPEC_CURRENT_USER, pg_query.RoleSpecType_ROLESPEC_CURRENT_ROLE:
		return s.user
	case pg_query.RoleSpecType_ROLESPEC_SESSION_USER:
		return s.ids.session.name
	case pg_query.RoleSpecType_ROLESPEC_PUBLIC:
		return "public"
	}
	return r.GetRolename()
}

func lookupRole(tx *catalog.RoleTx, name string) (*catalog.Role, error) {
	r, ok := tx.Role(name)
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	return r, nil
}

func (s *Session) lookupRoleSpecs(tx *catalog.RoleTx, specs []*pg_query.RoleSpec) ([]*catalog.Role, error) {
	out := make([]*catalog.Role, 0, len(specs))
	for _, spec := range specs {
		r, err := lookupRole(tx, s.roleSpecName(spec))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// currentRole is the current user's role as the transaction sees it.
func (s *Session) currentRole(tx *catalog.RoleTx) (*catalog.Role, error) {
	return lookupRole(tx, s.user)
}

func (s *Session) grantRole(g *pg_query.GrantRoleStmt, stmt parse.Statement, io wire.ExecIO) (wire.Result, error) {
	admin := false
	for _, o := range g.Opt {
		d := o.GetDefElem()
		if d.GetDefname() != "admin" {
			// PostgreSQL 15 knows only ADMIN OPTION (INHERIT and SET
			// options came in 16); its grammar fails at the option's
			// word, as the client wrote it.
			loc := int(d.GetLocation())
			return nil, sqlerr.At(sqlerr.SyntaxError, loc+1, "syntax error at or near \"%s\"", wordAt(stmt, loc, d.GetDefname()))
		}
		admin = d.Arg == nil || d.Arg.GetBoolean() != nil && (d.Arg.GetBoolean().GetBoolval() || !g.IsGrant)
	}
	tag := "GRANT ROLE"
	if !g.IsGrant {
		tag = "REVOKE ROLE"
	}
	var notes roleNotices
	err := s.eng.cat.UpdateRoles(func(tx *catalog.RoleTx) error {
		me, err := s.currentRole(tx)
		if err != nil {
			return err
		}
		grantor := me
		if g.Grantor != nil {
			if grantor, err = lookupRole(tx, s.roleSpecName(g.Grantor)); err != nil {
				return err
			}
		}
		var specs []*pg_query.RoleSpec
		for _, n := range g.GranteeRoles {
			specs = append(specs, n.GetRoleSpec())
		}
		grantees, err := s.lookupRoleSpecs(tx, specs)
		if err != nil {
			return err
		}
		for _, n := range g.GrantedRoles {
			p := n.GetAccessPriv()
			if p.GetPrivName() == "" || len(p.GetCols()) > 0 {
				return sqlerr.New(invalidGrantOperation, "column names cannot be included in GRANT/REVOKE ROLE")
			}
			role, err := lookupRole(tx, p.GetPrivName())
			if err != nil {
				return err
			}
			if g.IsGrant {
				err = s.addRoleMembers(tx, role, grantees, grantor, admin, &notes)
			} else {
				err = s.deleteRoleMembers(tx, role, grantees, admin, &notes)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	notes.send(io)
	if err != nil {
		return nil, err
	}
	return commandResult(tag), nil
}

// mayChangeMembersOf is the permission check of AddRoleMems and
// DelRoleMems: a superuser role needs a superuser; another needs
// CREATEROLE or ADMIN OPTION on it (held by by).
func (s *Session) mayChangeMembersOf(tx *catalog.RoleTx, role, by *catalog.Role) error {
	if role.Superuser {
		if !s.superuser {
			return sqlerr.New(sqlerr.InsufficientPrivilege, "must be superuser to alter superusers")
		}
		return nil
	}
	if s.hasCreateRole(tx) || by.Superuser || tx.IsAdminOf(by.OID, role.OID) {
		return nil
	}
	return sqlerr.New(sqlerr.InsufficientPrivilege, "must have admin option on role \"%s\"", role.Name)
}

// addRoleMembers makes members members of role, as AddRoleMems does.
func (s *Session) addRoleMembers(tx *catalog.RoleTx, role *catalog.Role, members []*catalog.Role, grantor *catalog.Role, admin bool, notes *roleNotices) error {
	if len(members) == 0 {
		return nil
	}
	if err := s.mayChangeMembersOf(tx, role, grantor); err != nil {
		return err
	}
	if role.OID == catalog.DatabaseOwnerRoleOID {
		return sqlerr.New(sqlerr.InternalError, "role \"%s\" cannot have explicit members", role.Name)
	}
	if grantor.Name != s.user && !s.superuser {
		return sqlerr.New(sqlerr.InsufficientPrivilege, "must be superuser to set grantor")
	}
	for _, m := range members {
		if m.OID == catalog.DatabaseOwnerRoleOID {
			return sqlerr.New(sqlerr.InternalError, "role \"%s\" cannot be a member of any role", m.Name)
		}
		// A loop (the trivial one included) is refused whatever the
		// roles' superuser status.
		if tx.IsMemberOf(role.OID, m.OID) {
			return sqlerr.New(invalidGrantOperation, "role \"%s\" is a member of role \"%s\"", role.Name, m.Name)
		}
		if old, ok := tx.Membership(role.OID, m.OID); ok && (!admin || old.Admin) {
			notes.add("NOTICE", sqlerr.SuccessfulCompletion, fmt.Sprintf("role \"%s\" is already a member of role \"%s\"", m.Name, role.Name))
			continue
		}
		if err := tx.SetMembership(catalog.Membership{Role: role.OID, Member: m.OID, Grantor: grantor.OID, Admin: admin}); err != nil {
			return err
		}
	}
	return nil
}

// deleteRoleMembers removes members from role, or with adminOnly only
// their ADMIN OPTION, as DelRoleMems does.
func (s *Session) deleteRoleMembers(tx *catalog.RoleTx, role *catalog.Role, members []*catalog.Role, adminOnly bool, notes *roleNotices) error {
	if len(members) == 0 {
		return nil
	}
	me, err := s.currentRole(tx)
	if err != nil {
		return err
	}
	if err := s.mayChangeMembersOf(tx, role, me); err != nil {
		return err
	}
	for _, m := range members {
		old, ok := tx.Membership(role.OID, m.OID)
		if !ok {
			notes.add("WARNING", sqlerr.Warning, fmt.Sprintf("role \"%s\" is not a member of role \"%s\"", m.Name, role.Name))
			continue
		}
		if adminOnly {
			old.Admin = false
			err = tx.SetMembership(old)
		} else {
			err = tx.DeleteMembership(role.OID, m.OID)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// addCreatedRoleMemberships applies CREATE ROLE's IN ROLE, ADMIN and ROLE
// lists, in PostgreSQL's order, granted by the current user.
func (s *Session) addCreatedRoleMemberships(tx *catalog.RoleTx, created *catalog.Role, ro roleOptions, notes *roleNotices) error {
	me, err := s.currentRole(tx)
	if err != nil {
		return err
	}
	for _, spec := range ro.inRoles {
		r, err := lookupRole(tx, s.roleSpecName(spec))
		if err != nil {
			return err
		}
		if err := s.addRoleMembers(tx, r, []*catalog.Role{created}, me, false, notes); err != nil {
			return err
		}
	}
	for _, l := range []struct {
		specs []*pg_query.RoleSpec
		admin bool
	}{{ro.adminMembers, true}, {ro.members, false}} {
		members, err := s.lookupRoleSpecs(tx, l.specs)
		if err != nil {
			return err
		}
		if err := s.addRoleMembers(tx, created, members, me, l.admin, notes); err != nil {
			return err
		}
	}
	return nil
}

// wordAt is the identifier at byte loc of the query string stmt came
// from, or fallback.
func wordAt(stmt parse.Statement, loc int, fallback string) string {
	i := loc - stmt.Offset
	if i < 0 || i >= len(stmt.Text) {
		return fallback
	}
	j := i
	for j < len(stmt.Text) {
		c := stmt.Text[j]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			break
		}
		j++
	}
	if j == i {
		return fallback
	}
	return stmt.Text[i:j]
}
