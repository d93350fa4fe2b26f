package engine

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// GRANT and REVOKE on the objects that are not relations: schemas
// (USAGE, CREATE), the database (CONNECT, CREATE, TEMPORARY) and
// secrets (USAGE). Each is named by a plain identifier; the ACL change
// itself is grantOn's, as for tables.

// objectGrantTargets resolves the schemas, databases or secrets a GRANT
// names, in PostgreSQL's words when one does not exist.
func (s *Session) objectGrantTargets(g *pg_query.GrantStmt, kind catalog.ObjectKind) ([]grantTarget, error) {
	var out []grantTarget
	for _, n := range g.Objects {
		name := n.GetString_().GetSval()
		switch kind {
		case catalog.ObjSchema:
			sc, ok := s.eng.cat.Schema(name)
			if !ok {
				return nil, sqlerr.New(sqlerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
			}
			out = append(out, grantTarget{kind: kind, noun: "schema", name: name, owner: sc.Owner, acl: sc.EffectiveACL(),
				store: func(acl catalog.ACL, _ map[int]catalog.ACL) error {
					_, err := s.eng.cat.UpdateSchema(name, func(sc *catalog.Schema) error { sc.ACL = acl; return nil })
					return err
				}})
		case catalog.ObjDatabase:
			db, ok := s.databaseNamed(name)
			if !ok {
				return nil, sqlerr.New(sqlerr.InvalidCatalogName, "database \"%s\" does not exist", name)
			}
			stored := db.Name
			out = append(out, grantTarget{kind: kind, noun: "database", name: name, owner: catalog.BootstrapRoleOID, acl: db.ACL,
				store: func(acl catalog.ACL, _ map[int]catalog.ACL) error {
					_, err := s.eng.cat.UpdateDatabase(stored, func(d *catalog.Database) error { d.ACL = acl; return nil })
					return err
				}})
		case catalog.ObjSecret:
			sec, ok := s.eng.cat.LookupSecret(name)
			if !ok {
				return nil, sqlerr.New(sqlerr.UndefinedObject, "secret \"%s\" does not exist", name)
			}
			out = append(out, grantTarget{kind: kind, noun: "secret", name: name, owner: sec.Owner, acl: sec.ACL,
				store: func(acl catalog.ACL, _ map[int]catalog.ACL) error {
					_, err := s.eng.cat.UpdateSecret(name, func(sec *catalog.Secret) error { sec.ACL = acl; return nil })
					return err
				}})
		}
	}
	return out, nil
}

// databaseNamed is the database called name: the session's own database
// by whatever name the client connected with (weir has one database,
// catalog.DefaultDB, which every accepted name reaches), or another the
// catalog knows.
func (s *Session) databaseNamed(name string) (*catalog.Database, bool) {
	if db, ok := s.eng.cat.Database(name); ok {
		return db, true
	}
	if name == s.db {
		return s.eng.cat.Database(catalog.DefaultDB)
	}
	return nil, false
}

// checkConnect is PostgreSQL's CheckMyDatabase: a role that is not a
// superuser needs CONNECT on the database to start a session (FATAL
// 42501). PUBLIC holds CONNECT by default; REVOKE CONNECT ON DATABASE
// ... FROM PUBLIC makes the database open only to those granted it.
func (e *Engine) checkConnect(role *catalog.Role, name string) error {
	if role == nil || role.Superuser {
		return nil
	}
	db, ok := e.cat.Database(name)
	if !ok {
		return nil
	}
	if have, _ := e.cat.Privileges(role.OID, catalog.ObjDatabase, db.ACL, catalog.BootstrapRoleOID); have&catalog.PrivConnect != 0 {
		return nil
	}
	return &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InsufficientPrivilege,
		Message: "permission denied for database \"" + name + "\"", Detail: "User does not have CONNECT privilege."}
}
