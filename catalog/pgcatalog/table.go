// Package pgcatalog defines weir's virtual system catalogs: the pg_catalog
// and information_schema relations that psql, JDBC, SQLAlchemy, Grafana and
// Metabase query to discover what a PostgreSQL 15 server holds. Their rows
// are computed on demand from weir's own catalog, so they are never stale
// and never stored.
//
// Column names and types follow PostgreSQL 15 exactly, because clients
// select them by name and decode them by type OID. Relations describing
// objects weir does not have (triggers, policies, publications, ...) exist
// with no rows, so that the queries that join them still run.
package pgcatalog

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// Table is one virtual relation.
type Table struct {
	// OID is PostgreSQL's own OID for the catalog where it is fixed; for
	// views (whose OIDs PostgreSQL assigns at initdb) a stable number below
	// catalog.FirstUserOID.
	OID    uint32
	Schema string // "pg_catalog" or "information_schema"
	Name   string
	// Kind is the pg_class.relkind: 'r' for catalogs, 'v' for system views.
	Kind    byte
	Columns []catalog.Column
	Rows    func(s *Snapshot) (arrow.RecordBatch, error)
}

// Column returns the index of the column called name, or -1.
func (t *Table) Column(name string) int {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return i
		}
	}
	return -1
}

// ArrowSchema builds the Arrow schema of the table's rows.
func (t *Table) ArrowSchema() *arrow.Schema {
	return arrowSchema(t.Columns)
}

// Snapshot is everything the rows of the virtual relations are computed
// from. The engine fills it per query.
type Snapshot struct {
	Cat        *catalog.Catalog
	Database   string // current database name
	User       string // current user name
	SearchPath []string
	Functions  []Function // from the engine's function registry
	Settings   []Setting
	// PID and ApplicationName describe the current session for
	// pg_stat_activity; zero values are fine.
	PID             int32
	ApplicationName string
	// Activity lists every session for pg_stat_activity, as the current
	// role may see them; nil shows only the current session.
	Activity func() []BackendActivity
	// EngineRelations are the relations the engine serves itself
	// (weir_catalog.streaming_progress), listed with the others.
	EngineRelations []EngineRelation
}

// Function is one entry of the engine's function registry, as pg_proc
// shows it.
type Function struct {
	// OID is the function's pg_proc OID; 0 lets pgcatalog assign one
	// (FunctionOIDBase + position in Snapshot.Functions).
	OID         uint32
	Name        string
	NumArgs     int
	ArgTypes    []types.T // optional; used for proargtypes when len == NumArgs
	RetType     types.T
	IsAggregate bool
	IsWindow    bool
	ReturnsSet  bool
}

// Setting is one run-time parameter, as pg_settings shows it.
type Setting struct {
	Name      string
	Setting   string
	Unit      string // "" for none
	Category  string
	ShortDesc string
	VarType   string // "bool", "integer", "string", "enum" or "real"
	Source    string // e.g. "default", "session"
	EnumVals  []string
	Context   string // "" means "user"
}

// FunctionOIDBase is where OIDs of functions without a fixed one start.
const FunctionOIDBase uint32 = 10000

// Derived OIDs of objects weir does not store: the index and constraint
// backing a primary key and the pg_attrdef rows. They are computed from the
// relation's OID so that they are stable across snapshots and never clash
// with OIDs the catalog hands out (those grow from 16384).
const (
	indexOIDBase      uint32 = 1 << 30
	constraintOIDBase uint32 = 1<<30 + 1<<29
	attrdefOIDBase    uint32 = 1 << 29
)

// IndexOID is the pg_class/pg_index OID of the primary key index of the
// relation relOID.
func IndexOID(relOID uint32) uint32 { return indexOIDBase + relOID }

// ConstraintOID is the pg_constraint OID of the primary key of relOID.
func ConstraintOID(relOID uint32) uint32 { return constraintOIDBase + relOID }

// RelationOfIndex returns the relation whose primary key index is oid.
func RelationOfIndex(oid uint32) (uint32, bool) {
	if oid < indexOIDBase || oid >= constraintOIDBase {
		return 0, false
	}
	return oid - indexOIDBase, true
}

// RelationOfConstraint returns the relation whose primary key constraint is oid.
func RelationOfConstraint(oid uint32) (uint32, bool) {
	if oid < constraintOIDBase {
		return 0, false
	}
	return oid - constraintOIDBase, true
}

// attrdefOID numbers a default by relation and column. Collisions would
// need relation OIDs 300k apart; nothing joins on adoid anyway.
func attrdefOID(relOID uint32, attnum int) uint32 {
	return attrdefOIDBase + (relOID-catalog.FirstUserOID)*1600 + uint32(attnum)
}

// PKIndexName is the name PostgreSQL gives a table's primary key index and
// constraint.
func PKIndexName(table string) string { return table + "_pkey" }

// registry is filled by init, not by a variable initializer, because the
// Rows functions of pg_class and pg_attribute read Tables() themselves.
var registry []*Table

func init() {
	registry = []*Table{
		pgNamespace(), pgClass(), pgAttribute(), pgType(), pgAttrdef(),
		pgIndex(), pgConstraint(), pgProc(), pgDatabase(),
		pgRoles(), pgUser(), pgAuthid(), pgAuthMembers(),
		pgAm(), pgDescription(), pgShdescription(), pgSettings(),
		pgTables(), pgViews(), pgMatviews(), pgStatUserTables(), pgStatActivity(), pgStatSSL(),
		pgCollation(), pgLanguage(), pgTablespace(), pgExtension(),
		pgPolicy(), pgPolicies(), // pg_policy.go
	}
	registry = append(registry, emptyCatalogs()...)
	registry = append(registry, privilegeCatalogs()...) // privilege_catalogs.go
	registry = append(registry, informationSchema()...)
}

// Tables returns every virtual relation, pg_catalog first, in a stable order.
func Tables() []*Table { return registry }

// Lookup finds a virtual relation. Schema "" means pg_catalog, which is
// implicitly first on every search path; information_schema relations
// must be qualified. It returns nil if there is none.
func Lookup(schema, name string) *Table {
	if schema == "" {
		schema = "pg_catalog"
	}
	for _, t := range registry {
		if t.Schema == schema && t.Name == name {
			return t
		}
	}
	return nil
}

// LookupOID finds a virtual relation by its pg_class OID; nil if none.
func LookupOID(oid uint32) *Table {
	for _, t := range registry {
		if t.OID == oid {
			return t
		}
	}
	return nil
}
