package pgcatalog

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

func pgNamespace() *Table {
	cols := []catalog.Column{
		col("oid", types.Oid),
		col("nspname", types.Name),
		col("nspowner", types.Oid),
		col("nspacl", aclitemArray),
	}
	return &Table{OID: 2615, Schema: "pg_catalog", Name: "pg_namespace", Kind: 'r', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, sc := range s.schemas() {
				rb.add(sc.OID, sc.Name, sc.Owner, s.schemaACL(sc))
			}
			return rb.finish()
		}}
}

// schemaACL is nspacl: initdb gives the system schemas and public an
// explicit ACL (their owner's USAGE and CREATE, PUBLIC's USAGE), which
// psql's \dn+ and tools show; schemas created later have NULL, the
// owner-only default, as weir has no GRANT on schemas.
func (s *Snapshot) schemaACL(sc *catalog.Schema) any {
	switch sc.OID {
	case catalog.PGCatalogOID, catalog.PublicOID, catalog.InformationSchemaOID, WeirCatalogOID:
	default:
		return nil
	}
	owner := aclName(s.roleName(sc.Owner))
	return []any{owner + "=UC/" + owner, "=U/" + owner}
}

// aclName is a role name as aclitem's text form shows it, double-quoted
// when it has characters other than letters, digits and _.
func aclName(name string) string {
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		}
	}
	return name
}
