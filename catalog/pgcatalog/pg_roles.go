package pgcatalog

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// Roles appear three ways, as in PostgreSQL: pg_authid (the catalog),
// pg_roles and pg_user (views over it). Passwords never show: pg_roles and
// pg_user mask them as PostgreSQL does, and pg_authid, which PostgreSQL
// shows only to superusers, has NULL instead of the verifier.

// passwordMask is what pg_roles.rolpassword shows for every role.
const passwordMask = "********"

func pgRoles() *Table {
	cols := []catalog.Column{
		col("rolname", types.Name),
		col("rolsuper", types.Bool),
		col("rolinherit", types.Bool),
		col("rolcreaterole", types.Bool),
		col("rolcreatedb", types.Bool),
		col("rolcanlogin", types.Bool),
		col("rolreplication", types.Bool),
		col("rolconnlimit", types.Int4),
		col("rolpassword", types.Text),
		col("rolvaliduntil", types.TimestampTZ),
		col("rolbypassrls", types.Bool),
		col("rolconfig", textArray),
		col("oid", types.Oid),
	}
	return &Table{OID: 12001, Schema: "pg_catalog", Name: "pg_roles", Kind: 'v', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, r := range s.roles() {
				a := attributesOf(r)
				rb.add(r.Name, r.Superuser, !r.NoInherit, a.createRole, a.createDB, r.CanLogin, a.bootstrap,
					int32(-1), passwordMask, nil, a.bootstrap || r.BypassRLS, nil, r.OID)
			}
			return rb.finish()
		}}
}

func pgUser() *Table {
	cols := []catalog.Column{
		col("usename", types.Name),
		col("usesysid", types.Oid),
		col("usecreatedb", types.Bool),
		col("usesuper", types.Bool),
		col("userepl", types.Bool),
		col("usebypassrls", types.Bool),
		col("passwd", types.Text),
		col("valuntil", types.TimestampTZ),
		col("useconfig", textArray),
	}
	return &Table{OID: 12002, Schema: "pg_catalog", Name: "pg_user", Kind: 'v', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, r := range s.roles() {
				if !r.CanLogin {
					continue
				}
				a := attributesOf(r)
				rb.add(r.Name, r.OID, a.createDB, r.Superuser, a.bootstrap, a.bootstrap || r.BypassRLS,
					passwordMask, nil, nil)
			}
			return rb.finish()
		}}
}

func pgAuthid() *Table {
	cols := []catalog.Column{
		col("oid", types.Oid),
		col("rolname", types.Name),
		col("rolsuper", types.Bool),
		col("rolinherit", types.Bool),
		col("rolcreaterole", types.Bool),
		col("rolcreatedb", types.Bool),
		col("rolcanlogin", types.Bool),
		col("rolreplication", types.Bool),
		col("rolbypassrls", types.Bool),
		col("rolconnlimit", types.Int4),
		col("rolpassword", types.Text),
		col("rolvaliduntil", types.TimestampTZ),
	}
	return &Table{OID: 1260, Schema: "pg_catalog", Name: "pg_authid", Kind: 'r', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, r := range s.roles() {
				a := attributesOf(r)
				rb.add(r.OID, r.Name, r.Superuser, !r.NoInherit, a.createRole, a.createDB, r.CanLogin,
					a.bootstrap, a.bootstrap || r.BypassRLS, int32(-1), nil, nil)
			}
			return rb.finish()
		}}
}

// roleAttributes are the pg_authid flags weir derives: the bootstrap
// superuser has every attribute, as initdb's does; REPLICATION is
// the bootstrap superuser's alone (weir does not grant it); BYPASSRLS is
// the bootstrap superuser's and that of roles given it.
type roleAttributes struct {
	bootstrap, createRole, createDB bool
}

func attributesOf(r *catalog.Role) roleAttributes {
	boot := r.OID == catalog.BootstrapRoleOID
	return roleAttributes{bootstrap: boot, createRole: boot || r.CreateRole, createDB: boot || r.CreateDB}
}

// pgAuthMembers lists role memberships: PostgreSQL 15's four columns.
func pgAuthMembers() *Table {
	cols := []catalog.Column{
		col("roleid", types.Oid),
		col("member", types.Oid),
		col("grantor", types.Oid),
		col("admin_option", types.Bool),
	}
	return &Table{OID: 1261, Schema: "pg_catalog", Name: "pg_auth_members", Kind: 'r', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			for _, m := range s.memberships() {
				rb.add(m.Role, m.Member, m.Grantor, m.Admin)
			}
			return rb.finish()
		}}
}
