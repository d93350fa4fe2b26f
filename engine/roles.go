package engine

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// roleOptions reads PASSWORD / SUPERUSER / LOGIN options of CREATE and
// ALTER ROLE.
type roleOptions struct {
	password  *string
	superuser *bool
	login     *bool
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
		case "inherit", "createdb", "createrole", "connectionlimit", "validUntil", "isreplication", "bypassrls":
			// Accepted for compatibility; weir has no such privileges.
		default:
			return ro, sqlerr.New(sqlerr.FeatureNotSupported, "role option \"%s\" is not supported", d.Defname)
		}
	}
	return ro, nil
}

func verifierFor(password *string) (string, error) {
	if password == nil || *password == "" {
		return "", nil
	}
	return wire.SCRAMVerifier(*password)
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
	if name != s.user {
		if err := s.requireSuperuser("alter role"); err != nil {
			return nil, err
		}
	}
	ro, err := parseRoleOptions(a.Options)
	if err != nil {
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
