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

// schemaACL is nspacl: the ACL GRANT and REVOKE stored; otherwise initdb's
// explicit ACL for the system schemas and public (their owner's USAGE and
// CREATE, PUBLIC's USAGE), which psql's \dn+ and tools show; NULL (the
// owner-only default) for a schema created later and never granted on.
func (s *Snapshot) schemaACL(sc *catalog.Schema) any {
	if sc.ACL != nil {
		return s.aclText(sc.ACL)
	}
	switch sc.OID {
	case catalog.PGCatalogOID, catalog.PublicOID, catalog.InformationSchemaOID, WeirCatalogOID:
		return s.aclText(SchemaACL(sc))
	}
	return nil
}

// SchemaACL is the effective ACL of a schema (Schema.EffectiveACL), with
// weir_catalog usable by PUBLIC as the system schemas are.
func SchemaACL(sc *catalog.Schema) catalog.ACL {
	if sc.OID == WeirCatalogOID && sc.ACL == nil {
		return catalog.ACL{
			{Grantee: sc.Owner, Grantor: sc.Owner, Privs: catalog.PrivUsage | catalog.PrivCreate},
			{Grantee: 0, Grantor: sc.Owner, Privs: catalog.PrivUsage},
		}
	}
	return sc.EffectiveACL()
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
