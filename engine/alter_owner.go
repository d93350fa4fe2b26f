package engine

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// ALTER ... OWNER TO, as PostgreSQL 15's ATExecChangeOwner,
// AlterSchemaOwner_internal and AlterForeignServerOwner_internal: a
// superuser may give any object to any role; anyone else must have the
// owner's privileges, be a member of the new owner (is_member_of_role,
// which ignores INHERIT), and, for a relation, the new owner must hold
// CREATE on its schema; for a schema, the current user must hold CREATE
// on the database. Giving an object to its owner does nothing (and, but
// for relations, checks nothing). The ACL follows the owner
// (aclnewowner): items naming the old owner name the new one.
//
// ALTER STREAMING TABLE and ALTER SOURCE ... OWNER TO reach here as
// ALTER MATERIALIZED VIEW and ALTER FOREIGN TABLE, ALTER SECRET as ALTER
// SERVER (grant_rewrite.go).

// isChangeOwner reports whether an ALTER TABLE is OWNER TO alone.
func isChangeOwner(a *pg_query.AlterTableStmt) bool {
	return len(a.Cmds) == 1 && a.Cmds[0].GetAlterTableCmd().GetSubtype() == pg_query.AlterTableType_AT_ChangeOwner
}

// alterRelationOwner runs ALTER TABLE|VIEW|STREAMING TABLE|SOURCE name
// OWNER TO role.
func (s *Session) alterRelationOwner(a *pg_query.AlterTableStmt) (wire.Result, error) {
	tag := map[pg_query.ObjectType]string{
		pg_query.ObjectType_OBJECT_VIEW:          "ALTER VIEW",
		pg_query.ObjectType_OBJECT_MATVIEW:       "ALTER STREAMING TABLE",
		pg_query.ObjectType_OBJECT_FOREIGN_TABLE: "ALTER SOURCE",
	}[a.Objtype]
	if tag == "" {
		tag = "ALTER TABLE"
	}
	rv := a.Relation
	if err := s.requireNamedSchemaUsage(rv.GetSchemaname()); err != nil { // owner.go
		return nil, err
	}
	rel, err := s.eng.cat.LookupRelation(s.searchPath(), rv.GetSchemaname(), rv.GetRelname())
	if err != nil {
		if a.MissingOk && sqlerr.From(err).Code == sqlerr.UndefinedTable {
			s.runIO.Notice("NOTICE", sqlerr.SuccessfulCompletion, "relation \""+rv.GetRelname()+"\" does not exist, skipping")
			return commandResult(tag), nil
		}
		return nil, sqlerr.PositionIfNone(err, int(rv.GetLocation())+1)
	}
	if err := s.requireOwner(rel); err != nil {
		return nil, err
	}
	want := map[pg_query.ObjectType]catalog.RelKind{
		pg_query.ObjectType_OBJECT_VIEW:          catalog.KindView,
		pg_query.ObjectType_OBJECT_MATVIEW:       catalog.KindStreamingTable,
		pg_query.ObjectType_OBJECT_FOREIGN_TABLE: catalog.KindSource,
	}
	if k, ok := want[a.Objtype]; ok && rel.Kind != k {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "\"%s\" is not a %s", rv.GetRelname(), k.Noun())
	}
	newOwner, err := s.roleNamed(a.Cmds[0].GetAlterTableCmd().GetNewowner())
	if err != nil {
		return nil, err
	}
	if rel.Owner == newOwner.OID {
		return commandResult(tag), nil
	}
	if !s.superuser {
		if err := s.requireSetRole(newOwner); err != nil {
			return nil, err
		}
		if sc, ok := s.eng.cat.Schema(rel.Schema); ok {
			have, _ := s.eng.cat.Privileges(newOwner.OID, catalog.ObjSchema, sc.EffectiveACL(), sc.Owner)
			if have&catalog.PrivCreate == 0 {
				return nil, sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied for schema %s", sc.Name)
			}
		}
	}
	old := rel.Owner
	_, err = s.eng.cat.UpdateRelation(rel.OID, func(r *catalog.Relation) error {
		r.Owner = newOwner.OID
		r.ACL = r.ACL.NewOwner(old, newOwner.OID)
		for i := range r.Columns {
			r.Columns[i].ACL = r.Columns[i].ACL.NewOwner(old, newOwner.OID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return commandResult(tag), nil
}

// alterOwner runs ALTER SCHEMA|SECRET name OWNER TO role (AlterOwnerStmt).
func (s *Session) alterOwner(a *pg_query.AlterOwnerStmt) (wire.Result, error) {
	newOwner, err := s.roleNamed(a.Newowner)
	if err != nil {
		return nil, err
	}
	name := a.Object.GetString_().GetSval()
	switch a.ObjectType {
	case pg_query.ObjectType_OBJECT_SCHEMA:
		sc, ok := s.eng.cat.Schema(name)
		if !ok {
			return nil, sqlerr.New(sqlerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
		}
		if sc.Owner == newOwner.OID {
			return commandResult("ALTER SCHEMA"), nil
		}
		if !s.superuser {
			me := s.currentRoleOID()
			if !s.eng.cat.HasPrivsOfRole(me, sc.Owner) {
				return nil, sqlerr.New(sqlerr.InsufficientPrivilege, "must be owner of schema %s", name)
			}
			if err := s.requireSetRole(newOwner); err != nil {
				return nil, err
			}
			if err := s.requireDatabaseCreate(); err != nil {
				return nil, err
			}
		}
		old := sc.Owner
		_, err := s.eng.cat.UpdateSchema(name, func(sc *catalog.Schema) error {
			// The initdb ACL of public is materialised first, so that
			// it follows the owner as PostgreSQL's stored nspacl does.
			sc.ACL = sc.EffectiveACL().NewOwner(old, newOwner.OID)
			sc.Owner = newOwner.OID
			return nil
		})
		if err != nil {
			return nil, err
		}
		return commandResult("ALTER SCHEMA"), nil
	case pg_query.ObjectType_OBJECT_FOREIGN_SERVER:
		sec, ok := s.eng.cat.LookupSecret(name)
		if !ok {
			return nil, sqlerr.New(sqlerr.UndefinedObject, "secret \"%s\" does not exist", name)
		}
		if sec.Owner == newOwner.OID {
			return commandResult("ALTER SECRET"), nil
		}
		if !s.superuser {
			if !s.eng.cat.HasPrivsOfRole(s.currentRoleOID(), sec.Owner) {
				return nil, sqlerr.New(sqlerr.InsufficientPrivilege, "must be owner of secret %s", name)
			}
			if err := s.requireSetRole(newOwner); err != nil {
				return nil, err
			}
		}
		old := sec.Owner
		_, err := s.eng.cat.UpdateSecret(name, func(sec *catalog.Secret) error {
			sec.ACL = sec.ACL.NewOwner(old, newOwner.OID)
			sec.Owner = newOwner.OID
			return nil
		})
		if err != nil {
			return nil, err
		}
		return commandResult("ALTER SECRET"), nil
	}
	return nil, sqlerr.New(sqlerr.FeatureNotSupported, "ALTER %s ... OWNER TO is not supported",
		objectTypeWords(a.ObjectType))
}

// roleNamed resolves OWNER TO's role: 42704 for an unknown one.
func (s *Session) roleNamed(spec *pg_query.RoleSpec) (*catalog.Role, error) {
	name := s.roleSpecName(spec)
	r, ok := s.eng.cat.Role(name)
	if !ok || spec.GetRoletype() == pg_query.RoleSpecType_ROLESPEC_PUBLIC {
		return nil, sqlerr.New(sqlerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	return r, nil
}

// requireSetRole is PostgreSQL 15's check_is_member_of_role for the
// current user: membership (through any path, INHERIT or not) in role.
func (s *Session) requireSetRole(role *catalog.Role) error {
	if s.superuser || s.eng.cat.IsMemberOf(s.currentRoleOID(), role.OID) {
		return nil
	}
	return sqlerr.New(sqlerr.InsufficientPrivilege, "must be member of role \"%s\"", role.Name)
}

// requireDatabaseCreate checks CREATE on the session's database:
// 42501 "permission denied for database d" (CREATE SCHEMA, ALTER SCHEMA
// OWNER TO).
func (s *Session) requireDatabaseCreate() error {
	if s.superuser {
		return nil
	}
	db, ok := s.databaseNamed(s.db)
	if !ok {
		return nil
	}
	have, _ := s.eng.cat.Privileges(s.currentRoleOID(), catalog.ObjDatabase, db.ACL, catalog.BootstrapRoleOID)
	if have&catalog.PrivCreate == 0 {
		return sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied for database %s", s.db)
	}
	return nil
}

// objectTypeWords is an object type in SQL's words ("FOREIGN TABLE").
func objectTypeWords(t pg_query.ObjectType) string {
	return strings.ReplaceAll(strings.TrimPrefix(t.String(), "OBJECT_"), "_", " ")
}
