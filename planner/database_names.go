package planner

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// CheckDatabaseNames refuses names qualified by another database than db,
// as PostgreSQL does (0A000 "cross-database references are not
// implemented"): a relation's catalog.schema.table anywhere in the
// statement (FROM, INSERT, CREATE, DROP …) and a column's
// catalog.schema.table.column. A qualifier that is the current database is
// accepted and ignored, so Databricks' three-part names work when the
// catalog is the database the client connected to.
func CheckDatabaseNames(stmt *pg_query.Node, db string) error {
	if stmt == nil {
		return nil
	}
	var bad error
	walkParse(stmt.ProtoReflect(), func(m protoreflect.Message) bool {
		if bad != nil {
			return false
		}
		switch x := m.Interface().(type) {
		case *pg_query.RangeVar:
			if x.Catalogname != "" && x.Catalogname != db {
				bad = sqlerr.At(sqlerr.FeatureNotSupported, int(x.Location)+1, "cross-database references are not implemented: \"%s.%s.%s\"", x.Catalogname, x.Schemaname, x.Relname)
			}
		case *pg_query.ColumnRef:
			if len(x.Fields) == 4 {
				names := stringList(x.Fields)
				if len(names) == 4 && names[0] != db {
					bad = sqlerr.At(sqlerr.FeatureNotSupported, int(x.Location)+1, "cross-database references are not implemented: %s", strings.Join(names, "."))
				}
			}
		case *pg_query.DropStmt:
			for _, o := range x.Objects {
				if l := o.GetList(); l != nil && len(l.Items) == 3 {
					names := stringList(l.Items)
					if len(names) == 3 && names[0] != db {
						bad = sqlerr.New(sqlerr.FeatureNotSupported, "cross-database references are not implemented: \"%s\"", strings.Join(names, "."))
					}
				}
			}
		}
		return true
	})
	return bad
}

// CheckQualifiedName checks a name a weir statement read as parts
// ([catalog.]schema.name): the catalog must be db.
func CheckQualifiedName(parts []string, db string) error {
	if len(parts) == 3 && parts[0] != db {
		return sqlerr.New(sqlerr.FeatureNotSupported, "cross-database references are not implemented: \"%s\"", strings.Join(parts, "."))
	}
	return nil
}

// DatabaseCatalog is implemented by catalogs that know the session's
// database, so that the binder can check a relation's catalog qualifier.
type DatabaseCatalog interface {
	CurrentDatabase() string
}

// checkRangeVarDatabase refuses a relation qualified by another database.
func (b *binder) checkRangeVarDatabase(rv *pg_query.RangeVar) error {
	if rv.Catalogname == "" {
		return nil
	}
	dc, ok := b.cat.(DatabaseCatalog)
	if !ok || dc.CurrentDatabase() == rv.Catalogname {
		return nil
	}
	return sqlerr.At(sqlerr.FeatureNotSupported, int(rv.Location)+1, "cross-database references are not implemented: \"%s.%s.%s\"", rv.Catalogname, rv.Schemaname, rv.Relname)
}
