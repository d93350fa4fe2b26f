package pgcatalog

import (
	"sort"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/types"
)

// pg_policy and the pg_policies view: the row-level security policies of
// every relation. polqual and polwithcheck hold the expression as
// pg_get_expr prints it rather than a node tree (as pg_attrdef.adbin
// does), so that pg_get_expr returns it unchanged; psql's \d prints them
// from there.
func pgPolicy() *Table {
	cols := []catalog.Column{
		col("oid", types.Oid),
		col("polname", types.Name),
		col("polrelid", types.Oid),
		col("polcmd", types.Char),
		col("polpermissive", types.Bool),
		col("polroles", oidArray),
		col("polqual", types.PgNodeTree),
		col("polwithcheck", types.PgNodeTree),
	}
	return &Table{OID: 3256, Schema: "pg_catalog", Name: "pg_policy", Kind: 'r', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			if s.Cat != nil {
				for _, r := range s.Cat.Relations() {
					for _, p := range r.Policies {
						roles := p.Roles
						if p.IsPublic() {
							roles = []uint32{0}
						}
						rb.add(p.OID, p.Name, r.OID, p.Command, p.Permissive, roles,
							nullIfEmpty(p.Using), nullIfEmpty(p.WithCheck))
					}
				}
			}
			return rb.finish()
		}}
}

// policyCommandName is pg_policies.cmd.
func policyCommandName(cmd byte) string {
	switch cmd {
	case catalog.PolicySelect:
		return "SELECT"
	case catalog.PolicyInsert:
		return "INSERT"
	case catalog.PolicyUpdate:
		return "UPDATE"
	case catalog.PolicyDelete:
		return "DELETE"
	}
	return "ALL"
}

func pgPolicies() *Table {
	cols := []catalog.Column{
		col("schemaname", types.Name),
		col("tablename", types.Name),
		col("policyname", types.Name),
		col("permissive", types.Text),
		col("roles", types.ArrayOf(types.Name)),
		col("cmd", types.Text),
		col("qual", types.Text),
		col("with_check", types.Text),
	}
	return &Table{OID: 12040, Schema: "pg_catalog", Name: "pg_policies", Kind: 'v', Columns: cols,
		Rows: func(s *Snapshot) (arrow.RecordBatch, error) {
			rb := newRows(cols)
			if s.Cat != nil {
				for _, r := range s.Cat.Relations() {
					for _, p := range r.Policies {
						perm := "RESTRICTIVE"
						if p.Permissive {
							perm = "PERMISSIVE"
						}
						roles := []string{"public"}
						if !p.IsPublic() {
							roles = roles[:0]
							for _, oid := range p.Roles {
								roles = append(roles, s.roleName(oid))
							}
							sort.Strings(roles) // the view orders them by name
						}
						rb.add(r.Schema, r.Name, p.Name, perm, roles, policyCommandName(p.Command),
							nullIfEmpty(p.Using), nullIfEmpty(p.WithCheck))
					}
				}
			}
			return rb.finish()
		}}
}
