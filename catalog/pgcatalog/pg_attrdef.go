package pgcatalog

import (
	"regexp"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// pgAttrdef lists column defaults. adbin holds the default's SQL text
// rather than a node tree, so pg_get_expr can return it as is.
func pgAttrdef() *Table {
	cols := []catalog.Column{
		col("oid", types.Oid),
		col("adrelid", types.Oid),
		col("adnum", types.Int2),
		col("adbin", types.PgNodeTree),
	}
	return &Table{OID: 2604, Schema: "pg_catalog", Name: "pg_attrdef", Kind: 'r', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, r := range s.userRelations() {
				for i, c := range r.Columns {
					if c.Default != "" {
						rb.add(attrdefOID(r.OID, i+1), r.OID, int16(i+1), defaultExpr(c.Default, c.Type))
					}
				}
			}
			return rb.finish()
		}}
}

var bareStringLiteral = regexp.MustCompile(`^'([^']|'')*'$`)

// defaultExpr is a stored default as PostgreSQL's pg_get_expr shows it: a
// string constant was coerced to the column's type when the table was
// created, so it prints with a cast to that type ('none'::text,
// 'x'::character varying), without the typmod.
func defaultExpr(def string, t types.T) string {
	if !bareStringLiteral.MatchString(def) {
		return def
	}
	if t.OID == types.OidBpchar {
		return def + "::bpchar"
	}
	if _, ok := types.Lookup(t.OID); !ok {
		return def
	}
	return def + "::" + types.FormatType(t.OID, -1)
}
