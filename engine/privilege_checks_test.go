package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// privOutcome runs sql and describes what came back: the rows (sorted),
// or the error's SQLSTATE, message and position; COPY runs through the
// copy protocol, EXPLAIN's plan text (which differs) is not shown.
func privOutcome(s *session, sql string) string {
	ctx := context.Background()
	var err error
	out := "ok"
	switch {
	case strings.Contains(sql, "TO STDOUT"):
		var buf bytes.Buffer
		_, err = s.c.PgConn().CopyTo(ctx, &buf, sql)
		out = "ok " + strings.ReplaceAll(strings.TrimSpace(buf.String()), "\n", "|")
	case strings.Contains(sql, "FROM STDIN"):
		data := "7\t8\n"
		if strings.Contains(sql, "(x)") {
			data = "7\n"
		}
		_, err = s.c.PgConn().CopyFrom(ctx, strings.NewReader(data), sql)
	case strings.HasPrefix(sql, "EXPLAIN"):
		_, err = s.c.Exec(ctx, sql)
	default:
		var args []any
		if strings.Contains(sql, "$1") {
			args = []any{1} // a prepared statement, cached by pgx and executed again
		}
		rows, qerr := s.c.Query(ctx, sql, args...)
		if qerr == nil {
			var lines []string
			for rows.Next() {
				v, _ := rows.Values()
				lines = append(lines, fmt.Sprint(v...))
			}
			rows.Close()
			qerr = rows.Err()
			sort.Strings(lines)
			if len(lines) > 0 {
				out = "ok " + strings.Join(lines, "|")
			}
		}
		err = qerr
	}
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			out = pe.Code + " " + pe.Message
			if pe.Position != 0 {
				out += fmt.Sprintf(" @%d", pe.Position)
			}
		} else {
			out = "error " + err.Error()
		}
	}
	if n := s.takeNotices(); len(n) > 0 {
		out += " | " + strings.Join(n, " | ")
	}
	return out
}

// TestPrivilegeChecksSideBySide runs the same statements as a superuser
// and as plain roles on PostgreSQL 15 and on weir and compares each
// outcome: SELECT needs SELECT on every column it references (or on some
// column for count(*)), INSERT and COPY FROM on the columns they write,
// COPY TO and EXPLAIN check as the query would; a view's reads are
// checked as its owner, even for a superuser; a schema without USAGE
// denies the same for an existing and a missing table and is skipped on
// the search path; an unknown table is 42P01 for everyone.
func TestPrivilegeChecksSideBySide(t *testing.T) {
	sideBySide(t, []string{"pa", "pb", "pc"}, func(t *testing.T, tg target, roles []string) []string {
		admin := tg.connect(t, "")
		super := admin.query("SELECT current_user")
		a, b, c := roles[0], roles[1], roles[2]
		sfx := strings.TrimPrefix(a, "pa_")
		pt, ps, bs := "pt_"+sfx, "ps_"+sfx, "bs_"+sfx
		for _, q := range []string{
			"CREATE TABLE " + pt + " (x int, y int)",
			"INSERT INTO " + pt + " VALUES (1, 2)",
			"CREATE SCHEMA " + ps,
			"CREATE TABLE " + ps + ".hidden (x int)",
			"CREATE SCHEMA " + bs + " AUTHORIZATION " + b,
		} {
			if err := execErr(admin, q); err != nil {
				t.Fatalf("%s: %s: %v", tg.name, q, err)
			}
		}
		t.Cleanup(func() {
			execErr(admin, "DROP SCHEMA IF EXISTS "+bs+" CASCADE")
			execErr(admin, "DROP SCHEMA IF EXISTS "+ps+" CASCADE")
			execErr(admin, "DROP TABLE IF EXISTS "+pt+" CASCADE")
		})
		as := map[string]*session{"": admin, a: tg.connect(t, a), b: tg.connect(t, b), c: tg.connect(t, c)}
		norm := func(s string) string {
			for _, r := range []struct{ from, to string }{{pt, "PT"}, {ps, "PS"}, {bs, "BS"}} {
				s = strings.ReplaceAll(s, r.from, r.to)
			}
			for i, r := range roles {
				s = strings.ReplaceAll(s, r, fmt.Sprintf("role%d", i))
			}
			return strings.ReplaceAll(s, super, "SUPER")
		}
		var log []string
		for _, step := range []struct{ who, sql string }{
			{a, "SELECT * FROM " + pt},
			{a, "SELECT count(*) FROM " + pt},
			{"", "GRANT SELECT (x) ON " + pt + " TO " + a},
			{a, "SELECT x FROM " + pt},
			{a, "SELECT count(*) FROM " + pt},
			{a, "SELECT * FROM " + pt},
			{a, "SELECT x FROM " + pt + " WHERE y = 2"},
			{a, "SELECT x FROM " + pt + " ORDER BY y"},
			{a, "SELECT x, count(*) FROM " + pt + " GROUP BY x"},
			{a, "SELECT max(y) FROM " + pt},
			{a, "SELECT p.x FROM " + pt + " p JOIN " + pt + " q USING (x)"},
			{a, "SELECT 1 FROM " + pt + " p JOIN " + pt + " q ON p.y = q.x"},
			{a, "SELECT (SELECT max(x) FROM " + pt + ")"},
			{a, "SELECT x FROM (SELECT * FROM " + pt + ") s"},
			{a, "SELECT 1 WHERE EXISTS (SELECT y FROM " + pt + ")"},
			{a, "WITH c AS (SELECT x FROM " + pt + ") SELECT * FROM c"},
			{a, "WITH c AS (SELECT y FROM " + pt + ") SELECT 1"},
			{a, "SELECT x FROM " + pt + " UNION SELECT y FROM " + pt},
			{a, "SELECT 1 WHERE 1 IN (SELECT x FROM " + pt + ")"},
			{a, "SELECT x, row_number() OVER (ORDER BY x) FROM " + pt},
			{a, "SELECT x, sum(x) OVER (PARTITION BY y) FROM " + pt},
			{a, "SELECT x FROM " + pt + " GROUP BY x HAVING count(y) > 0"},
			{a, "SELECT p.x FROM " + pt + " p NATURAL JOIN " + pt + " q"},
			{a, "SELECT * FROM " + pt + " WHERE false"},
			{a, "SELECT DISTINCT x FROM " + pt + " ORDER BY x LIMIT 1"},
			{a, "SELECT " + pt + ".x FROM " + pt},
			{a, "EXPLAIN SELECT * FROM " + pt},
			{a, "EXPLAIN SELECT x FROM " + pt},
			{a, "COPY " + pt + " (x) TO STDOUT"},
			{a, "COPY " + pt + " TO STDOUT"},
			{a, "COPY (SELECT y FROM " + pt + ") TO STDOUT"},
			{a, "INSERT INTO " + pt + " VALUES (3, 4)"},
			{"", "GRANT INSERT (x) ON " + pt + " TO " + a},
			{a, "INSERT INTO " + pt + " (x) VALUES (3)"},
			{a, "INSERT INTO " + pt + " VALUES (3, 4)"},
			{a, "INSERT INTO " + pt + " (x) SELECT y FROM " + pt},
			{a, "INSERT INTO " + pt + " (x) SELECT x FROM " + pt},
			{a, "COPY " + pt + " (x) FROM STDIN"},
			{a, "COPY " + pt + " FROM STDIN"},
			{a, "EXPLAIN INSERT INTO " + pt + " VALUES (3, 4)"},
			// A prepared statement is checked at each execution.
			{"", "GRANT SELECT (y) ON " + pt + " TO " + a},
			{a, "SELECT y FROM " + pt + " WHERE x = $1"},
			{"", "REVOKE SELECT (y) ON " + pt + " FROM " + a},
			{a, "SELECT y FROM " + pt + " WHERE x = $1"},
			{"", "SET ROLE " + a},
			{"", "SELECT y FROM " + pt},
			{"", "RESET ROLE"},
			{a, "BEGIN"},
			{a, "DECLARE cur CURSOR FOR SELECT y FROM " + pt},
			{a, "ROLLBACK"},
			// Schemas: no USAGE on ps says the same whether the table exists.
			{a, "SELECT * FROM " + ps + ".hidden"},
			{a, "SELECT * FROM " + ps + ".nosuch"},
			{a, "SELECT * FROM nosuch_table_zz"},
			{a, "INSERT INTO " + ps + ".hidden VALUES (1)"},
			{a, "COPY " + ps + ".hidden TO STDOUT"},
			{a, "COPY " + ps + ".hidden (x) FROM STDIN"},
			{a, "COPY (SELECT * FROM " + ps + ".hidden) TO STDOUT"},
			{a, "EXPLAIN SELECT * FROM " + ps + ".nosuch"},
			{a, "SET search_path = " + ps + ", public"},
			{a, "SELECT * FROM hidden"},
			{a, "SELECT x FROM " + pt},
			{a, "RESET search_path"},
			{"", "GRANT pg_read_all_data TO " + c},
			{c, "SELECT * FROM " + ps + ".hidden"},
			{c, "SELECT * FROM " + pt},
			{c, "INSERT INTO " + pt + " (x) VALUES (5)"},
			// Views read as their owner.
			{b, "CREATE VIEW " + bs + ".v AS SELECT x, y FROM " + pt},
			{b, "SELECT * FROM " + bs + ".v"},
			{"", "SELECT * FROM " + bs + ".v"},
			{"", "GRANT SELECT ON " + pt + " TO " + b},
			{b, "SELECT * FROM " + bs + ".v"},
			{"", "SELECT * FROM " + bs + ".v"},
			{"", "REVOKE SELECT ON " + pt + " FROM " + b},
			{"", "GRANT SELECT (x) ON " + pt + " TO " + b},
			{b, "SELECT x FROM " + bs + ".v"},
			{b, "SELECT * FROM " + bs + ".v"},
			{a, "SELECT * FROM " + bs + ".v"},
			{"", "CREATE VIEW " + pt + "_v AS SELECT x FROM " + pt},
			{a, "SELECT * FROM " + pt + "_v"},
			{"", "GRANT SELECT ON " + pt + "_v TO " + a},
			{a, "SELECT * FROM " + pt + "_v"},
			{b, "SELECT * FROM " + pt + "_v"},
			{"", "DROP VIEW " + pt + "_v"},
			// Privileges through a group.
			{"", "GRANT " + b + " TO " + a},
			{a, "SELECT x FROM " + bs + ".v"},
		} {
			log = append(log, norm(step.who+"> "+step.sql+" => "+privOutcome(as[step.who], step.sql)))
		}
		return log
	})
}
