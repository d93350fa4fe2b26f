package engine_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestGrantSideBySide runs the same GRANT and REVOKE statements, by a
// superuser and by plain roles, on PostgreSQL 15 and on weir, and
// compares each outcome (error or warnings) and the table's relacl after
// it.
func TestGrantSideBySide(t *testing.T) {
	sideBySide(t, []string{"ga", "gb", "gc"}, func(t *testing.T, tg target, roles []string) []string {
		admin := tg.connect(t, "")
		super := admin.query("SELECT current_user")
		a, b, c := roles[0], roles[1], roles[2]
		tbl := "gt_" + strings.TrimPrefix(a, "ga_")
		if err := execErr(admin, "CREATE TABLE "+tbl+" (x int, y int)"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { execErr(admin, "DROP TABLE IF EXISTS "+tbl) })
		as := map[string]*session{"": admin, a: tg.connect(t, a), b: tg.connect(t, b), c: tg.connect(t, c)}
		var log []string
		norm := func(s string) string {
			s = strings.ReplaceAll(s, tbl, "T")
			for i, r := range roles {
				s = strings.ReplaceAll(s, r, fmt.Sprintf("role%d", i))
			}
			return strings.ReplaceAll(s, super, "SUPER")
		}
		for _, step := range []struct{ who, sql string }{
			{"", "GRANT SELECT ON " + tbl + " TO " + a + " WITH GRANT OPTION"},
			{a, "GRANT SELECT ON " + tbl + " TO " + b},
			{a, "GRANT INSERT ON " + tbl + " TO " + b},
			{a, "GRANT SELECT, INSERT ON " + tbl + " TO " + c},
			{c, "GRANT SELECT ON " + tbl + " TO " + b},
			{"", "GRANT SELECT (x), INSERT (x, y) ON " + tbl + " TO " + c},
			{"", "GRANT USAGE ON " + tbl + " TO " + c},
			{"", "GRANT SELECT (nosuch) ON " + tbl + " TO " + c},
			{"", "REVOKE GRANT OPTION FOR SELECT ON " + tbl + " FROM " + a},
			{"", "REVOKE GRANT OPTION FOR SELECT ON " + tbl + " FROM " + a + " CASCADE"},
			{"", "GRANT ALL ON " + tbl + " TO PUBLIC"},
			{"", "REVOKE ALL PRIVILEGES ON TABLE " + tbl + " FROM PUBLIC"},
			{"", "GRANT SELECT ON " + tbl + " TO nosuch_role_zz"},
			{"", "GRANT SELECT ON nosuch_table_zz TO " + a},
			{"", "GRANT SELECT ON " + tbl + " TO PUBLIC WITH GRANT OPTION"},
			{"", "GRANT SELECT ON " + tbl + " TO CURRENT_USER WITH GRANT OPTION"},
			{"", "REVOKE SELECT ON " + tbl + " FROM " + a + ", " + b},
			{b, "REVOKE SELECT ON " + tbl + " FROM " + c},
			{"", "REVOKE INSERT ON " + tbl + " FROM " + c},
		} {
			s := as[step.who]
			out := errOutcome(execErr(s, step.sql))
			if n := s.takeNotices(); len(n) > 0 {
				out += " | " + strings.Join(n, " | ")
			}
			acl := admin.query("SELECT coalesce(relacl::text, 'NULL') FROM pg_class WHERE relname = '" + tbl + "'")
			cols := admin.query("SELECT coalesce(string_agg(attname || ':' || attacl::text, ' ' ORDER BY attnum), '') FROM pg_attribute WHERE attrelid = '" + tbl + "'::regclass AND attacl IS NOT NULL")
			log = append(log, norm(step.who+"> "+step.sql+" => "+out+" ; relacl "+acl+" ; cols "+cols))
		}
		return log
	})
}
