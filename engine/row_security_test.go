package engine_test

import (
	"context"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/internal/pgtest"
)

// Row-level security compared with PostgreSQL 15, statement by statement:
// the same script runs on both servers (as a superuser, switching roles
// with SET ROLE) and each statement's outcome — rows, SQLSTATE and
// message, notices — must be the same.

// rlsScript is a script's statements with {s} standing for a suffix that
// makes its roles and schema unique on the shared PostgreSQL. A statement
// starting with "~" is setup whose outcome is not compared.
type rlsScript []string

// rlsConn opens a connection that records its notices.
func rlsConn(t *testing.T, url string, notices *[]string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		*notices = append(*notices, n.Severity+" "+n.Code+" "+n.Message)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// rlsOutcome runs one statement and describes what it did: its rows
// (sorted unless the statement orders them) or its error, then its
// notices.
func rlsOutcome(c *pgx.Conn, notices *[]string, sql string) string {
	*notices = (*notices)[:0]
	var lines []string
	var rows pgx.Rows
	var err error
	switch upper := strings.ToUpper(sql); {
	case strings.HasPrefix(upper, "COPY") && strings.Contains(upper, "TO STDOUT"):
		var buf strings.Builder
		_, err = c.PgConn().CopyTo(context.Background(), &buf, sql)
		lines = strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	case strings.HasPrefix(upper, "COPY") && strings.Contains(upper, "FROM STDIN"):
		// The data follows the statement's first line.
		stmt, data, _ := strings.Cut(sql, "\n")
		_, err = c.PgConn().CopyFrom(context.Background(), strings.NewReader(data), stmt)
	default:
		rows, err = c.Query(context.Background(), sql, pgx.QueryExecModeSimpleProtocol)
	}
	if err == nil && rows != nil {
		for rows.Next() {
			vals, verr := rows.Values()
			if verr != nil {
				err = verr
				break
			}
			parts := make([]string, len(vals))
			for i, v := range vals {
				parts[i] = fmt.Sprint(v)
			}
			lines = append(lines, strings.Join(parts, "|"))
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	if !strings.Contains(strings.ToUpper(sql), "ORDER BY") {
		sort.Strings(lines)
	}
	out := errOutcome(err)
	if err == nil {
		out = "rows: " + strings.Join(lines, "; ")
	}
	for _, n := range *notices {
		out += "\n  " + n
	}
	return out
}

// runRLSScript runs script on weir and PostgreSQL and reports every
// statement whose outcome differs.
func runRLSScript(t *testing.T, script rlsScript) {
	t.Helper()
	pg := pgtest.Shared(t)
	w := startServer(t, t.TempDir())
	s := fmt.Sprint(time.Now().UnixNano())
	var pgNotices, wNotices []string
	pc := rlsConn(t, pg.URL(), &pgNotices)
	wc := rlsConn(t, w.url(), &wNotices)
	expand := func(q string) string { return strings.ReplaceAll(q, "{s}", s) }
	setup := []string{"CREATE SCHEMA rls_{s}", "SET search_path = rls_{s}"}
	for _, q := range setup {
		mustExec(t, pc, expand(q))
		mustExec(t, wc, expand(q))
	}
	t.Cleanup(func() {
		ctx := context.Background()
		pc.Exec(ctx, "RESET ROLE")
		pc.Exec(ctx, expand("DROP SCHEMA rls_{s} CASCADE"))
		for _, r := range []string{"alice", "bob", "carol", "grp"} {
			pc.Exec(ctx, expand("DROP OWNED BY "+r+"_{s}"))
			pc.Exec(ctx, expand("DROP ROLE IF EXISTS "+r+"_{s}"))
		}
	})
	for _, q := range script {
		compare := !strings.HasPrefix(q, "~")
		q = expand(strings.TrimPrefix(q, "~"))
		// The bootstrap superusers' names differ: postgres and weir.
		pgOut := strings.ReplaceAll(rlsOutcome(pc, &pgNotices, q), "[postgres]", "[weir]")
		wOut := rlsOutcome(wc, &wNotices, q)
		t.Logf("%s → %s", q, wOut)
		if compare && pgOut != wOut {
			t.Errorf("%s\n  PostgreSQL: %s\n  weir:       %s", q, pgOut, wOut)
		}
	}
}

// TestRowSecurityDDL: CREATE, ALTER and DROP POLICY and ALTER TABLE … ROW
// LEVEL SECURITY with their errors, and the catalogs that show them.
func TestRowSecurityDDL(t *testing.T) {
	runRLSScript(t, rlsScript{
		"CREATE ROLE alice_{s}",
		"CREATE ROLE bob_{s}",
		"CREATE TABLE docs (id int, owner text, level int)",
		"CREATE VIEW vdocs AS SELECT id FROM docs",
		"GRANT USAGE ON SCHEMA rls_{s} TO PUBLIC",
		"CREATE POLICY p1 ON docs USING (owner = current_user)",
		"CREATE POLICY p1 ON docs USING (true)",
		"CREATE POLICY p2 ON nosuch USING (true)",
		"CREATE POLICY p2 ON docs TO nosuchrole_{s} USING (true)",
		"CREATE POLICY p2 ON docs USING (nocol > 1)",
		"CREATE POLICY p2 ON docs USING (level + 1)",
		"CREATE POLICY p2 ON docs USING (count(*) > 1)",
		"CREATE POLICY p2 ON docs USING (row_number() OVER () > 1)",
		"CREATE POLICY p2 ON docs USING (generate_series(1, 2) > 1)",
		"CREATE POLICY p2 ON docs FOR SELECT WITH CHECK (true)",
		"CREATE POLICY p2 ON docs FOR DELETE WITH CHECK (true)",
		"CREATE POLICY p2 ON docs FOR INSERT USING (true)",
		"CREATE POLICY p2 ON vdocs USING (true)",
		"CREATE POLICY p2 ON docs AS RESTRICTIVE FOR SELECT TO alice_{s}, bob_{s} USING (level < 3)",
		"CREATE POLICY p3 ON docs FOR INSERT TO PUBLIC, alice_{s} WITH CHECK (owner = current_user AND level > 0)",
		"CREATE POLICY p4 ON docs FOR UPDATE TO CURRENT_USER USING (level IS NOT NULL) WITH CHECK (NOT (level > 9))",
		"CREATE POLICY p5 ON docs FOR DELETE TO SESSION_USER USING (id IN (SELECT 1))",
		"CREATE POLICY p6 ON docs USING (owner = 'x' OR 'y' <> owner OR owner IN ('a', 'b') OR id NOT IN (1, 2) OR owner = current_user)",
		"CREATE POLICY p7 ON docs USING (-level < 0 AND owner IS NULL)",
		"SELECT policyname, permissive, roles, cmd, qual, with_check FROM pg_policies WHERE schemaname = 'rls_{s}' ORDER BY policyname",
		"SELECT polname, polcmd, polpermissive, polroles = '{0}', pg_get_expr(polqual, polrelid), pg_get_expr(polwithcheck, polrelid) FROM pg_policy WHERE polrelid = 'docs'::regclass ORDER BY polname",
		"SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE oid = 'docs'::regclass",
		"ALTER TABLE docs ENABLE ROW LEVEL SECURITY",
		"ALTER TABLE docs FORCE ROW LEVEL SECURITY",
		"SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE oid = 'docs'::regclass",
		"SELECT rowsecurity FROM pg_tables WHERE tablename = 'docs' AND schemaname = 'rls_{s}'",
		"ALTER TABLE docs NO FORCE ROW LEVEL SECURITY, DISABLE ROW LEVEL SECURITY",
		"SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE oid = 'docs'::regclass",
		"ALTER TABLE vdocs ENABLE ROW LEVEL SECURITY",
		"ALTER TABLE IF EXISTS nosuch ENABLE ROW LEVEL SECURITY",
		"ALTER TABLE nosuch ENABLE ROW LEVEL SECURITY",
		"ALTER POLICY p1 ON docs RENAME TO p2",
		"ALTER POLICY nosuch ON docs RENAME TO p9",
		"ALTER POLICY p1 ON docs RENAME TO p0",
		"ALTER POLICY p0 ON docs TO alice_{s}",
		"ALTER POLICY p0 ON docs USING (owner = current_user OR level = 1)",
		"ALTER POLICY p2 ON docs WITH CHECK (true)",
		"ALTER POLICY p3 ON docs USING (true)",
		"ALTER POLICY nosuch ON docs USING (true)",
		"ALTER POLICY p0 ON docs USING (nocol = 1)",
		"ALTER POLICY p0 ON docs TO nosuchrole_{s}",
		"SELECT policyname, roles, qual FROM pg_policies WHERE schemaname = 'rls_{s}' ORDER BY policyname",
		"SET ROLE alice_{s}",
		"CREATE POLICY p9 ON docs USING (true)",
		"ALTER POLICY p0 ON docs USING (true)",
		"DROP POLICY p0 ON docs",
		"DROP POLICY nosuch ON docs",
		"ALTER TABLE docs ENABLE ROW LEVEL SECURITY",
		"RESET ROLE",
		"DROP POLICY nosuch ON docs",
		"DROP POLICY IF EXISTS nosuch ON docs",
		"DROP POLICY IF EXISTS nosuch ON nosuchtable",
		"DROP POLICY p9 ON nosuchtable",
		"DROP POLICY p0 ON docs",
		"DROP POLICY p2 ON docs",
		"SELECT policyname FROM pg_policies WHERE schemaname = 'rls_{s}' ORDER BY policyname",
		"CREATE ROLE carol_{s} BYPASSRLS",
		"ALTER ROLE bob_{s} BYPASSRLS",
		"SELECT rolname, rolbypassrls FROM pg_roles WHERE rolname LIKE '%_{s}' ORDER BY 1",
		"ALTER ROLE bob_{s} NOBYPASSRLS",
		"SELECT rolname, rolbypassrls FROM pg_authid WHERE rolname LIKE '%_{s}' ORDER BY 1",
		"SET ROLE alice_{s}",
		"ALTER ROLE alice_{s} BYPASSRLS",
		"CREATE ROLE dave_{s} BYPASSRLS",
		"RESET ROLE",
	})
}

// TestRowSecurityReads: what readers see — default deny, permissive OR,
// restrictive AND, roles through membership, the owner, FORCE,
// BYPASSRLS, row_security = off, views (read as their owner), COPY TO —
// and what INSERT and COPY FROM may add.
func TestRowSecurityReads(t *testing.T) {
	runRLSScript(t, rlsScript{
		"CREATE ROLE alice_{s}",
		"CREATE ROLE bob_{s}",
		"CREATE ROLE grp_{s}",
		"CREATE ROLE carol_{s} BYPASSRLS",
		"GRANT grp_{s} TO bob_{s}",
		"CREATE TABLE docs (id int, owner text, level int)",
		"INSERT INTO docs VALUES (1, 'alice_{s}', 1), (2, 'bob_{s}', 2), (3, 'alice_{s}', 3), (4, 'carol_{s}', 1)",
		"GRANT USAGE ON SCHEMA rls_{s} TO PUBLIC",
		"GRANT SELECT, INSERT ON docs TO PUBLIC",
		"ALTER TABLE docs ENABLE ROW LEVEL SECURITY",
		// Row security on and no policy: nothing for others, all for the owner.
		"SET ROLE alice_{s}",
		"SELECT * FROM docs ORDER BY id",
		"INSERT INTO docs VALUES (9, 'alice_{s}', 1)",
		"RESET ROLE",
		"SELECT count(*) FROM docs",
		"CREATE POLICY own ON docs USING (owner = current_user)",
		"CREATE POLICY grp ON docs TO grp_{s} USING (level = 1)",
		"CREATE POLICY lim ON docs AS RESTRICTIVE FOR SELECT TO grp_{s} USING (level < 2 OR owner = current_user)",
		"CREATE POLICY ins ON docs FOR INSERT WITH CHECK (level > 0)",
		"CREATE POLICY cap ON docs AS RESTRICTIVE FOR INSERT WITH CHECK (level < 5)",
		"SET ROLE alice_{s}",
		"SELECT * FROM docs ORDER BY id",
		"SELECT count(*), sum(level) FROM docs WHERE level > 1",
		"SELECT d.id FROM docs d JOIN docs e ON d.id = e.id ORDER BY 1",
		"SELECT id FROM docs WHERE id IN (SELECT id FROM docs WHERE level = 3)",
		"COPY docs TO STDOUT",
		"INSERT INTO docs VALUES (5, 'alice_{s}', 2)",
		"INSERT INTO docs VALUES (6, 'bob_{s}', 2)",
		"INSERT INTO docs VALUES (7, 'alice_{s}', 0)",
		"INSERT INTO docs VALUES (7, 'alice_{s}', NULL)",
		"INSERT INTO docs VALUES (8, 'alice_{s}', 7)",
		"INSERT INTO docs VALUES (13, 'x', 0)",
		"COPY docs FROM STDIN\n20\talice_{s}\t1\n",
		"COPY docs (id) FROM STDIN\n21\n",
		"INSERT INTO docs VALUES (10, 'alice_{s}', 1), (11, 'x', 9)",
		"INSERT INTO docs SELECT id + 100, owner, level FROM docs",
		"SELECT * FROM docs ORDER BY id",
		"SET row_security = off",
		"SELECT * FROM docs",
		"INSERT INTO docs VALUES (12, 'alice_{s}', 1)",
		"RESET row_security",
		"RESET ROLE",
		"SET ROLE bob_{s}",
		"SELECT * FROM docs ORDER BY id",
		"RESET ROLE",
		"SET ROLE carol_{s}",
		"SELECT count(*) FROM docs",
		"SET row_security = off",
		"SELECT count(*) FROM docs",
		"RESET row_security",
		"RESET ROLE",
		// The owner (a superuser here) reads everything, with FORCE too
		// (superusers bypass row security).
		"COPY docs FROM STDIN\n22\tx\t1\n",
		"ALTER TABLE docs FORCE ROW LEVEL SECURITY",
		"SELECT count(*) FROM docs",
		"SET row_security = off",
		"SELECT count(*) FROM docs",
		"RESET row_security",
		// A view reads as its owner, a superuser: every row.
		"CREATE VIEW vdocs AS SELECT id, owner FROM docs",
		"GRANT SELECT ON vdocs TO PUBLIC",
		"SET ROLE alice_{s}",
		"SELECT * FROM vdocs ORDER BY id",
		"COPY (SELECT id FROM docs ORDER BY id) TO STDOUT",
		"RESET ROLE",
		"ALTER TABLE docs DISABLE ROW LEVEL SECURITY",
		"SET ROLE alice_{s}",
		"SELECT count(*) FROM docs",
		"RESET ROLE",
	})
}

// TestRowSecurityPrepared: a statement prepared by one role and run by
// another (the plan cache) gets the other's policies.
func TestRowSecurityPrepared(t *testing.T) {
	runRLSScript(t, rlsScript{
		"CREATE ROLE alice_{s}",
		"CREATE ROLE bob_{s}",
		"CREATE TABLE docs (id int, owner text)",
		"INSERT INTO docs VALUES (1, 'alice_{s}'), (2, 'bob_{s}')",
		"GRANT USAGE ON SCHEMA rls_{s} TO PUBLIC",
		"GRANT SELECT ON docs TO PUBLIC",
		"ALTER TABLE docs ENABLE ROW LEVEL SECURITY",
		"CREATE POLICY a ON docs TO alice_{s} USING (id = 1)",
		"CREATE POLICY b ON docs TO bob_{s} USING (id = 2)",
		"SET ROLE alice_{s}",
		"SELECT * FROM docs",
		"SET ROLE bob_{s}",
		"SELECT * FROM docs",
		"SET row_security = off",
		"SELECT * FROM docs",
		"RESET row_security",
		"RESET ROLE",
		"SELECT * FROM docs",
	})
}

// TestRowSecurityPsqlDescribe: psql's \d prints a table's policies and
// its row security state as PostgreSQL's does.
func TestRowSecurityPsqlDescribe(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatalf("psql: %v", err)
	}
	pg := pgtest.Shared(t)
	w := startServer(t, t.TempDir())
	s := fmt.Sprint(time.Now().UnixNano())
	schema := "rlsd_" + s
	script := strings.ReplaceAll(`CREATE ROLE alice_{s};
CREATE SCHEMA rlsd_{s};
SET search_path = rlsd_{s};
CREATE TABLE docs (id int, owner text, level int);
CREATE POLICY own ON docs USING (owner = current_user);
CREATE POLICY lim ON docs AS RESTRICTIVE FOR SELECT TO alice_{s} USING (level < 3 AND id IS NOT NULL);
CREATE POLICY ins ON docs FOR INSERT WITH CHECK (level > 0);
CREATE POLICY sub ON docs FOR DELETE USING (id IN (SELECT 1));
CREATE TABLE plain (a int);
\d docs
ALTER TABLE docs ENABLE ROW LEVEL SECURITY;
\d docs
ALTER TABLE docs FORCE ROW LEVEL SECURITY;
\d docs
ALTER TABLE plain ENABLE ROW LEVEL SECURITY;
\d plain
\dp docs
`, "{s}", s)
	run := func(url string) string {
		cmd := exec.Command(psql, "-X", "-d", url, "-v", "ON_ERROR_STOP=1", "-f", "-")
		cmd.Stdin = strings.NewReader(script)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("psql: %v\n%s", err, out)
		}
		return string(out)
	}
	t.Cleanup(func() {
		c := pg.Connect(t)
		c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		c.Exec(context.Background(), "DROP ROLE alice_"+s)
	})
	pgOut, wOut := run(pg.URL()), run(w.url())
	if pgOut != wOut {
		t.Errorf("psql output differs\nPostgreSQL:\n%s\nweir:\n%s", pgOut, wOut)
	}
	if !strings.Contains(wOut, "Policies (forced row security enabled):") {
		t.Errorf("no forced policies section in\n%s", wOut)
	}
}

// TestRowSecurityDependencies: a policy whose subquery comes back to its
// own table fails the query (42P17); a role named by a policy, and a
// table a policy reads, cannot be dropped while the policy is there, and
// DROP … CASCADE drops such policies.
func TestRowSecurityDependencies(t *testing.T) {
	runRLSScript(t, rlsScript{
		"CREATE ROLE alice_{s}",
		"CREATE TABLE docs (id int, owner text)",
		"CREATE TABLE other (id int)",
		"INSERT INTO docs VALUES (1, 'alice_{s}')",
		"GRANT USAGE ON SCHEMA rls_{s} TO PUBLIC",
		"GRANT SELECT ON docs, other TO PUBLIC",
		"ALTER TABLE docs ENABLE ROW LEVEL SECURITY",
		"ALTER TABLE other ENABLE ROW LEVEL SECURITY",
		"CREATE POLICY rec ON docs USING (id IN (SELECT id FROM docs))",
		"SET ROLE alice_{s}",
		"SELECT * FROM docs",
		"RESET ROLE",
		"SELECT * FROM docs",
		"DROP POLICY rec ON docs",
		"CREATE POLICY r1 ON docs USING (id IN (SELECT id FROM other))",
		"CREATE POLICY r2 ON other USING (EXISTS (SELECT 1 FROM docs))",
		"SET ROLE alice_{s}",
		"SELECT * FROM other",
		"SELECT * FROM docs",
		"RESET ROLE",
		"DROP POLICY r1 ON docs",
		"SET ROLE alice_{s}",
		"SELECT * FROM other",
		"RESET ROLE",
		"CREATE POLICY p2 ON docs TO alice_{s} USING (true)",
		"CREATE POLICY p3 ON other TO alice_{s}, PUBLIC USING (true)",
		"DROP ROLE alice_{s}",
		"DROP TABLE docs",
		"DROP TABLE docs CASCADE",
		"SELECT policyname FROM pg_policies WHERE schemaname = 'rls_{s}'",
		"DROP ROLE alice_{s}",
	})
}

// TestRowSecurityOwners: a table's owner that is not a superuser is not
// filtered unless FORCE; only the owner changes policies; a view reads
// the table as the view's owner (the view's owner's policies, not the
// reader's).
func TestRowSecurityOwners(t *testing.T) {
	runRLSScript(t, rlsScript{
		"CREATE ROLE alice_{s}",
		"CREATE ROLE bob_{s}",
		"GRANT USAGE, CREATE ON SCHEMA rls_{s} TO alice_{s}, bob_{s}",
		"SET ROLE alice_{s}",
		"CREATE TABLE mine (id int, owner text)",
		"INSERT INTO mine VALUES (1, 'alice_{s}'), (2, 'bob_{s}')",
		"ALTER TABLE mine ENABLE ROW LEVEL SECURITY",
		"CREATE POLICY one ON mine USING (id = 1)",
		"SELECT * FROM mine ORDER BY id",
		"ALTER TABLE mine FORCE ROW LEVEL SECURITY",
		"SELECT * FROM mine ORDER BY id",
		"INSERT INTO mine VALUES (3, 'alice_{s}')",
		"SET row_security = off",
		"SELECT * FROM mine ORDER BY id",
		"RESET row_security",
		"ALTER TABLE mine NO FORCE ROW LEVEL SECURITY",
		"SET row_security = off",
		"SELECT * FROM mine ORDER BY id",
		"RESET row_security",
		"GRANT SELECT ON mine TO bob_{s}",
		"RESET ROLE",
		"SET ROLE bob_{s}",
		"SELECT * FROM mine ORDER BY id",
		"CREATE POLICY two ON mine USING (id = 2)",
		"ALTER POLICY one ON mine USING (true)",
		"DROP POLICY one ON mine",
		"ALTER TABLE mine DISABLE ROW LEVEL SECURITY",
		"RESET ROLE",
		"CREATE POLICY two ON mine TO bob_{s} USING (id = 2)",
		"SET ROLE bob_{s}",
		"SELECT * FROM mine ORDER BY id",
		"RESET ROLE",
		// A table of the superuser's, read by bob directly and through
		// alice's view.
		"CREATE TABLE docs (id int, level int)",
		"INSERT INTO docs VALUES (1, 1), (2, 2), (3, 3)",
		"GRANT SELECT ON docs TO alice_{s}, bob_{s}",
		"ALTER TABLE docs ENABLE ROW LEVEL SECURITY",
		"CREATE POLICY a ON docs TO alice_{s} USING (level = 1)",
		"CREATE POLICY b ON docs TO bob_{s} USING (level = 2)",
		"SET ROLE alice_{s}",
		"CREATE VIEW alices AS SELECT id, level FROM docs",
		"GRANT SELECT ON alices TO bob_{s}",
		"SELECT * FROM alices ORDER BY id",
		"RESET ROLE",
		"SET ROLE bob_{s}",
		"SELECT * FROM docs ORDER BY id",
		"SELECT * FROM alices ORDER BY id",
		"SELECT a.id, d.id FROM alices a, docs d ORDER BY 1, 2",
		"SET row_security = off",
		"SELECT * FROM alices ORDER BY id",
		"RESET row_security",
		"RESET ROLE",
		"SELECT * FROM alices ORDER BY id",
	})
}

// TestRowSecurityCachedStatement: pgx's cached prepared statement, made
// while one role is current and executed after SET ROLE to another, reads
// with the other's policies (the extended protocol's path).
func TestRowSecurityCachedStatement(t *testing.T) {
	pg := pgtest.Shared(t)
	w := startServer(t, t.TempDir())
	s := fmt.Sprint(time.Now().UnixNano())
	alice, bob, schema := "alice_"+s, "bob_"+s, "rlsc_"+s
	pc, wc := pg.Connect(t), w.connect(t)
	t.Cleanup(func() {
		ctx := context.Background()
		pc.Exec(ctx, "RESET ROLE")
		pc.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
		pc.Exec(ctx, "DROP ROLE "+alice)
		pc.Exec(ctx, "DROP ROLE "+bob)
	})
	for _, c := range []*pgx.Conn{pc, wc} {
		for _, q := range []string{
			"CREATE ROLE " + alice, "CREATE ROLE " + bob,
			"CREATE SCHEMA " + schema, "SET search_path = " + schema,
			"CREATE TABLE docs (id int)", "INSERT INTO docs VALUES (1), (2)",
			"GRANT USAGE ON SCHEMA " + schema + " TO " + alice + ", " + bob,
			"GRANT SELECT ON docs TO " + alice + ", " + bob,
			"ALTER TABLE docs ENABLE ROW LEVEL SECURITY",
			"CREATE POLICY a ON docs TO " + alice + " USING (id = 1)",
			"CREATE POLICY b ON docs TO " + bob + " USING (id = 2)",
		} {
			mustExec(t, c, q)
		}
	}
	read := func(c *pgx.Conn, role string) string {
		t.Helper()
		mustExec(t, c, "SET ROLE "+role)
		var got string
		if err := c.QueryRow(context.Background(), "SELECT string_agg(id::text, ',') FROM docs WHERE id > $1", 0).Scan(&got); err != nil {
			t.Fatalf("as %s: %v", role, err)
		}
		return got
	}
	for _, role := range []string{alice, bob, alice} {
		if want, got := read(pc, role), read(wc, role); got != want {
			t.Errorf("as %s: weir read %s, PostgreSQL %s", role, got, want)
		}
	}
}
