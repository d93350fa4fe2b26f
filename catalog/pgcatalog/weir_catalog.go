package pgcatalog

import (
	"github.com/weir-sql/weir/catalog"
)

// weir_catalog is the schema of weir's own virtual relations
// (streaming_progress, ...). The engine computes their rows itself; it
// describes them in Snapshot.EngineRelations so that pg_namespace,
// pg_class, pg_attribute and pg_type list them like PostgreSQL's own
// system views, and psql's \d weir_catalog.* and drivers' getTables and
// getColumns find them.
const (
	WeirCatalogSchema        = "weir_catalog"
	WeirCatalogOID    uint32 = 13900
)

// EngineRelation is one relation the engine serves itself.
type EngineRelation struct {
	OID     uint32
	Schema  string // WeirCatalogSchema
	Name    string
	Columns []catalog.Column
}

// weirCatalogSchema is the pg_namespace entry of weir_catalog.
func weirCatalogSchemaEntry() *catalog.Schema {
	return &catalog.Schema{OID: WeirCatalogOID, Name: WeirCatalogSchema, Owner: catalog.BootstrapRoleOID}
}

// engineRelations are s.EngineRelations as relations (views owned by the
// bootstrap role, as PostgreSQL's system views are).
func (s *Snapshot) engineRelations() []relation {
	out := make([]relation, 0, len(s.EngineRelations))
	for _, r := range s.EngineRelations {
		out = append(out, relation{OID: r.OID, Schema: r.Schema, Name: r.Name, Kind: 'v',
			Columns: r.Columns, Owner: catalog.BootstrapRoleOID, Virtual: true})
	}
	return out
}
