package engine

import (
	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// checkSecretUsableBy checks that role may use secret name in connector
// options: its owner (or a member of the owner's role), a superuser, or
// a holder of USAGE on it (GRANT USAGE ON SECRET, like PostgreSQL's on a
// foreign server): otherwise 42501 "permission denied for secret name".
// An unknown secret is left to SecretValue's 42704. It is made when
// the value is resolved, as the role the connector runs as (CREATE's
// check, Session.requireSecretUsage in secret_usage.go, is the
// creator's).
func (e *Engine) checkSecretUsableBy(role uint32, name string) error {
	sec, ok := e.cat.LookupSecret(name)
	if !ok {
		return nil
	}
	have, _ := e.cat.Privileges(role, catalog.ObjSecret, sec.ACL, sec.Owner)
	if have&catalog.PrivUsage != 0 {
		return nil
	}
	return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied for secret %s", name)
}
