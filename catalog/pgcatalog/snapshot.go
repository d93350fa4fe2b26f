package pgcatalog

import (
	"strings"

	"github.com/weir-sql/weir/catalog"
)

// relation is a user relation or a virtual one, seen uniformly: pg_class,
// pg_attribute and information_schema list both, as PostgreSQL lists its
// own catalogs alongside user tables.
type relation struct {
	OID        uint32
	Schema     string
	Name       string
	Kind       byte // pg_class.relkind
	Columns    []catalog.Column
	Owner      uint32
	PrimaryKey []string
	ViewSQL    string
	Virtual    bool
	// Options are pg_class.reloptions: for a streaming table its defining
	// query and settings, which psql's \d+ prints on its "Options:" line.
	Options []any
	// ACL is the stored ACL of a user relation (nil: its default).
	ACL catalog.ACL
	// RowSecurity and ForceRowSecurity are relrowsecurity and
	// relforcerowsecurity.
	RowSecurity, ForceRowSecurity bool
}

// relations lists the virtual relations, then the user relations by OID.
func (s *Snapshot) relations() []relation {
	var out []relation
	for _, t := range Tables() {
		out = append(out, relation{
			OID: t.OID, Schema: t.Schema, Name: t.Name, Kind: t.Kind,
			Columns: t.Columns, Owner: catalog.BootstrapRoleOID, Virtual: true,
		})
	}
	out = append(out, s.engineRelations()...)
	return append(out, s.userRelations()...)
}

// userRelations lists the relations of weir's catalog by OID.
func (s *Snapshot) userRelations() []relation {
	if s.Cat == nil {
		return nil
	}
	var out []relation
	for _, r := range s.Cat.Relations() {
		rel := relation{
			OID: r.OID, Schema: r.Schema, Name: r.Name, Kind: r.Kind.PGRelKind(),
			Columns: r.Columns, Owner: r.Owner, PrimaryKey: r.PrimaryKey, ViewSQL: r.ViewSQL, ACL: r.ACL,
			RowSecurity: r.RowSecurity, ForceRowSecurity: r.ForceRowSecurity,
		}
		if st := r.Streaming; st != nil {
			rel.Options = streamingRelOptions(r.ViewSQL, st)
		}
		out = append(out, rel)
	}
	return out
}

// pkAttnums returns the attnums (1-based) of the primary key columns, or
// nil if the relation has none or names a column it does not have.
func (r *relation) pkAttnums() []int16 {
	if len(r.PrimaryKey) == 0 {
		return nil
	}
	var nums []int16
	for _, name := range r.PrimaryKey {
		i := -1
		for j := range r.Columns {
			if r.Columns[j].Name == name {
				i = j
				break
			}
		}
		if i < 0 {
			return nil
		}
		nums = append(nums, int16(i+1))
	}
	return nums
}

func (s *Snapshot) schemas() []*catalog.Schema {
	if s.Cat == nil {
		return []*catalog.Schema{
			{OID: catalog.PGCatalogOID, Name: "pg_catalog", Owner: catalog.BootstrapRoleOID},
			{OID: catalog.InformationSchemaOID, Name: "information_schema", Owner: catalog.BootstrapRoleOID},
			weirCatalogSchemaEntry(),
		}
	}
	return append(s.Cat.Schemas(), weirCatalogSchemaEntry())
}

// nspOID is the OID of the schema called name, 0 if there is none.
func (s *Snapshot) nspOID(name string) uint32 {
	switch name {
	case "pg_catalog":
		return catalog.PGCatalogOID
	case "information_schema":
		return catalog.InformationSchemaOID
	case WeirCatalogSchema:
		return WeirCatalogOID
	}
	if s.Cat == nil {
		return 0
	}
	if sc, ok := s.Cat.Schema(name); ok {
		return sc.OID
	}
	return 0
}

// roles lists the catalog's roles, PostgreSQL's predefined ones included
// (pg_database_owner owns schema public).
func (s *Snapshot) roles() []*catalog.Role {
	if s.Cat == nil {
		owner := &catalog.Role{OID: catalog.DatabaseOwnerRoleOID, Name: catalog.DatabaseOwnerRole}
		return []*catalog.Role{{OID: catalog.BootstrapRoleOID, Name: catalog.BootstrapRole, Superuser: true, CanLogin: true}, owner}
	}
	return s.Cat.Roles()
}

func (s *Snapshot) memberships() []catalog.Membership {
	if s.Cat == nil {
		return nil
	}
	return s.Cat.Memberships()
}

// roleName is the name of the role with that OID; "" if it was dropped.
func (s *Snapshot) roleName(oid uint32) string {
	for _, r := range s.roles() {
		if r.OID == oid {
			return r.Name
		}
	}
	return ""
}

func (s *Snapshot) roleOID(name string) uint32 {
	for _, r := range s.roles() {
		if r.Name == name {
			return r.OID
		}
	}
	return 0
}

func (s *Snapshot) databases() []*catalog.Database {
	if s.Cat == nil {
		return []*catalog.Database{{OID: catalog.FirstUserOID, Name: s.Database}}
	}
	return s.Cat.Databases()
}

// nullIfEmpty maps "" to SQL NULL.
func nullIfEmpty(v string) any {
	if v == "" {
		return nil
	}
	return v
}

// streamingRelOptions is a streaming table's pg_class.reloptions: its
// query and how it runs, then what its Databricks clauses declared
// (TBLPROPERTIES entries under their own keys, as Spark shows them).
func streamingRelOptions(query string, st *catalog.StreamingTable) []any {
	var out []any
	if query != "" {
		out = append(out, "query="+strings.Join(strings.Fields(query), " "))
	}
	out = append(out, "output_mode="+st.OutputMode, "trigger="+st.Trigger)
	if st.Schedule != nil {
		out = append(out, "schedule="+st.Schedule.Text)
	}
	if len(st.PartitionedBy) > 0 {
		out = append(out, "partitioned_by="+strings.Join(st.PartitionedBy, ","))
	}
	if st.ClusterBy != nil {
		out = append(out, "cluster_by="+strings.Join(st.ClusterBy, ","))
	}
	for _, e := range st.Expectations {
		v := "expectation." + e.Name + "=" + e.Expr
		if e.OnViolation != "" {
			v += " ON VIOLATION " + strings.ToUpper(e.OnViolation)
		}
		out = append(out, v)
	}
	for _, f := range st.Flows {
		out = append(out, "flow."+f.Name+"="+strings.Join(strings.Fields(f.Definition), " "))
	}
	for _, p := range st.Properties {
		out = append(out, p.Key+"="+p.Value)
	}
	return out
}
