package pgcatalog

import (
	"github.com/weir-sql/weir/sql/types"
)

// Catalogs of privileges on objects weir does not have, empty with
// PostgreSQL 15's columns, so that psql's \ddp (default privileges) and
// \dl+ (large objects) print their empty lists as PostgreSQL does.
func privilegeCatalogs() []*Table {
	return []*Table{
		emptyCatalog(826, "pg_default_acl",
			col("oid", types.Oid),
			col("defaclrole", types.Oid),
			col("defaclnamespace", types.Oid),
			col("defaclobjtype", types.Char),
			col("defaclacl", aclitemArray)),
		emptyCatalog(2995, "pg_largeobject_metadata",
			col("oid", types.Oid),
			col("lomowner", types.Oid),
			col("lomacl", aclitemArray)),
		emptyCatalog(3394, "pg_init_privs",
			col("objoid", types.Oid),
			col("classoid", types.Oid),
			col("objsubid", types.Int4),
			col("privtype", types.Char),
			col("initprivs", aclitemArray)),
	}
}
