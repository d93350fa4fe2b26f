package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/engine"
	"github.com/weir-sql/weir/internal/pgtest"
)

// Side-by-side tests of GRANT and REVOKE on schemas, the database and
// secrets, of ownership (ALTER ... OWNER TO, DROP and CREATE OR REPLACE
// by owners only, CREATE needing CREATE on the schema), of INHERIT, and
// of what DROP ROLE, REASSIGN OWNED and DROP OWNED do: each step runs on
// PostgreSQL 15 (a fresh database of the shared server) and on weir, and
// its outcome (error with DETAIL, warnings and notices) and the state
// after it must be the same.

// aclStep is one statement, run as who ("" is the superuser); weir is
// the statement weir runs when it differs from PostgreSQL's (secrets,
// which PostgreSQL's foreign servers stand for).
type aclStep struct {
	who, sql, weir string
}

// aclScenario runs steps on both servers and compares them step by
// step. names are the object names the steps use, made unique per run;
// state, if set, is a query of the superuser whose answer is recorded
// after each step.
type aclScenario struct {
	roles []string
	cfg   func(t *testing.T) engine.Config
	steps func(r []string, n func(string) string) []aclStep
	state func(r []string, n func(string) string) string
	// setup runs as the superuser on PostgreSQL only, first.
	pgSetup []string
}

func (sc aclScenario) run(t *testing.T) {
	pg := pgtest.Shared(t)
	cfg := engine.Config{DataDir: t.TempDir()}
	if sc.cfg != nil {
		cfg = sc.cfg(t)
	}
	w := startServerWith(t, cfg)
	suffix := fmt.Sprint(time.Now().UnixNano())
	roles := make([]string, len(sc.roles))
	for i, r := range sc.roles {
		roles[i] = r + "_" + suffix
	}
	name := func(s string) string { return s + "_" + suffix }
	targets := []target{{"PostgreSQL", pg.FreshDatabase(t)}, {"weir", w.url()}}
	var got [2][]string
	for i, tg := range targets {
		admin := tg.connect(t, "")
		for _, r := range roles {
			if err := execErr(admin, "CREATE ROLE "+r+" LOGIN"); err != nil {
				t.Fatalf("%s: %v", tg.name, err)
			}
		}
		if i == 0 {
			for _, q := range sc.pgSetup {
				if err := execErr(admin, q); err != nil {
					t.Fatalf("%s: %s: %v", tg.name, q, err)
				}
			}
		}
		super := admin.query("SELECT current_user")
		db := admin.query("SELECT current_database()")
		as := map[string]*session{"": admin}
		for _, r := range roles {
			as[r] = tg.connect(t, r)
		}
		norm := func(s string) string {
			for _, p := range []string{"database %s", "DATABASE %s", `database "%s"`, `for "%s"`} {
				s = strings.ReplaceAll(s, fmt.Sprintf(p, db), fmt.Sprintf(p, "DB"))
			}
			s = strings.ReplaceAll(s, "_"+suffix, "")
			return strings.ReplaceAll(s, super, "SUPER")
		}
		for _, st := range sc.steps(roles, name) {
			s := as[st.who]
			q := st.sql
			if i == 1 && st.weir != "" {
				q = st.weir
			}
			q = strings.ReplaceAll(q, "$DB", db)
			if q == `\connect` {
				// A new session of who: CONNECT on the database.
				got[i] = append(got[i], norm(st.who+`> \connect => `+aclConnect(tg, st.who)))
				continue
			}
			out := aclOutcome(execErr(s, q))
			if n := s.takeNotices(); len(n) > 0 {
				out += " | " + strings.Join(n, " | ")
			}
			line := st.who + "> " + st.sql + " => " + out
			if i == 0 {
				// PostgreSQL's foreign servers stand for weir's secrets.
				line = strings.NewReplacer("foreign server", "secret", "server \"", "secret \"", "of server ", "of secret ", "for server ", "for secret ",
					"materialized view", "streaming table", "foreign table", "source").Replace(line)
			}
			if sc.state != nil {
				line += " ; " + admin.query(sc.state(roles, name))
			}
			got[i] = append(got[i], norm(line))
		}
		t.Logf("%s:\n%s", tg.name, strings.Join(got[i], "\n"))
	}
	for i := 0; i < max(len(got[0]), len(got[1])); i++ {
		var p, q string
		if i < len(got[0]) {
			p = got[0][i]
		}
		if i < len(got[1]) {
			q = got[1][i]
		}
		if p != q {
			t.Errorf("step %d\n  PostgreSQL: %s\n  weir:       %s", i, p, q)
		}
	}
}

// aclConnect is the outcome of a new session of user.
func aclConnect(tg target, user string) string {
	cfg, err := pgx.ParseConfig(tg.url)
	if err != nil {
		return err.Error()
	}
	cfg.User = user
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return pe.Severity + " " + aclOutcome(pe)
		}
		return err.Error()
	}
	c.Close(ctx)
	return "ok"
}

// aclOutcome is "ok" or the error's SQLSTATE, message and DETAIL.
func aclOutcome(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		out := pe.Code + " " + pe.Message
		if pe.Detail != "" {
			out += " DETAIL: " + strings.ReplaceAll(pe.Detail, "\n", "; ")
		}
		return out
	}
	return errOutcome(err)
}

// TestGrantSchemaSideBySide: USAGE and CREATE on a schema, CREATE needed
// to create in it (public too, as PostgreSQL 15 has it), DROP and CREATE
// OR REPLACE by owners only, the schema owner dropping what others made
// in it.
func TestGrantSchemaSideBySide(t *testing.T) {
	aclScenario{
		roles: []string{"sa", "sb"},
		steps: func(r []string, n func(string) string) []aclStep {
			a, b, s := r[0], r[1], n("gs")
			return []aclStep{
				{"", "CREATE SCHEMA " + s, ""},
				{a, "CREATE TABLE " + s + ".t1 (x int)", ""},
				{a, "CREATE TABLE public.ta (x int)", ""},
				{"", "GRANT USAGE ON SCHEMA " + s + " TO " + a, ""},
				{a, "CREATE TABLE " + s + ".t1 (x int)", ""},
				{"", "GRANT CREATE ON SCHEMA " + s + " TO " + a + " WITH GRANT OPTION", ""},
				{a, "CREATE TABLE " + s + ".t1 (x int)", ""},
				{a, "CREATE TABLE IF NOT EXISTS " + s + ".t1 (x int)", ""},
				{a, "CREATE VIEW " + s + ".v1 AS SELECT x FROM " + s + ".t1", ""},
				{a, "GRANT SELECT ON VIEW " + s + ".v1 TO " + b, ""},
				{a, "GRANT SELECT ON TABLE " + s + ".v1 TO " + b, ""},
				{a, "REVOKE SELECT ON " + s + ".v1 FROM " + b, ""},
				{a, "GRANT USAGE ON SCHEMA " + s + " TO " + b, ""},
				{a, "GRANT CREATE ON SCHEMA " + s + " TO " + b, ""},
				{b, "CREATE TABLE " + s + ".t2 (x int)", ""},
				{b, "DROP TABLE " + s + ".t1", ""},
				{b, "DROP TABLE IF EXISTS " + s + ".nosuch", ""},
				{b, "GRANT SELECT ON " + s + ".t1 TO " + a, ""},
				{b, "GRANT SELECT ON ALL TABLES IN SCHEMA " + s + " TO " + a, ""},
				{b, "ALTER TABLE " + s + ".t1 OWNER TO " + b, ""},
				{"", "GRANT USAGE ON SCHEMA " + s + " TO " + b, ""},
				{b, "DROP TABLE " + s + ".t1", ""},
				{b, "DROP VIEW " + s + ".v1", ""},
				{b, "CREATE OR REPLACE VIEW " + s + ".v1 AS SELECT 1 AS x", ""},
				{b, "DROP TABLE IF EXISTS " + s + ".nosuch", ""},
				{b, "DROP SCHEMA " + s, ""},
				{"", "GRANT SELECT ON SCHEMA " + s + " TO " + a, ""},
				{"", "GRANT USAGE ON SCHEMA nosuch_zz TO " + a, ""},
				{"", "REVOKE CREATE ON SCHEMA " + s + " FROM " + a, ""},
				{"", "REVOKE CREATE ON SCHEMA " + s + " FROM " + a + " CASCADE", ""},
				{b, "CREATE TABLE " + s + ".t3 (x int)", ""},
				{a, "CREATE OR REPLACE VIEW " + s + ".v1 AS SELECT x FROM " + s + ".t1", ""},
				{"", "GRANT ALL ON SCHEMA " + s + " TO PUBLIC", ""},
				{b, "CREATE TABLE " + s + ".t3 (x int)", ""},
				{a, "DROP TABLE " + s + ".t3", ""},
				{b, "DROP TABLE " + s + ".t3, " + s + ".t1", ""},
				{"", "REVOKE ALL ON SCHEMA " + s + " FROM PUBLIC", ""},
				{"", "ALTER SCHEMA " + s + " OWNER TO " + a, ""},
				{a, "DROP TABLE " + s + ".t3, " + s + ".t2", ""},
				{a, "DROP VIEW " + s + ".v1", ""},
				{a, "DROP TABLE " + s + ".t1", ""},
				{a, "DROP SCHEMA " + s, ""},
			}
		},
		state: func(r []string, n func(string) string) string {
			return "SELECT coalesce(string_agg(c.relname || ':' || o.rolname, ' ' ORDER BY c.relname), '-') FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace JOIN pg_roles o ON o.oid = c.relowner WHERE s.nspname = '" + n("gs") + "'"
		},
	}.run(t)
}

// TestGrantDatabaseSideBySide: CONNECT, CREATE and TEMPORARY on the
// database; CREATE SCHEMA needs CREATE on it.
func TestGrantDatabaseSideBySide(t *testing.T) {
	aclScenario{
		roles: []string{"dx", "dy"},
		steps: func(r []string, n func(string) string) []aclStep {
			a, b := r[0], r[1]
			return []aclStep{
				{a, "CREATE SCHEMA " + n("ds2"), ""},
				{"", "GRANT CREATE ON DATABASE $DB TO " + a, ""},
				{a, "CREATE SCHEMA " + n("ds2"), ""},
				{a, "CREATE TABLE " + n("ds2") + ".t (x int)", ""},
				{b, "CREATE SCHEMA " + n("ds3") + " AUTHORIZATION " + a, ""},
				{a, "CREATE SCHEMA " + n("ds3") + " AUTHORIZATION " + b, ""},
				{a, "CREATE SCHEMA " + n("ds3") + " AUTHORIZATION nosuch_role_zz", ""},
				{"", "GRANT CONNECT ON DATABASE $DB TO " + a + " WITH GRANT OPTION", ""},
				{a, "GRANT CONNECT ON DATABASE $DB TO " + b, ""},
				{a, "GRANT CREATE ON DATABASE $DB TO " + b, ""},
				{a, "GRANT ALL ON DATABASE $DB TO " + b, ""},
				{"", "GRANT USAGE ON DATABASE $DB TO " + a, ""},
				{"", "GRANT CONNECT ON DATABASE nosuch_db_zz TO " + a, ""},
				{"", "REVOKE CONNECT ON DATABASE $DB FROM " + a, ""},
				{"", "REVOKE ALL ON DATABASE $DB FROM " + a + " CASCADE", ""},
				{a, "CREATE SCHEMA " + n("ds4"), ""},
				{"", "REVOKE CONNECT ON DATABASE $DB FROM PUBLIC", ""},
				{b, `\connect`, ""},
				{a, `\connect`, ""},
				{"", "GRANT CONNECT ON DATABASE $DB TO " + b, ""},
				{b, `\connect`, ""},
				{"", "GRANT CONNECT ON DATABASE $DB TO PUBLIC", ""},
				{"", "GRANT TEMP ON DATABASE $DB TO " + b, ""},
				{"", "DROP ROLE " + b, ""},
				{"", "DROP OWNED BY " + b, ""},
				{"", "DROP ROLE " + b, ""},
				{a, "DROP TABLE " + n("ds2") + ".t", ""},
				{a, "DROP SCHEMA " + n("ds2"), ""},
			}
		},
	}.run(t)
}

// TestAlterOwnerSideBySide: ALTER TABLE|VIEW|SCHEMA ... OWNER TO with
// PostgreSQL's checks and order (owner, membership, CREATE of the new
// owner on the schema, CREATE on the database for a schema), the ACL
// following the owner, DROP ROLE refused while a role owns or holds
// anything, REASSIGN OWNED and DROP OWNED.
func TestAlterOwnerSideBySide(t *testing.T) {
	aclScenario{
		roles: []string{"oa", "ob", "oc"},
		steps: func(r []string, n func(string) string) []aclStep {
			a, b, c, tb, v, s := r[0], r[1], r[2], n("ot"), n("ov"), n("os")
			return []aclStep{
				{"", "CREATE TABLE " + tb + " (x int, y int)", ""},
				{"", "CREATE VIEW " + v + " AS SELECT x FROM " + tb, ""},
				{"", "GRANT SELECT ON " + tb + " TO " + a + " WITH GRANT OPTION", ""},
				{"", "GRANT INSERT (y) ON " + tb + " TO " + c, ""},
				{a, "GRANT SELECT ON " + tb + " TO " + c, ""},
				{a, "ALTER TABLE " + tb + " OWNER TO " + a, ""},
				{"", "ALTER TABLE " + tb + " OWNER TO " + a, ""},
				{a, "ALTER TABLE " + tb + " OWNER TO " + b, ""},
				{"", "GRANT " + b + " TO " + a, ""},
				{a, "ALTER TABLE " + tb + " OWNER TO " + b, ""},
				{"", "GRANT CREATE ON SCHEMA public TO " + b, ""},
				{a, "ALTER TABLE " + tb + " OWNER TO " + b, ""},
				{a, "ALTER TABLE " + tb + " OWNER TO " + b, ""},
				{c, "ALTER TABLE " + tb + " OWNER TO " + b, ""},
				{a, "ALTER VIEW " + tb + " OWNER TO " + a, ""},
				{c, "ALTER VIEW " + tb + " OWNER TO " + a, ""},
				{a, "ALTER TABLE nosuch_zz OWNER TO " + a, ""},
				{"", "ALTER TABLE IF EXISTS nosuch_zz OWNER TO " + a, ""},
				{"", "ALTER VIEW " + v + " OWNER TO nosuch_role_zz", ""},
				{"", "ALTER VIEW " + v + " OWNER TO " + c, ""},
				{"", "CREATE SCHEMA " + s, ""},
				{a, "ALTER SCHEMA " + s + " OWNER TO " + a, ""},
				{"", "ALTER SCHEMA " + s + " OWNER TO " + a, ""},
				{a, "ALTER SCHEMA " + s + " OWNER TO " + b, ""},
				{"", "GRANT CREATE ON DATABASE $DB TO " + a, ""},
				{a, "ALTER SCHEMA " + s + " OWNER TO " + b, ""},
				{a, "ALTER SCHEMA " + s + " OWNER TO " + c, ""},
				{c, "ALTER SCHEMA " + s + " OWNER TO " + b, ""},
				{"", "ALTER SCHEMA nosuch_zz OWNER TO " + a, ""},
				{"", "DROP ROLE " + b, ""},
				{"", "DROP ROLE " + c, ""},
				{c, "DROP OWNED BY " + a, ""},
				{c, "REASSIGN OWNED BY " + c + " TO " + a, ""},
				{"", "REASSIGN OWNED BY " + b + " TO " + c, ""},
				{"", "DROP ROLE " + b, ""},
				{"", "DROP OWNED BY " + b, ""},
				{"", "DROP ROLE " + b, ""},
				{"", "DROP OWNED BY " + c, ""},
				{"", "DROP ROLE " + c, ""},
				{"", "REVOKE CREATE ON DATABASE $DB FROM " + a, ""},
			}
		},
		state: func(r []string, n func(string) string) string {
			return "SELECT coalesce(string_agg(c.relname || ':' || o.rolname || ':' || coalesce(c.relacl::text, 'NULL'), ' ' ORDER BY c.relname), '-') || ' cols ' || " +
				"(SELECT coalesce(string_agg(attname || ':' || attacl::text, ' '), '') FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = '" + n("ot") + "' AND attacl IS NOT NULL) || ' schema ' || " +
				"(SELECT coalesce(max(o.rolname), '-') FROM pg_namespace s JOIN pg_roles o ON o.oid = s.nspowner WHERE s.nspname = '" + n("os") + "') " +
				"FROM pg_class c JOIN pg_roles o ON o.oid = c.relowner WHERE c.relname IN ('" + n("ot") + "', '" + n("ov") + "')"
		},
	}.run(t)
}

// TestInheritSideBySide: NOINHERIT keeps a member from using its roles'
// privileges (but not from SET ROLE to them), rolinherit shows it, and
// only a role with CREATEROLE may change it.
func TestInheritSideBySide(t *testing.T) {
	aclScenario{
		roles: []string{"ia", "ib", "ic"},
		steps: func(r []string, n func(string) string) []aclStep {
			a, b, c, tb := r[0], r[1], r[2], n("it")
			return []aclStep{
				{"", "CREATE TABLE " + tb + " (x int)", ""},
				{"", "GRANT SELECT ON " + tb + " TO " + b + " WITH GRANT OPTION", ""},
				{"", "GRANT " + b + " TO " + a, ""},
				{"", "ALTER ROLE " + a + " NOINHERIT", ""},
				{a, "GRANT SELECT ON " + tb + " TO " + c, ""},
				{a, "SET ROLE " + b, ""},
				{a, "GRANT SELECT ON " + tb + " TO " + c, ""},
				{a, "RESET ROLE", ""},
				{a, "ALTER ROLE " + a + " INHERIT", ""},
				{"", "ALTER ROLE " + a + " INHERIT", ""},
				{a, "GRANT INSERT ON " + tb + " TO " + c, ""},
				{a, "REVOKE SELECT ON " + tb + " FROM " + c, ""},
				{"", "CREATE ROLE " + n("inh") + " NOINHERIT", ""},
				{"", "CREATE ROLE " + n("inh2") + " INHERIT", ""},
				{"", "DROP ROLE " + n("inh") + ", " + n("inh2"), ""},
				{"", "DROP ROLE " + b, ""},
				{"", "DROP TABLE " + tb, ""},
			}
		},
		state: func(r []string, n func(string) string) string {
			return "SELECT string_agg(rolname || ':' || rolinherit::text, ' ' ORDER BY rolname) FROM pg_roles WHERE rolname LIKE 'i%" + strings.TrimPrefix(n(""), "_") + "'"
		},
	}.run(t)
}

// TestGrantSecretSideBySide: weir's GRANT USAGE ON SECRET, ALTER SECRET
// ... OWNER TO and DROP SECRET against PostgreSQL's foreign servers,
// whose privilege rules they follow (USAGE only, the owner's rights).
func TestGrantSecretSideBySide(t *testing.T) {
	aclScenario{
		roles: []string{"ka", "kb", "kc"},
		cfg: func(t *testing.T) engine.Config {
			key := make([]byte, 32)
			for i := range key {
				key[i] = byte(i + 7)
			}
			return engine.Config{DataDir: t.TempDir(), SecretKey: key}
		},
		steps: func(r []string, n func(string) string) []aclStep {
			a, b, c, k, w := r[0], r[1], r[2], n("ks"), n("kw")
			on := func(pg, weir string) aclStep { return aclStep{"", pg, weir} }
			as := func(who string, st aclStep) aclStep { st.who = who; return st }
			grant := func(rest string) aclStep {
				return on("GRANT "+strings.ReplaceAll(rest, "%", "FOREIGN SERVER "+k), "GRANT "+strings.ReplaceAll(rest, "%", "SECRET "+k))
			}
			revoke := func(rest string) aclStep {
				return on("REVOKE "+strings.ReplaceAll(rest, "%", "FOREIGN SERVER "+k), "REVOKE "+strings.ReplaceAll(rest, "%", "SECRET "+k))
			}
			owner := func(to string) aclStep {
				return on("ALTER SERVER "+k+" OWNER TO "+to, "ALTER SECRET "+k+" OWNER TO "+to)
			}
			drop := on("DROP SERVER "+k, "DROP SECRET "+k)
			return []aclStep{
				on("CREATE FOREIGN DATA WRAPPER "+w, "SELECT 1"),
				on("CREATE SERVER "+k+" FOREIGN DATA WRAPPER "+w, "CREATE SECRET "+k+" AS 'hunter2'"),
				grant("USAGE ON % TO " + a + " WITH GRANT OPTION"),
				as(a, grant("USAGE ON % TO "+b)),
				as(b, grant("USAGE ON % TO "+c)),
				as(c, grant("USAGE ON % TO "+b)),
				grant("SELECT ON % TO " + a),
				grant("ALL ON % TO " + c),
				on("GRANT USAGE ON FOREIGN SERVER nosuch_zz TO "+a, "GRANT USAGE ON SECRET nosuch_zz TO "+a),
				revoke("USAGE ON % FROM " + a),
				revoke("USAGE ON % FROM " + a + " CASCADE"),
				as(a, owner(a)),
				owner(a),
				as(a, owner(b)),
				as(b, drop),
				{"", "DROP ROLE " + a, ""},
				{"", "DROP ROLE " + c, ""},
				{"", "CREATE TABLE secret (x int)", ""},
				{"", "GRANT SELECT ON secret TO " + b, ""},
				{"", "REVOKE SELECT ON secret FROM " + b, ""},
				{"", "CREATE SCHEMA secret", ""},
				{"", "CREATE TABLE secret.t (x int)", ""},
				{"", "GRANT SELECT ON secret.t TO " + b, ""},
				{"", "DROP TABLE secret.t", ""},
				{"", "DROP SCHEMA secret", ""},
				{"", "DROP TABLE secret", ""},
				as(a, drop),
				{"", "DROP ROLE " + c, ""},
			}
		},
	}.run(t)
}

// TestOwnerStreamingSideBySide: ALTER STREAMING TABLE and ALTER SOURCE
// ... OWNER TO, and DROP of them by owners only, against PostgreSQL's
// materialized views and foreign tables, the relation kinds weir's
// stand in for in pg_class.
func TestOwnerStreamingSideBySide(t *testing.T) {
	aclScenario{
		roles: []string{"ma", "mb"},
		steps: func(r []string, n func(string) string) []aclStep {
			a, b, tb, m, f, w := r[0], r[1], n("mt"), n("mm"), n("mf"), n("mw")
			return []aclStep{
				{"", "CREATE FOREIGN DATA WRAPPER " + w, "SELECT 1"},
				{"", "CREATE SERVER " + w + " FOREIGN DATA WRAPPER " + w, "SELECT 1"},
				{"", "CREATE TABLE " + tb + " (x int)", ""},
				{"", "CREATE MATERIALIZED VIEW " + m + " AS SELECT x FROM " + tb, "CREATE STREAMING TABLE " + m + " AS SELECT x FROM STREAM " + tb},
				{"", "CREATE FOREIGN TABLE " + f + " (x int) SERVER " + w, "CREATE SOURCE " + f + " WITH (connector = 'nexmark', table = 'bid', max_events = 10)"},
				{"", "GRANT SELECT ON " + m + ", " + f + " TO " + b, ""},
				{a, "ALTER MATERIALIZED VIEW " + m + " OWNER TO " + a, "ALTER STREAMING TABLE " + m + " OWNER TO " + a},
				{"", "GRANT CREATE ON SCHEMA public TO " + a, ""},
				{"", "ALTER MATERIALIZED VIEW " + m + " OWNER TO " + a, "ALTER STREAMING TABLE " + m + " OWNER TO " + a},
				{b, "DROP MATERIALIZED VIEW " + m, "DROP STREAMING TABLE " + m},
				{a, "ALTER FOREIGN TABLE " + f + " OWNER TO " + a, "ALTER SOURCE " + f + " OWNER TO " + a},
				{"", "ALTER FOREIGN TABLE " + f + " OWNER TO " + a, "ALTER SOURCE " + f + " OWNER TO " + a},
				{b, "DROP FOREIGN TABLE " + f, "DROP SOURCE " + f},
				{a, "ALTER MATERIALIZED VIEW " + tb + " OWNER TO " + a, "ALTER STREAMING TABLE " + tb + " OWNER TO " + a},
				{"", "ALTER MATERIALIZED VIEW " + tb + " OWNER TO " + a, "ALTER STREAMING TABLE " + tb + " OWNER TO " + a},
				{"", "ALTER MATERIALIZED VIEW public." + m + " OWNER TO " + b, "ALTER STREAMING TABLE public." + m + " OWNER TO " + b},
				{"", "ALTER TABLE " + m + " OWNER TO " + a, ""},
				{"", "ALTER TABLE " + m + " OWNER TO " + b, ""},
				{"", "DROP ROLE " + a, ""},
				{"", "REVOKE CREATE ON SCHEMA public FROM " + a, ""},
				{a, "DROP FOREIGN TABLE " + f, "DROP SOURCE " + f},
				{b, "DROP MATERIALIZED VIEW " + m, "DROP STREAMING TABLE " + m},
				{"", "DROP TABLE " + tb, ""},
			}
		},
		state: func(r []string, n func(string) string) string {
			return "SELECT coalesce(string_agg(c.relname || ':' || o.rolname || ':' || coalesce(c.relacl::text, 'NULL'), ' ' ORDER BY c.relname), '-') " +
				"FROM pg_class c JOIN pg_roles o ON o.oid = c.relowner WHERE c.relname IN ('" + n("mm") + "', '" + n("mf") + "')"
		},
	}.run(t)
}
