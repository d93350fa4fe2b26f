package pgcatalog

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
)

// The ACL columns of relations (pg_class.relacl, pg_attribute.attacl) and
// information_schema's privilege views (table_privileges,
// role_table_grants, column_privileges, role_column_grants), as
// PostgreSQL 15 derives the views from
// aclexplode(coalesce(relacl, acldefault('r', relowner))) and the same over
// attacl. A user relation's ACL is the one GRANT and REVOKE stored (nil:
// the owner's default); the system relations have the ACLs initdb gives
// them (PUBLIC may read most of them).

// Relations initdb leaves readable by their owner only, and those it
// opens to pg_read_all_stats or, for pg_settings, to PUBLIC's UPDATE too.
var (
	ownerOnlyRelations = map[string]bool{
		"pg_authid": true, "pg_config": true, "pg_file_settings": true, "pg_hba_file_rules": true,
		"pg_ident_file_mappings": true, "pg_largeobject": true, "pg_replication_origin_status": true,
		"pg_shadow": true, "pg_statistic": true, "pg_statistic_ext_data": true, "pg_subscription": true,
		"pg_user_mapping": true,
	}
	readAllStatsRelations = map[string]bool{"pg_backend_memory_contexts": true, "pg_shmem_allocations": true}
)

// SystemRelationACL is the ACL initdb gives the system relation
// schema.name (owned by the bootstrap superuser): most are readable by
// PUBLIC. Relations weir serves itself (weir_catalog's) are too.
func SystemRelationACL(schema, name string) catalog.ACL {
	owner := catalog.BootstrapRoleOID
	acl := catalog.ACL{{Grantee: owner, Grantor: owner, Privs: catalog.AllPrivileges(catalog.ObjRelation)}}
	switch {
	case schema == "pg_catalog" && ownerOnlyRelations[name]:
		return acl
	case schema == "pg_catalog" && readAllStatsRelations[name]:
		return append(acl, catalog.ACLItem{Grantee: catalog.ReadAllStatsRoleOID, Grantor: owner, Privs: catalog.PrivSelect})
	case schema == "pg_catalog" && name == "pg_settings":
		return append(acl, catalog.ACLItem{Grantor: owner, Privs: catalog.PrivSelect | catalog.PrivUpdate})
	}
	return append(acl, catalog.ACLItem{Grantor: owner, Privs: catalog.PrivSelect})
}

// relationACL is the effective ACL of a relation: the stored one or its
// owner's default for a user relation, initdb's for a system one.
func relationACL(r relation) catalog.ACL {
	if r.Virtual {
		return SystemRelationACL(r.Schema, r.Name)
	}
	return r.ACL.Effective(catalog.ObjRelation, r.Owner)
}

// relACLText is pg_class.relacl: initdb's ACL for a system relation,
// the stored one for a user relation, NULL for its default.
func (s *Snapshot) relACLText(r relation) any {
	if r.Virtual {
		return s.aclText(relationACL(r))
	}
	return s.aclText(r.ACL)
}

// aclText is a stored ACL as aclitem[] text, NULL for none (the
// default). A dropped role shows as its OID, as aclitemout prints it.
func (s *Snapshot) aclText(acl catalog.ACL) any {
	if acl == nil {
		return nil
	}
	out := []any{}
	for _, t := range acl.Text(s.aclRoleName) {
		out = append(out, t)
	}
	return out
}

// aclRoleName is a role as aclitem's text form names it.
func (s *Snapshot) aclRoleName(oid uint32) string {
	n := s.roleName(oid)
	if n == "" {
		return strconv.FormatUint(uint64(oid), 10)
	}
	return aclName(n)
}

// tablePrivilegeNames are the relation privileges the views list, in
// aclexplode's order.
var tablePrivilegeNames = []struct {
	priv catalog.Privileges
	name string
}{{catalog.PrivInsert, "INSERT"}, {catalog.PrivSelect, "SELECT"}, {catalog.PrivUpdate, "UPDATE"},
	{catalog.PrivDelete, "DELETE"}, {catalog.PrivTruncate, "TRUNCATE"}, {catalog.PrivReferences, "REFERENCES"},
	{catalog.PrivTrigger, "TRIGGER"}}

// hasRoleUsage is pg_has_role(member, role, 'USAGE') for any member:
// has_privs_of_role, true for a superuser; PUBLIC (0) has no role's.
func (s *Snapshot) hasRoleUsage(member, role uint32) bool {
	if member == 0 {
		return false
	}
	if s.Cat == nil {
		return member == role
	}
	return s.Cat.HasPrivsOfRole(member, role)
}

// privilegeRow is one privilege of one ACL item as the privilege views
// show it.
type privilegeRow struct {
	rel              relation
	column           string // "" for the relation's own ACL
	grantor, grantee string
	privilege        string
	grantable        bool
}

// privilegeRows lists every (ACL item, privilege) of the tables and
// views, and with columns set of their columns (the relation's items
// repeated for each column, then the columns' own, without repeats as
// the view's UNION), that the current user may see: those whose grantor
// or grantee is a role it has the privileges of, and PUBLIC's; with
// enabledOnly (role_table_grants, role_column_grants) PUBLIC's only when
// the grantor is such a role.
func (s *Snapshot) privilegeRows(enabledOnly, columns bool) []privilegeRow {
	var out []privilegeRow
	// The view's UNION drops repeats of (grantor, grantee, column,
	// relation, privilege, the item's own grant option).
	type rowKey struct {
		rel               uint32
		column, privilege string
		grantor, grantee  uint32
		grantOption       bool
	}
	seen := map[rowKey]bool{}
	add := func(r relation, column string, it catalog.ACLItem, only catalog.Privileges) {
		grantor := s.roleName(it.Grantor)
		grantee := "PUBLIC"
		if it.Grantee != 0 {
			grantee = s.roleName(it.Grantee)
		}
		if grantor == "" || grantee == "" {
			return
		}
		visible := s.usableRole(it.Grantor) || it.Grantee != 0 && s.usableRole(it.Grantee)
		if !enabledOnly && it.Grantee == 0 {
			visible = true
		}
		if !visible {
			return
		}
		// An owner's rights, and those of whoever has its privileges,
		// come with the grant option.
		ownerLike := s.hasRoleUsage(it.Grantee, r.Owner)
		for _, pr := range tablePrivilegeNames {
			if it.Privs&pr.priv&only == 0 {
				continue
			}
			row := privilegeRow{rel: r, column: column, grantor: grantor, grantee: grantee, privilege: pr.name,
				grantable: ownerLike || it.GrantOption&pr.priv != 0}
			key := rowKey{r.OID, column, pr.name, it.Grantor, it.Grantee, it.GrantOption&pr.priv != 0}
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, row)
		}
	}
	for _, r := range s.relations() {
		if r.Kind != 'r' && r.Kind != 'v' && r.Kind != 'f' && r.Kind != 'p' {
			continue
		}
		acl := relationACL(r)
		if !columns {
			for _, it := range acl {
				add(r, "", it, ^catalog.Privileges(0))
			}
			continue
		}
		colPrivs := catalog.AllPrivileges(catalog.ObjColumn)
		for _, c := range r.Columns {
			for _, it := range acl {
				add(r, c.Name, it, colPrivs)
			}
			for _, it := range c.ACL {
				add(r, c.Name, it, colPrivs)
			}
		}
	}
	return out
}

func tablePrivileges(name string, enabledOnly bool) *Table {
	cols := []catalog.Column{
		col("grantor", sqlIdentifier),
		col("grantee", sqlIdentifier),
		col("table_catalog", sqlIdentifier),
		col("table_schema", sqlIdentifier),
		col("table_name", sqlIdentifier),
		col("privilege_type", characterData),
		col("is_grantable", yesOrNo),
		col("with_hierarchy", yesOrNo),
	}
	return &Table{Name: name, Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, p := range s.privilegeRows(enabledOnly, false) {
				rb.add(p.grantor, p.grantee, s.Database, p.rel.Schema, p.rel.Name, p.privilege,
					yesNo(p.grantable), yesNo(p.privilege == "SELECT"))
			}
			return rb.finish()
		}}
}

// columnPrivileges lists, for each column, the rights of its relation
// that apply to columns and the column's own (attacl).
func columnPrivileges(name string, enabledOnly bool) *Table {
	cols := []catalog.Column{
		col("grantor", sqlIdentifier),
		col("grantee", sqlIdentifier),
		col("table_catalog", sqlIdentifier),
		col("table_schema", sqlIdentifier),
		col("table_name", sqlIdentifier),
		col("column_name", sqlIdentifier),
		col("privilege_type", characterData),
		col("is_grantable", yesOrNo),
	}
	return &Table{Name: name, Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, p := range s.privilegeRows(enabledOnly, true) {
				rb.add(p.grantor, p.grantee, s.Database, p.rel.Schema, p.rel.Name, p.column, p.privilege, yesNo(p.grantable))
			}
			return rb.finish()
		}}
}

func isTablePrivileges() *Table { return tablePrivileges("table_privileges", false) }

func isRoleTableGrants() *Table { return tablePrivileges("role_table_grants", true) }

func isColumnPrivileges() *Table { return columnPrivileges("column_privileges", false) }

func isRoleColumnGrants() *Table { return columnPrivileges("role_column_grants", true) }

// isUsagePrivileges is information_schema.usage_privileges. Of the
// objects PostgreSQL 15 lists there (collations, domains, foreign-data
// wrappers, foreign servers, sequences) weir has only collations, which
// have no real privileges: each is shown usable by PUBLIC, as
// PostgreSQL shows them. Schemas are not listed there in PostgreSQL
// either (nspacl and has_schema_privilege tell their USAGE).
func isUsagePrivileges() *Table {
	cols := []catalog.Column{
		col("grantor", sqlIdentifier),
		col("grantee", sqlIdentifier),
		col("object_catalog", sqlIdentifier),
		col("object_schema", sqlIdentifier),
		col("object_name", sqlIdentifier),
		col("object_type", characterData),
		col("privilege_type", characterData),
		col("is_grantable", yesOrNo),
	}
	return &Table{Name: "usage_privileges", Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			owner := s.roleName(catalog.BootstrapRoleOID)
			for _, name := range []string{"default", "C", "POSIX"} {
				rb.add(owner, "PUBLIC", s.Database, "pg_catalog", name, "COLLATION", "USAGE", "NO")
			}
			return rb.finish()
		}}
}

// routinePrivileges is information_schema.routine_privileges (and, with
// enabledOnly, role_routine_grants): EXECUTE on every function of
// pg_proc, which weir's built-ins hold by PostgreSQL's default ACL
// (acldefault('f', owner): PUBLIC's and the owner's, the owner's with
// grant option); the owner's rows show only to those with its
// privileges.
func routinePrivileges(name string, enabledOnly bool) *Table {
	cols := []catalog.Column{
		col("grantor", sqlIdentifier),
		col("grantee", sqlIdentifier),
		col("specific_catalog", sqlIdentifier),
		col("specific_schema", sqlIdentifier),
		col("specific_name", sqlIdentifier),
		col("routine_catalog", sqlIdentifier),
		col("routine_schema", sqlIdentifier),
		col("routine_name", sqlIdentifier),
		col("privilege_type", characterData),
		col("is_grantable", yesOrNo),
	}
	return &Table{Name: name, Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			owner := catalog.BootstrapRoleOID
			ownerName := s.roleName(owner)
			ownerVisible := s.usableRole(owner)
			add := func(oid uint32, fn string) {
				specific := fn + "_" + strconv.FormatUint(uint64(oid), 10)
				if !enabledOnly || ownerVisible {
					rb.add(ownerName, "PUBLIC", s.Database, "pg_catalog", specific, s.Database, "pg_catalog", fn, "EXECUTE", "NO")
				}
				if ownerVisible {
					rb.add(ownerName, ownerName, s.Database, "pg_catalog", specific, s.Database, "pg_catalog", fn, "EXECUTE", "YES")
				}
			}
			for _, p := range builtinProcs {
				add(p.oid, p.name)
			}
			for i, f := range s.Functions {
				add(s.FunctionOID(i), f.Name)
			}
			return rb.finish()
		}}
}

func isRoutinePrivileges() *Table { return routinePrivileges("routine_privileges", false) }

func isRoleRoutineGrants() *Table { return routinePrivileges("role_routine_grants", true) }

// isRoleUsageGrants is role_usage_grants: usage_privileges' rows whose
// grantor or grantee is an enabled role (for collations, whose grantee
// is PUBLIC, those the owner's privileges reach).
func isRoleUsageGrants() *Table {
	t := isUsagePrivileges()
	rows := t.Rows
	t.Name = "role_usage_grants"
	t.Rows = func(s *Snapshot) (arrow.RecordBatch, error) {
		if !s.usableRole(catalog.BootstrapRoleOID) {
			return newRows(t.Columns).finish()
		}
		return rows(s)
	}
	return t
}
