package engine

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// SET ROLE and SET SESSION AUTHORIZATION, as PostgreSQL has them. A
// session has three identities: the role it authenticated as (fixed), its
// session user (SET SESSION AUTHORIZATION, superusers only) and its
// current user (SET ROLE), which is what privileges, current_user and
// is_superuser follow. DBeaver and pgAdmin send SET ROLE NONE / RESET
// ROLE when a connection returns to a pool.

// identity is one of the session's roles with its superuser flag, as it
// was when the session took it.
type identity struct {
	name      string
	superuser bool
}

// sessionIdentities keeps the authenticated and session users; the
// current user is Session.user / Session.superuser.
type sessionIdentities struct {
	auth, session identity
	role          string // the "role" setting: "none" or the role SET ROLE chose
	// defaults are the settings as the session started (built-in defaults
	// and startup parameters), which DISCARD ALL returns to.
	defaults map[string]string
}

func (s *Session) initIdentities() {
	id := identity{s.user, s.superuser}
	s.ids = sessionIdentities{auth: id, session: id, role: "none"}
	s.settings["role"] = "none"
}

// setIdentity handles SET/RESET of role and session_authorization; ok is
// false for every other setting.
func (s *Session) setIdentity(v *pg_query.VariableSetStmt, io wire.ExecIO) (wire.Result, bool, error) {
	var name string
	switch v.Name {
	case "role", "session_authorization":
	default:
		return nil, false, nil
	}
	tag := "SET"
	switch v.Kind {
	case pg_query.VariableSetKind_VAR_SET_VALUE:
		if len(v.Args) != 1 {
			return nil, true, sqlerr.New(sqlerr.SyntaxError, "SET %s takes only one argument", v.Name)
		}
		n, err := settingValue(v.Args[0])
		if err != nil {
			return nil, true, err
		}
		name = n
	case pg_query.VariableSetKind_VAR_SET_DEFAULT:
	case pg_query.VariableSetKind_VAR_RESET:
		tag = "RESET"
	default:
		return nil, true, sqlerr.New(sqlerr.FeatureNotSupported, "SET %s FROM CURRENT is not supported", v.Name)
	}
	if v.Name == "role" {
		if err := s.setRole(name, io); err != nil {
			return nil, true, err
		}
	} else if err := s.setSessionAuthorization(name, io); err != nil {
		return nil, true, err
	}
	return commandResult(tag), true, nil
}

// lookupIdentity finds a role by name, as of now.
func (s *Session) lookupIdentity(name string) (identity, error) {
	r, ok := s.eng.cat.Role(name)
	if !ok {
		return identity{}, sqlerr.New(sqlerr.InvalidParameterValue, "role \"%s\" does not exist", name)
	}
	return identity{r.Name, r.Superuser}, nil
}

// setRole makes name the current user; "" or "none" returns to the
// session user. The session user must be a member of the role (a
// superuser is a member of every role), as PostgreSQL's check_role has it.
func (s *Session) setRole(name string, io wire.ExecIO) error {
	if name == "" || name == "none" {
		s.ids.role = "none"
		s.becomeCurrent(s.ids.session, io)
		s.assign(mustSetting("role"), "none", io)
		return nil
	}
	id, err := s.lookupIdentity(name)
	if err != nil {
		return err
	}
	if !s.ids.session.superuser && !s.isMember(s.ids.session.name, id.name) {
		return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied to set role \"%s\"", name)
	}
	s.ids.role = id.name
	s.becomeCurrent(id, io)
	s.assign(mustSetting("role"), id.name, io)
	return nil
}

// setSessionAuthorization makes name the session and current user; ""
// (DEFAULT, RESET) returns to the authenticated role. Only a role that
// authenticated as a superuser may change it, as in PostgreSQL.
func (s *Session) setSessionAuthorization(name string, io wire.ExecIO) error {
	id := s.ids.auth
	if name != "" {
		var err error
		if id, err = s.lookupIdentity(name); err != nil {
			return err
		}
		if !s.ids.auth.superuser && id.name != s.ids.auth.name {
			return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied to set session authorization")
		}
	}
	s.ids.session = id
	s.ids.role = "none"
	s.becomeCurrent(id, io)
	s.assign(mustSetting("role"), "none", io)
	s.assign(mustSetting("session_authorization"), id.name, io)
	return nil
}

// becomeCurrent switches the current user and reports is_superuser.
func (s *Session) becomeCurrent(id identity, io wire.ExecIO) {
	s.user, s.superuser = id.name, id.superuser
	super := "off"
	if id.superuser {
		super = "on"
	}
	s.assign(mustSetting("is_superuser"), super, io)
}

func mustSetting(name string) *setting {
	st, ok := lookupSetting(name)
	if !ok {
		panic("engine: no setting " + name) // a programming error, fixed at build time
	}
	return st
}
