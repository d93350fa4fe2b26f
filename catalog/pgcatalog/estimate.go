package pgcatalog

import (
	"sync"

	"github.com/weir-sql/weir/catalog"
)

// EstimateRows guesses how many rows t holds for the catalog cat without
// building them: the join planner orders a query's relations by size, and
// the catalog queries of JDBC, SQLAlchemy and psql join a dozen of these.
// The guess counts the objects each relation lists; it is exact for the
// main ones and a fixed small number for the rest.
func EstimateRows(t *Table, cat *catalog.Catalog) float64 {
	virtualOnce.Do(countVirtual)
	if emptyNames[t.Name] && t.Schema == "pg_catalog" {
		return 1
	}
	var rels, cols, pks, pkCols, schemas float64
	if cat != nil {
		for _, r := range cat.Relations() {
			rels++
			cols += float64(len(r.Columns))
			if len(r.PrimaryKey) > 0 {
				pks++
				pkCols += float64(len(r.PrimaryKey))
			}
		}
		schemas = float64(len(cat.Schemas()))
	}
	switch t.Schema + "." + t.Name {
	case "pg_catalog.pg_class", "information_schema.tables", "pg_catalog.pg_tables":
		return virtualRels + rels + pks
	case "pg_catalog.pg_attribute", "information_schema.columns":
		return virtualCols + cols + pkCols
	case "pg_catalog.pg_index", "pg_catalog.pg_constraint", "information_schema.table_constraints":
		return pks
	case "information_schema.key_column_usage":
		return pkCols
	case "pg_catalog.pg_namespace", "information_schema.schemata":
		return schemas + 2
	case "pg_catalog.pg_attrdef":
		return cols / 4
	case "pg_catalog.pg_type", "pg_catalog.pg_proc", "pg_catalog.pg_settings", "information_schema.routines":
		return 1000
	}
	return 10
}

var (
	virtualOnce              sync.Once
	virtualRels, virtualCols float64
	emptyNames               map[string]bool
)

func countVirtual() {
	for _, t := range Tables() {
		virtualRels++
		virtualCols += float64(len(t.Columns))
	}
	emptyNames = map[string]bool{"pg_description": true, "pg_shdescription": true}
	for _, t := range emptyCatalogs() {
		emptyNames[t.Name] = true
	}
}
