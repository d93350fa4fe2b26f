package engine

import (
	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// checkConnect is PostgreSQL's CONNECT check at login (CheckMyDatabase):
// a role without CONNECT on the database, directly, through a group or
// through PUBLIC, is refused with FATAL 42501; a superuser always
// connects. The database's owner is the bootstrap superuser (weir's one
// database is initdb's), so its default ACL gives CONNECT to PUBLIC.
func (e *Engine) checkConnect(role *catalog.Role, db string) error {
	if role != nil && role.Superuser {
		return nil
	}
	d, ok := e.cat.Database(db)
	if !ok {
		return nil
	}
	var oid uint32
	if role != nil {
		oid = role.OID
	}
	have, _ := e.cat.Privileges(oid, catalog.ObjDatabase, d.ACL, catalog.BootstrapRoleOID)
	if have&catalog.PrivConnect != 0 {
		return nil
	}
	return &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InsufficientPrivilege,
		Message: "permission denied for database \"" + d.Name + "\"", Detail: "User does not have CONNECT privilege."}
}
