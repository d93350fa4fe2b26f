package engine

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
)

// systemRelation is a pg_catalog, information_schema or weir_catalog
// relation as DESCRIBE shows it: such relations are computed from the
// catalog when read, not stored, so the stored catalog does not hold
// them; their columns are those a SELECT * of them binds to, and they are
// described as the views they are in PostgreSQL (owned by the bootstrap
// superuser, OID 10).
func (s *Session) systemRelation(schema, name string) (*catalog.Relation, bool) {
	sel := "SELECT * FROM " + quoteQualified(schema, name)
	tree, err := pg_query.Parse(sel)
	if err != nil || len(tree.Stmts) != 1 {
		return nil, false
	}
	q, err := planner.BindQuery(s.catalogView(), tree.Stmts[0].Stmt, nil)
	if err != nil {
		return nil, false
	}
	if schema == "" {
		schema = "pg_catalog"
	}
	rel := &catalog.Relation{Schema: schema, Name: name, Kind: catalog.KindView, Owner: 10,
		ViewSQL: "(computed by weir from its catalog when read)"}
	for _, c := range q.Plan.Columns() {
		if c.Field != "" {
			continue
		}
		rel.Columns = append(rel.Columns, catalog.Column{Name: c.Name, Type: c.T})
	}
	return rel, true
}
