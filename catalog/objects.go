// Package catalog holds weir's object definitions — databases, schemas,
// relations and roles — persisted in the state store under c/ keys and
// loaded into memory at Open. Every change is persisted before the method
// returns. Methods are safe for concurrent use; the objects they return are
// shared, immutable snapshots: callers must not modify them.
//
// Errors are *sqlerr.Error with PostgreSQL's SQLSTATEs and messages. Where
// PostgreSQL would only send a NOTICE (IF [NOT] EXISTS cases), the method
// changes nothing and returns an error with Severity "NOTICE"; see IsNotice.
package catalog

import (
	"time"

	"github.com/weir-sql/weir/sql/types"
)

// RelKind is what a relation is. The values are pg_class.relkind letters
// except KindStreamingTable, which is weir's own; PGRelKind maps it.
type RelKind byte

const (
	KindTable RelKind = 'r'
	KindView  RelKind = 'v'
	// KindStreamingTable is a CREATE STREAMING TABLE ... AS SELECT. It
	// shows as an ordinary table ('r') in pg_class, because to clients it
	// is one they can query.
	KindStreamingTable RelKind = 'S'
	// KindSource is a CREATE SOURCE: rows that arrive from outside,
	// read through a connector (Relation.Source). It shows as a view
	// ('v') in pg_class: like a view it holds no rows of its own and
	// reads them on every query, and psql's \d lists and describes it
	// fully that way (\d+ shows the batch query reading the same rows).
	// PostgreSQL's nearest kind, a foreign table ('f'), would be truer,
	// but psql's \d of one needs pg_foreign_server and pg_foreign_table
	// rows and prints nothing without them.
	KindSource RelKind = 's'
)

// PGRelKind is the pg_class.relkind clients see for k.
func (k RelKind) PGRelKind() byte {
	switch k {
	case KindStreamingTable:
		return 'r'
	case KindSource:
		return 'v'
	}
	return byte(k)
}

// HasData reports whether relations of kind k keep rows in the store
// (tables and streaming tables; not views or sources).
func (k RelKind) HasData() bool { return k != KindView && k != KindSource }

// Noun is how messages name a relation of kind k ("table", "view").
func (k RelKind) Noun() string { return k.noun() }

// noun is how PostgreSQL's messages name a relation of kind k.
func (k RelKind) noun() string {
	switch k {
	case KindView:
		return "view"
	case KindStreamingTable:
		return "streaming table"
	case KindSource:
		return "source"
	}
	return "table"
}

// dropCommand is the statement that drops a relation of kind k.
func (k RelKind) dropCommand() string {
	switch k {
	case KindView:
		return "DROP VIEW"
	case KindStreamingTable:
		return "DROP STREAMING TABLE"
	case KindSource:
		return "DROP SOURCE"
	}
	return "DROP TABLE"
}

// Fixed OIDs, as PostgreSQL assigns them (information_schema's varies by
// PostgreSQL build; weir fixes it). Objects created later get OIDs from
// the store's "oid" counter, starting at FirstUserOID.
const (
	BootstrapRoleOID uint32 = 10
	// DatabaseOwnerRoleOID is PostgreSQL's pg_database_owner, the owner of
	// schema public since PostgreSQL 14 (psql's \dn shows it).
	DatabaseOwnerRoleOID uint32 = 6171
	DatabaseOwnerRole           = "pg_database_owner"
	PGCatalogOID         uint32 = 11
	PublicOID            uint32 = 2200
	InformationSchemaOID uint32 = 13000
	FirstUserOID         uint32 = 16384

	BootstrapRole = "weir"
	DefaultDB     = "weir"
)

type Schema struct {
	OID   uint32
	Name  string
	Owner uint32
	// ACL is pg_namespace.nspacl; nil is the default (acl.go).
	ACL ACL `json:",omitempty"`
}

type Column struct {
	Name    string
	Type    types.T
	NotNull bool
	Default string // SQL text of the DEFAULT expression, "" if none
	// Comment is the column's COMMENT (shown through pg_description).
	Comment string `json:",omitempty"`
	// Generated is a streaming table column's GENERATED ALWAYS AS
	// expression, as written ("" if none).
	Generated string `json:",omitempty"`
	// ACL is the column's own privileges (pg_attribute.attacl: GRANT
	// SELECT (col) ON t); nil when it has none.
	ACL ACL `json:",omitempty"`
	// Mask is the column's mask (ALTER TABLE … ALTER COLUMN … SET MASK);
	// nil when it has none.
	Mask *ColumnMask `json:",omitempty"`
}

// ColumnMask is Databricks' column mask: every reader of the column sees
// Function(column, UsingColumns...) instead of the column.
type ColumnMask struct {
	Function     string   // the mask function, schema-qualified as written
	UsingColumns []string `json:",omitempty"`
}

type Relation struct {
	OID     uint32
	Schema  string
	Name    string
	Kind    RelKind
	Columns []Column
	// ViewSQL is the defining query of views and streaming tables, and
	// for sources a batch query reading the same rows.
	ViewSQL    string
	Owner      uint32
	Created    time.Time
	PrimaryKey []string
	// Table is a plain table's options (KindTable); nil when it has none.
	Table *TableOptions `json:",omitempty"`
	// Streaming is set for streaming tables (KindStreamingTable) and only
	// for them (streaming_table.go).
	Streaming *StreamingTable `json:",omitempty"`
	// Source is set for sources (KindSource) and only for them.
	Source *Source `json:",omitempty"`
	// ACL is pg_class.relacl; nil is the default (acl.go).
	ACL ACL `json:",omitempty"`
	// RowSecurity and ForceRowSecurity are ALTER TABLE … ENABLE / FORCE
	// ROW LEVEL SECURITY (relrowsecurity, relforcerowsecurity); Policies
	// are its CREATE POLICYs, in creation order.
	RowSecurity      bool     `json:",omitempty"`
	ForceRowSecurity bool     `json:",omitempty"`
	Policies         []Policy `json:",omitempty"`
}

// Policy is one row-level security policy (pg_policy).
type Policy struct {
	OID        uint32
	Name       string
	Permissive bool     // PERMISSIVE (the default) or RESTRICTIVE
	Command    byte     // polcmd: '*' ALL, 'r' SELECT, 'a' INSERT, 'w' UPDATE, 'd' DELETE
	Roles      []uint32 // the roles it applies to; empty or {0}: PUBLIC
	Using      string   `json:",omitempty"` // USING expression, SQL text
	WithCheck  string   `json:",omitempty"` // WITH CHECK expression, SQL text
}

// TableOptions is a plain table's WITH options and WATERMARK FOR clause,
// checked at CREATE TABLE.
type TableOptions struct {
	// Retention is how long the table's log keeps rows for streaming
	// tables that read it (WITH (retention = '1 day')); 0 keeps them.
	Retention time.Duration `json:",omitempty"`
	// WatermarkColumn and WatermarkDelayUS are the WATERMARK FOR clause
	// (the column, and the delay in microseconds); "" when none.
	WatermarkColumn  string `json:",omitempty"`
	WatermarkDelayUS int64  `json:",omitempty"`
}

// Source is a source relation's definition: its connector and the
// connector's options, typed (checked at CREATE SOURCE, so a stored
// source always opens).
type Source struct {
	Connector string         // "nexmark" or "files"
	Nexmark   *NexmarkSource `json:",omitempty"`
	Files     *FilesSource   `json:",omitempty"` // files_source.go
	Kafka     *KafkaSource   `json:",omitempty"` // kafka_source.go
	// WatermarkColumn and WatermarkDelayUS are the WATERMARK FOR clause
	// (the column, and the delay in microseconds); "" when none.
	WatermarkColumn  string `json:",omitempty"`
	WatermarkDelayUS int64  `json:",omitempty"`
	// Definition is the CREATE SOURCE statement as written. (The
	// relation's ViewSQL is a batch query reading the same rows, which
	// pg_get_viewdef and \d+ show.)
	Definition string
}

// NexmarkSource is the nexmark connector's options (connector/nexmark
// documents each).
type NexmarkSource struct {
	Table           string // person, auction or bid
	EventsPerSecond int64
	MaxEvents       int64 // 0: unbounded
	Seed            int64
	BatchRows       int
	DisorderUS      int64   `json:",omitempty"`
	LateFraction    float64 `json:",omitempty"`
	LateByUS        int64   `json:",omitempty"`
	// Paced makes rows readable at EventsPerSecond of wall-clock time
	// from the source's Created time.
	Paced bool
}

// Column returns the index of the column called name, or -1.
func (r *Relation) Column(name string) int {
	for i := range r.Columns {
		if r.Columns[i].Name == name {
			return i
		}
	}
	return -1
}

type Role struct {
	OID       uint32
	Name      string
	Superuser bool
	CanLogin  bool
	// CreateRole lets a role that is not a superuser create, alter, drop
	// and grant non-superuser roles (PostgreSQL 15's CREATEROLE);
	// CreateDB is kept to be shown (weir has one database).
	CreateRole bool   `json:",omitempty"`
	CreateDB   bool   `json:",omitempty"`
	Verifier   string // SCRAM-SHA-256 verifier in PostgreSQL's format, "" if none
	// NoInherit is NOINHERIT: the role does not use the privileges of
	// the roles it is a member of without SET ROLE (rolinherit false).
	NoInherit bool `json:",omitempty"`
	// BypassRLS is BYPASSRLS: row-level security policies do not apply.
	BypassRLS bool `json:",omitempty"`
}

type Database struct {
	OID  uint32
	Name string
	// ACL is pg_database.datacl; nil is the default (acl.go): CONNECT and
	// TEMPORARY for PUBLIC.
	ACL ACL `json:",omitempty"`
}

// Clone returns a deep copy the caller may change.
func (r *Relation) Clone() *Relation { return r.clone() }

// clone returns a deep copy, so that the catalog's copy never shares
// memory with a caller's.
func (r *Relation) clone() *Relation {
	c := *r
	c.Columns = append([]Column(nil), r.Columns...)
	c.PrimaryKey = append([]string(nil), r.PrimaryKey...)
	if r.Source != nil {
		src := *r.Source
		if r.Source.Nexmark != nil {
			nx := *r.Source.Nexmark
			src.Nexmark = &nx
		}
		src.Files = r.Source.Files.clone()
		src.Kafka = r.Source.Kafka.clone() // kafka_source.go
		c.Source = &src
	}
	if r.Table != nil {
		t := *r.Table
		c.Table = &t
	}
	if r.Streaming != nil {
		c.Streaming = r.Streaming.clone()
	}
	c.ACL = r.ACL.Clone()
	for i := range c.Columns {
		c.Columns[i].ACL = c.Columns[i].ACL.Clone()
	}
	c.Policies = append([]Policy(nil), r.Policies...)
	return &c
}
