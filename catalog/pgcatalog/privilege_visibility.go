package pgcatalog

import "github.com/weir-sql/weir/catalog"

// Which objects information_schema shows the current user, as PostgreSQL
// 15's views decide it: tables (and their columns) it owns, has the
// owner's privileges of, or holds any privilege on; schemas it owns or may
// use or create in. A role that can do nothing with an object does not
// learn it exists from information_schema (pg_catalog shows everything, as
// in PostgreSQL).

// visibility answers for one snapshot's current user.
type visibility struct {
	s     *Snapshot
	me    uint32
	super bool
	all   bool // no catalog: everything is visible
}

func (s *Snapshot) visibility() visibility {
	if s.Cat == nil {
		return visibility{s: s, all: true}
	}
	v := visibility{s: s}
	if r, ok := s.Cat.Role(s.User); ok {
		v.me, v.super = r.OID, r.Superuser
	}
	return v
}

// relation is information_schema.tables' test: pg_has_role(relowner,
// 'USAGE') or any relation privilege (pg_read_all_data's and
// pg_write_all_data's too) or any column privilege.
func (v visibility) relation(r relation) bool {
	if v.all || v.super || v.s.Cat.HasPrivsOfRole(v.me, r.Owner) {
		return true
	}
	if v.relationPrivileges(r) != 0 {
		return true
	}
	for _, c := range r.Columns {
		if p, _ := v.s.Cat.Privileges(v.me, catalog.ObjColumn, c.ACL, r.Owner); p != 0 {
			return true
		}
	}
	return false
}

// column is information_schema.columns' test: the owner's privileges, or
// SELECT, INSERT, UPDATE or REFERENCES on the column or its relation.
func (v visibility) column(r relation, c catalog.Column) bool {
	if v.all || v.super || v.s.Cat.HasPrivsOfRole(v.me, r.Owner) {
		return true
	}
	colPrivs := catalog.AllPrivileges(catalog.ObjColumn)
	if v.relationPrivileges(r)&colPrivs != 0 {
		return true
	}
	p, _ := v.s.Cat.Privileges(v.me, catalog.ObjColumn, c.ACL, r.Owner)
	return p&colPrivs != 0
}

func (v visibility) relationPrivileges(r relation) catalog.Privileges {
	p, _ := v.s.Cat.Privileges(v.me, catalog.ObjRelation, relationACL(r), r.Owner)
	if v.s.Cat.HasPrivsOfRole(v.me, catalog.ReadAllDataRoleOID) {
		p |= catalog.PrivSelect
	}
	if v.s.Cat.HasPrivsOfRole(v.me, catalog.WriteAllDataRoleOID) {
		p |= catalog.PrivInsert | catalog.PrivUpdate | catalog.PrivDelete
	}
	return p
}

// schema is information_schema.schemata's test: pg_has_role(nspowner,
// 'USAGE') or CREATE or USAGE on it.
func (v visibility) schema(sc *catalog.Schema) bool {
	if v.all || v.super || v.s.Cat.HasPrivsOfRole(v.me, sc.Owner) {
		return true
	}
	p, _ := v.s.Cat.Privileges(v.me, catalog.ObjSchema, SchemaACL(sc), sc.Owner)
	if v.s.Cat.HasPrivsOfRole(v.me, catalog.ReadAllDataRoleOID) || v.s.Cat.HasPrivsOfRole(v.me, catalog.WriteAllDataRoleOID) {
		p |= catalog.PrivUsage
	}
	return p&(catalog.PrivUsage|catalog.PrivCreate) != 0
}
