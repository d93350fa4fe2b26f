package engine

import (
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
	replication bool // REPLICATION / NOREPLICATION given
	bypassRLS   bool // BYPASSRLS / NOBYPASSRLS given
	others      int
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
			v := d.Arg.GetBoolean().GetBoolval()
			if d.Arg.GetInteger() != nil {
				v = d.Arg.GetInteger().Ival != 0
			}
			ro.superuser = &v
		case "canlogin":
			v := d.Arg.GetBoolean().GetBoolval()
			if d.Arg.GetInteger() != nil {
				v = d.Arg.GetInteger().Ival != 0
			}
			ro.login = &v
		case "isreplication":
			ro.replication = true
		case "bypassrls":
			ro.bypassRLS = true
		case "inherit", "createdb", "createrole", "connectionlimit", "validUntil", "addroleto", "rolemembers", "adminmembers":
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

func (s *Session) createRole(c *pg_query.CreateRoleStmt) (wire.Result, error) {
	if err := s.requireSuperuser("create role"); err != nil {
		return nil, err
	}
	ro, err := parseRoleOptions(c.Options)
	if err != nil {
		return nil, err
	}
	v, err := verifierFor(ro.password)
	if err != nil {
		return nil, err
	}
	login := c.StmtType == pg_query.RoleStmtType_ROLESTMT_USER
	if ro.login != nil {
		login = *ro.login
	}
	super := ro.superuser != nil && *ro.superuser
	if _, err := s.eng.cat.CreateRole(c.Role, v, super, login); err != nil {
		return nil, err
	}
	return commandResult("CREATE ROLE"), nil
}

func (s *Session) alterRole(a *pg_query.AlterRoleStmt) (wire.Result, error) {
	name := a.Role.GetRolename()
	if a.Role.Roletype == pg_query.RoleSpecType_ROLESPEC_CURRENT_USER || a.Role.Roletype == pg_query.RoleSpecType_ROLESPEC_SESSION_USER {
		name = s.user
	}
	ro, err := parseRoleOptions(a.Options)
	if err != nil {
		return nil, err
	}
	if err := s.mayAlterRole(name, ro); err != nil {
		return nil, err
	}
	ch := catalog.RoleChange{Superuser: ro.superuser, CanLogin: ro.login}
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

// mayAlterRole applies PostgreSQL 15's rules (AlterRole in user.c) for a
// role without CREATEROLE, which is every weir role but a superuser: it
// may change its own password and nothing else.
func (s *Session) mayAlterRole(name string, ro roleOptions) error {
	target, ok := s.eng.cat.Role(name)
	if !ok {
		return sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	if s.superuser {
		return nil
	}
	denied := func(msg string) error { return sqlerr.New(sqlerr.InsufficientPrivilege, "%s", msg) }
	switch {
	case target.Superuser || ro.superuser != nil:
		return denied("must be superuser to alter superuser roles or change superuser attribute")
	case ro.replication:
		return denied("must be superuser to alter replication roles or change replication attribute")
	case ro.bypassRLS:
		return denied("must be superuser to change bypassrls attribute")
	case ro.login != nil || ro.others > 0 || ro.password == nil || name != s.user:
		return denied("permission denied")
	}
	return nil
}

func (s *Session) dropRole(d *pg_query.DropRoleStmt, io wire.ExecIO) (wire.Result, error) {
	if err := s.requireSuperuser("drop role"); err != nil {
		return nil, err
	}
	for _, r := range d.Roles {
		name := r.GetRoleSpec().GetRolename()
		if name == s.user {
			return nil, sqlerr.New("55006", "current user cannot be dropped")
		}
		if err := s.eng.cat.DropRole(name, d.MissingOk); err != nil {
			if _, err := noticeOr(err, io, ""); err != nil {
				return nil, err
			}
		}
	}
	return commandResult("DROP ROLE"), nil
}
