package engine_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestPrivilegeFunctionsMatrix asks has_table_privilege,
// has_column_privilege, has_any_column_privilege, has_schema_privilege,
// has_database_privilege and pg_has_role, for every role × privilege ×
// object after grants with and without grant option, to PUBLIC, to a
// group and through a chain of groups, on PostgreSQL 15 and weir, and
// compares every answer.
func TestPrivilegeFunctionsMatrix(t *testing.T) {
	sideBySide(t, []string{"xa", "xb", "xg", "xh", "xs"}, func(t *testing.T, tg target, roles []string) []string {
		admin := tg.connect(t, "")
		a, b, g, h, su := roles[0], roles[1], roles[2], roles[3], roles[4]
		tbl := "xt_" + strings.TrimPrefix(a, "xa_")
		other := tbl + "_o"
		for _, q := range []string{
			"CREATE TABLE " + tbl + " (p int, q int, r int)",
			"CREATE TABLE " + other + " (z int)",
			"GRANT " + h + " TO " + g, // b is in g, g in h: b has h's privileges
			"GRANT " + g + " TO " + b,
			"ALTER ROLE " + su + " SUPERUSER",
			"GRANT SELECT ON " + tbl + " TO " + a + " WITH GRANT OPTION",
			"GRANT INSERT, UPDATE ON " + tbl + " TO " + h,
			"GRANT DELETE ON " + tbl + " TO " + g + " WITH GRANT OPTION",
			"GRANT SELECT (q), REFERENCES (r) ON " + tbl + " TO " + b,
			"GRANT UPDATE (p) ON " + tbl + " TO " + a + " WITH GRANT OPTION",
			"GRANT TRUNCATE ON " + tbl + " TO PUBLIC",
			"GRANT SELECT ON " + other + " TO " + g,
		} {
			if err := execErr(admin, q); err != nil {
				t.Fatalf("%s: %s: %v", tg.name, q, err)
			}
		}
		t.Cleanup(func() { execErr(admin, "DROP TABLE IF EXISTS "+tbl+", "+other) })
		var log []string
		ask := func(q string) {
			out := admin.query("SELECT " + q)
			for i, r := range roles {
				q = strings.ReplaceAll(q, r, fmt.Sprintf("role%d", i))
			}
			log = append(log, strings.ReplaceAll(q, tbl, "T")+" = "+out)
		}
		who := append([]string{"public"}, roles...)
		tablePrivs := []string{"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"}
		for _, r := range who {
			for _, p := range tablePrivs {
				ask(fmt.Sprintf("has_table_privilege('%s', '%s', '%s')", r, tbl, p))
				ask(fmt.Sprintf("has_table_privilege('%s', '%s', '%s WITH GRANT OPTION')", r, tbl, strings.ToLower(p)))
			}
			ask(fmt.Sprintf("has_table_privilege('%s', '%s', 'select')", r, other))
			for _, c := range []string{"p", "q", "r"} {
				for _, p := range []string{"SELECT", "INSERT", "UPDATE", "REFERENCES"} {
					ask(fmt.Sprintf("has_column_privilege('%s', '%s', '%s', '%s')", r, tbl, c, p))
				}
				ask(fmt.Sprintf("has_column_privilege('%s', '%s', '%s', 'update with grant option')", r, tbl, c))
			}
			for _, p := range []string{"SELECT", "INSERT", "UPDATE", "REFERENCES", "select with grant option, update with grant option"} {
				ask(fmt.Sprintf("has_any_column_privilege('%s', '%s', '%s')", r, tbl, p))
			}
			for _, p := range []string{"USAGE", "CREATE", "usage with grant option"} {
				ask(fmt.Sprintf("has_schema_privilege('%s', 'public', '%s')", r, p))
			}
			for _, p := range []string{"CONNECT", "TEMP", "CREATE", "connect, create"} {
				ask(fmt.Sprintf("has_database_privilege('%s', current_database(), '%s')", r, p))
			}
			if r != "public" {
				for _, to := range []string{g, h, a} {
					for _, p := range []string{"MEMBER", "USAGE", "USAGE WITH ADMIN OPTION"} {
						ask(fmt.Sprintf("pg_has_role('%s', '%s', '%s')", r, to, p))
					}
				}
			}
		}
		// The same questions by OID and as the current user.
		ask(fmt.Sprintf("has_table_privilege('%s', '%s'::regclass::oid, 'select')", a, tbl))
		ask(fmt.Sprintf("has_column_privilege('%s'::regclass, 2::int2, 'select')", tbl))
		ask(fmt.Sprintf("has_column_privilege('%s', '%s'::regclass, 'q', 'select')", b, tbl))
		ask(fmt.Sprintf("has_any_column_privilege((SELECT oid FROM pg_roles WHERE rolname = '%s'), '%s', 'references')", b, tbl))
		return log
	})
}
