package engine

import (
	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/expr"
)

// obj_description's answers (expr.ObjectDescriptions): the comments
// initdb puts on schemas public and pg_catalog, which psql's \dn+ shows,
// and the COMMENT of streaming tables, as pg_description lists them.

var _ expr.ObjectDescriptions = (*catalogView)(nil)

// schemaComments are initdb's comments on its schemas.
var schemaComments = map[uint32]string{
	catalog.PublicOID:    "standard public schema",
	catalog.PGCatalogOID: "system catalog schema",
}

func (v *catalogView) ObjectDescription(oid uint32, catalogName string) (string, bool) {
	switch catalogName {
	case "pg_namespace":
		c, ok := schemaComments[oid]
		return c, ok
	case "pg_class":
		if r, ok := v.s.eng.cat.RelationByOID(oid); ok && r.Streaming != nil && r.Streaming.HasComment {
			return r.Streaming.Comment, true
		}
	}
	return "", false
}
