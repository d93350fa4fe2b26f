package engine

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// roleOptions reads PASSWORD / SUPERUSER / LOGIN options of CREATE and
// ALTER ROLE. others counts the options weir accepts and ignores
// (INHERIT, CREATEDB, ...): changing them is still a privilege question.
type roleOptions struct {
	password    *string
	superuser   *bool
	login       *bool
	createRole  *bool
	createDB    *bool
	replication bool // REPLICATION / NOREPLICATION given
	bypassRLS   bool // BYPASSRLS / NOBYPASSRLS given
	bypassOn    bool // BYPASSRLS (not NOBYPASSRLS)
	inherit     *bool
	others      int
	// CREATE ROLE's IN ROLE, ROLE and ADMIN lists (role_members.go).
	inRoles, members, adminMembers []*pg_query.RoleSpec
}

// defElemBool reads a DefElem's boolean argument (the grammar gives
// SUPERUSER / NOSUPERUSER as an integer or a boolean).
func defElemBool(d *pg_query.DefElem) bool {
	if d.Arg.GetInteger() != nil {
		return d.Arg.GetInteger().Ival != 0
	}
	return d.Arg.GetBoolean().GetBoolval()
}

func roleSpecList(d *pg_query.DefElem) []*pg_query.RoleSpec {
	var out []*pg_query.RoleSpec
	for _, n := range d.Arg.GetList().GetItems() {
		out = append(out, n.GetRoleSpec())
	}
	return out
}

func parseRoleOptions(opts []*pg_query.Node) (roleOptions, error) {
	var ro roleOptions
	for _, o := range opts {
		d := o.GetDefElem()
		switch d.Defname {
		case "password":
			if d.Arg == nil {
				empty := ""
				ro.password = &empty
				continue
			}
			v, err := defElemString(d)
			if err != nil {
				return ro, err
			}
			ro.password = &v
		case "superuser":
			v := defElemBool(d)
			ro.superuser = &v
		case "canlogin":
			v := defElemBool(d)
			ro.login = &v
		case "createrole":
			v := defElemBool(d)
			ro.createRole = &v
			ro.others++ // only a role with CREATEROLE may change it
		case "createdb":
			v := defElemBool(d)
			ro.createDB = &v
			ro.others++
		case "addroleto":
			ro.inRoles = append(ro.inRoles, roleSpecList(d)...)
		case "rolemembers":
			ro.members = append(ro.members, roleSpecList(d)...)
			ro.others++
		case "adminmembers":
			ro.adminMembers = append(ro.adminMembers, roleSpecList(d)...)
		case "isreplication":
			ro.replication = true
		case "bypassrls":
			ro.bypassRLS, ro.bypassOn = true, defElemBool(d)
		case "inherit":
			v := defElemBool(d)
			ro.inherit = &v
			ro.others++ // only a role with CREATEROLE may change it
		case "connectionlimit", "validUntil":
			// Accepted for compatibility; weir has no such privileges.
			ro.others++
		default:
			return ro, sqlerr.New(sqlerr.FeatureNotSupported, "role option \"%s\" is not supported", d.Defname)
		}
	}
	return ro, nil
}

// verifierFor is what pg_authid keeps for a PASSWORD option. As in
// PostgreSQL, a value that already is a SCRAM-SHA-256 verifier (what psql's
// \password and pgAdmin send, so the password never travels) is stored as
// it is; anything else is a plaintext password and is hashed here.
func verifierFor(password *string) (string, error) {
	if password == nil || *password == "" {
		return "", nil
	}
	if wire.IsSCRAMVerifier(*password) {
		return *password, nil
	}
	if isMD5Hash(*password) {
		return "", sqlerr.New(sqlerr.FeatureNotSupported, "MD5 password hashes are not supported").
			WithHint("Give the password in plain text or as a SCRAM-SHA-256 verifier.")
	}
	return wire.SCRAMVerifier(*password)
}

// checkPasswordEncryption accepts PostgreSQL 15's two values.
func checkPasswordEncryption(v string) (string, error) {
	switch lv := strings.ToLower(strings.TrimSpace(v)); lv {
	case "scram-sha-256", "md5":
		return lv, nil
	}
	return "", sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for parameter \"password_encryption\": \"%s\"", v).
		WithHint("Available values: md5, scram-sha-256.")
}

// isMD5Hash recognises PostgreSQL's md5 password form: "md5" and 32 hex
// digits.
func isMD5Hash(p string) bool {
	if len(p) != 35 || p[:3] != "md5" {
		return false
	}
	for _, c := range p[3:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func (s *Session) requireSuperuser(what string) error {
	if !s.superuser {
		return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied to %s", what)
	}
	return nil
}

// createRole is PostgreSQL 15's CreateRole: superuser-only attributes
// need a superuser, anything else CREATEROLE; the role and the
// memberships of IN ROLE / ROLE / ADMIN are stored together or not at
// all.
func (s *Session) createRole(c *pg_query.CreateRoleStmt) (wire.Result, error) {
	var notes roleNotices // memberships already there
	ro, err := parseRoleOptions(c.Options)
	if err != nil {
		return nil, err
	}
	super := ro.superuser != nil && *ro.superuser
	err = s.eng.cat.UpdateRoles(func(tx *catalog.RoleTx) error {
		if err := s.mayCreateRole(tx, super, ro); err != nil {
			return err
		}
		v, err := verifierFor(ro.password)
		if err != nil {
			return err
		}
		login := c.StmtType == pg_query.RoleStmtType_ROLESTMT_USER
		if ro.login != nil {
			login = *ro.login
		}
		r := catalog.Role{Name: c.Role, Superuser: super, CanLogin: login, Verifier: v,
			CreateRole: ro.createRole != nil && *ro.createRole, CreateDB: ro.createDB != nil && *ro.createDB,
			BypassRLS: ro.bypassOn}
		r.NoInherit = ro.inherit != nil && !*ro.inherit
		created, err := tx.CreateRole(r)
		if err != nil {
			return err
		}
		return s.addCreatedRoleMemberships(tx, created, ro, &notes)
	})
	notes.send(s.runIO)
	if err != nil {
		return nil, err
	}
	return commandResult("CREATE ROLE"), nil
}

func (s *Session) mayCreateRole(tx *catalog.RoleTx, super bool, ro roleOptions) error {
	denied := func(msg string) error { return sqlerr.New(sqlerr.InsufficientPrivilege, "%s", msg) }
	switch {
	case s.superuser:
		return nil
	case super:
		return denied("must be superuser to create superusers")
	case ro.replication:
		return denied("must be superuser to create replication users")
	case ro.bypassRLS:
		return denied("must be superuser to create bypassrls users")
	case !s.hasCreateRole(tx):
		return denied("permission denied to create role")
	}
	return nil
}

// hasCreateRole is PostgreSQL's have_createrole_privilege for the current
// user, as the catalog has it now.
func (s *Session) hasCreateRole(tx *catalog.RoleTx) bool {
	if s.superuser {
		return true
	}
	r, ok := tx.Role(s.user)
	return ok && (r.Superuser || r.CreateRole)
}

func (s *Session) alterRole(a *pg_query.AlterRoleStmt) (wire.Result, error) {
	name := s.roleSpecName(a.Role)
	ro, err := parseRoleOptions(a.Options)
	if err != nil {
		return nil, err
	}
	if err := s.mayAlterRole(name, ro); err != nil {
		return nil, err
	}
	if ro.members != nil {
		// ALTER GROUP g ADD USER u / DROP USER u (the only form with a
		// member list) is GRANT g TO u / REVOKE g FROM u.
		var notes roleNotices
		err := s.eng.cat.UpdateRoles(func(tx *catalog.RoleTx) error {
			role, err := lookupRole(tx, name)
			if err != nil {
				return err
			}
			members, err := s.lookupRoleSpecs(tx, ro.members)
			if err != nil {
				return err
			}
			if a.Action < 0 {
				return s.deleteRoleMembers(tx, role, members, false, &notes)
			}
			me, err := s.currentRole(tx)
			if err != nil {
				return err
			}
			return s.addRoleMembers(tx, role, members, me, false, &notes)
		})
		notes.send(s.runIO)
		if err != nil {
			return nil, err
		}
		return commandResult("ALTER ROLE"), nil
	}
	ch := catalog.RoleChange{Superuser: ro.superuser, CanLogin: ro.login, CreateRole: ro.createRole, CreateDB: ro.createDB}
	if ro.bypassRLS {
		ch.BypassRLS = &ro.bypassOn
	}
	if ro.inherit != nil {
		noInherit := !*ro.inherit
		ch.NoInherit = &noInherit
	}
	if ro.password != nil {
		v, err := verifierFor(ro.password)
		if err != nil {
			return nil, err
		}
		ch.Verifier = &v
	}
	if _, err := s.eng.cat.AlterRole(name, ch); err != nil {
		return nil, err
	}
	return commandResult("ALTER ROLE"), nil
}

// mayAlterRole applies PostgreSQL 15's rules (AlterRole in user.c): a
// role with CREATEROLE may alter roles that are not superusers; a role
// without it may change its own password and nothing else.
func (s *Session) mayAlterRole(name string, ro roleOptions) error {
	target, ok := s.eng.cat.Role(name)
	if !ok {
		return sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	if target.Predefined() {
		return sqlerr.New("42939", "role name \"%s\" is reserved", name).WithDetail("Cannot alter reserved roles.")
	}
	if s.superuser {
		return nil
	}
	createRole := false
	if me, ok := s.eng.cat.Role(s.user); ok {
		createRole = me.CreateRole || me.Superuser
	}
	denied := func(msg string) error { return sqlerr.New(sqlerr.InsufficientPrivilege, "%s", msg) }
	switch {
	case target.Superuser || ro.superuser != nil:
		return denied("must be superuser to alter superuser roles or change superuser attribute")
	case ro.replication:
		return denied("must be superuser to alter replication roles or change replication attribute")
	case ro.bypassRLS:
		return denied("must be superuser to change bypassrls attribute")
	case createRole:
	case ro.login != nil || ro.others > 0 || ro.password == nil || name != s.user:
		return denied("permission denied")
	}
	return nil
}

// dropRole is PostgreSQL 15's DropRole: CREATEROLE is needed, a
// superuser to drop a superuser; the roles and their memberships go in
// one transaction.
func (s *Session) dropRole(d *pg_query.DropRoleStmt, io wire.ExecIO) (wire.Result, error) {
	var notes roleNotices
	err := s.eng.cat.UpdateRoles(func(tx *catalog.RoleTx) error {
		if !s.hasCreateRole(tx) {
			return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied to drop role")
		}
		for _, r := range d.Roles {
			name := s.roleSpecName(r.GetRoleSpec())
			target, ok := tx.Role(name)
			if !ok {
				if d.MissingOk {
					notes.add("NOTICE", sqlerr.UndefinedObject, fmt.Sprintf("role \"%s\" does not exist, skipping", name))
					continue
				}
				return sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
			}
			switch {
			case name == s.user:
				return sqlerr.New("55006", "current user cannot be dropped")
			case name == s.ids.session.name:
				return sqlerr.New("55006", "session user cannot be dropped")
			case target.Superuser && !s.superuser:
				return sqlerr.New(sqlerr.InsufficientPrivilege, "must be superuser to drop superusers")
			}
			if owned := tx.Dependents(target.OID); len(owned) > 0 { // catalog/role_dependents.go
				return sqlerr.New("2BP01", "role \"%s\" cannot be dropped because some objects depend on it", name).
					WithDetail(strings.Join(owned, "\n"))
			}
			if err := tx.DropRole(name); err != nil {
				return err
			}
		}
		return nil
	})
	notes.send(io)
	if err != nil {
		return nil, err
	}
	return commandResult("DROP ROLE"), nil
}
