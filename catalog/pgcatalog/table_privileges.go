package pgcatalog

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
)

// information_schema.table_privileges, role_table_grants and
// column_privileges, as PostgreSQL 15 derives them from
// aclexplode(coalesce(relacl, acldefault('r', relowner))). weir has no GRANT on relations, so a user
// relation has its owner's default rights; the system relations have the
// ACLs initdb gives them (PUBLIC may read most of them).

// aclEntry is one aclitem: grantee (0 for PUBLIC) holds privs (letters
// in PostgreSQL's order) from grantor.
type aclEntry struct {
	grantee, grantor uint32
	privs            string
}

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

// relationACL is the effective ACL of a relation: its default for a
// user relation, initdb's for a system one.
func relationACL(r relation) []aclEntry {
	owner := []aclEntry{{grantee: r.Owner, grantor: r.Owner, privs: "arwdDxt"}}
	if !r.Virtual {
		if r.ACL == nil {
			return owner
		}
		out := make([]aclEntry, len(r.ACL))
		for i, it := range r.ACL {
			out[i] = aclEntry{grantee: it.Grantee, grantor: it.Grantor, privs: it.Privs.Letters(it.GrantOption)}
		}
		return out
	}
	switch {
	case r.Schema == "pg_catalog" && ownerOnlyRelations[r.Name]:
		return owner
	case r.Schema == "pg_catalog" && readAllStatsRelations[r.Name]:
		return append(owner, aclEntry{grantee: catalog.ReadAllStatsRoleOID, grantor: r.Owner, privs: "r"})
	case r.Schema == "pg_catalog" && r.Name == "pg_settings":
		return append(owner, aclEntry{grantor: r.Owner, privs: "rw"})
	}
	return append(owner, aclEntry{grantor: r.Owner, privs: "r"})
}

// relACLText is pg_class.relacl: initdb's ACL for a system relation,
// NULL (the owner's default) for a user relation, which no GRANT changes
// yet.
func (s *Snapshot) relACLText(r relation) any {
	if !r.Virtual && r.ACL == nil {
		return nil
	}
	var out []any
	for _, e := range relationACL(r) {
		grantee := ""
		if e.grantee != 0 {
			grantee = aclName(s.roleName(e.grantee))
		}
		out = append(out, grantee+"="+e.privs+"/"+aclName(s.roleName(e.grantor)))
	}
	return out
}

// aclText is a stored ACL as aclitem[] text, NULL for none (the
// default).
func (s *Snapshot) aclText(acl catalog.ACL) any {
	if acl == nil {
		return nil
	}
	out := []any{}
	for _, t := range acl.Text(func(oid uint32) string { return aclName(s.roleName(oid)) }) {
		out = append(out, t)
	}
	return out
}

// tablePrivilegeNames are the relation privileges by letter.
var tablePrivilegeNames = []struct {
	letter byte
	name   string
}{{'a', "INSERT"}, {'r', "SELECT"}, {'w', "UPDATE"}, {'d', "DELETE"}, {'D', "TRUNCATE"}, {'x', "REFERENCES"}, {'t', "TRIGGER"}}

// hasRoleUsage is pg_has_role(member, role, 'USAGE') for any member.
func (s *Snapshot) hasRoleUsage(member, role uint32) bool {
	if s.Cat == nil {
		return member == role
	}
	if r, ok := s.Cat.RoleByOID(member); ok && r.Superuser {
		return true
	}
	return s.Cat.IsMemberOf(member, role)
}

// privilegeRow is one (relation, ACL entry) pair as the privilege views
// show it.
type privilegeRow struct {
	rel              relation
	entry            aclEntry
	grantor, grantee string
	grantable        bool
}

// privilegeRows lists the ACL entries of tables and views that the
// current user may see: enabledOnly keeps those whose grantor or grantee
// is an enabled role (role_table_grants); otherwise those, and PUBLIC's.
func (s *Snapshot) privilegeRows(enabledOnly bool) []privilegeRow {
	var out []privilegeRow
	for _, r := range s.relations() {
		if r.Kind != 'r' && r.Kind != 'v' && r.Kind != 'f' && r.Kind != 'p' {
			continue
		}
		for _, e := range relationACL(r) {
			grantor := s.roleName(e.grantor)
			grantee := "PUBLIC"
			if e.grantee != 0 {
				grantee = s.roleName(e.grantee)
			}
			if grantor == "" || grantee == "" {
				continue
			}
			visible := s.usableRole(e.grantor) || e.grantee != 0 && s.usableRole(e.grantee)
			if !enabledOnly && e.grantee == 0 {
				visible = true
			}
			if !visible {
				continue
			}
			// An owner's rights, and its members', come with the grant
			// option.
			out = append(out, privilegeRow{rel: r, entry: e, grantor: grantor, grantee: grantee,
				grantable: e.grantee != 0 && s.hasRoleUsage(e.grantee, r.Owner)})
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
			for _, p := range s.privilegeRows(enabledOnly) {
				for _, pr := range tablePrivilegeNames {
					if containsByte(p.entry.privs, pr.letter) {
						rb.add(p.grantor, p.grantee, s.Database, p.rel.Schema, p.rel.Name, pr.name,
							yesNo(p.grantable), yesNo(pr.name == "SELECT"))
					}
				}
			}
			return rb.finish()
		}}
}

// isColumnPrivileges lists a relation's rights that apply to each of its
// columns (weir has no column ACLs, so there are no others).
func isColumnPrivileges() *Table {
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
	return &Table{Name: "column_privileges", Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, p := range s.privilegeRows(false) {
				for _, c := range p.rel.Columns {
					for _, pr := range tablePrivilegeNames {
						switch pr.name {
						case "INSERT", "SELECT", "UPDATE", "REFERENCES":
						default:
							continue
						}
						if containsByte(p.entry.privs, pr.letter) {
							rb.add(p.grantor, p.grantee, s.Database, p.rel.Schema, p.rel.Name, c.Name, pr.name, yesNo(p.grantable))
						}
					}
				}
			}
			return rb.finish()
		}}
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}

func isTablePrivileges() *Table { return tablePrivileges("table_privileges", false) }

func isRoleTableGrants() *Table { return tablePrivileges("role_table_grants", true) }
