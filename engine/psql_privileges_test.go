package engine_test

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weir-sql/weir/internal/pgtest"
)

// pgAsWeir makes the PostgreSQL oracle look like weir to a client: a
// superuser called weir and a database called weir it owns, so that
// what psql prints of owners, grantors and the database needs no
// rewriting before it is compared with weir's. It returns the URL that
// connects as weir to that database.
func pgAsWeir(t *testing.T, pg *pgtest.Server) string {
	t.Helper()
	admin := pg.Connect(t)
	ctx := context.Background()
	var n int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_roles WHERE rolname = 'weir'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		mustExec(t, admin, "CREATE ROLE weir SUPERUSER LOGIN")
	}
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = 'weir'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		mustExec(t, admin, "CREATE DATABASE weir OWNER weir")
	}
	return fmt.Sprintf("postgres://weir@127.0.0.1:%d/weir?sslmode=disable", pg.Port)
}

// TestPsqlAccessPrivileges runs psql's own \dp, \z, \dn+, \l and \du
// against weir and PostgreSQL after the same grants and compares what
// it prints, byte for byte.
func TestPsqlAccessPrivileges(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatal("psql not installed")
	}
	pg := pgtest.Shared(t)
	pgURL := freshWeirDatabase(t, pg)
	w := startServer(t, t.TempDir())
	p := fmt.Sprintf("dp%d_", time.Now().UnixNano())
	a, b, c := p+"alice", p+"bob", p+"carol"
	setup := []struct{ as, sql string }{
		{"", "CREATE ROLE " + a + " LOGIN"},
		{"", "CREATE ROLE " + b + " LOGIN"},
		{"", "CREATE ROLE " + c + " LOGIN"},
		{"", "CREATE ROLE " + p + "group"},
		{"", "GRANT " + p + "group TO " + c},
		{"", "CREATE TABLE " + p + "t (x int, y int)"},
		{"", "CREATE TABLE " + p + "empty (x int)"},
		{"", "CREATE TABLE " + p + "none (x int)"},
		{"", "CREATE VIEW " + p + "v AS SELECT x FROM " + p + "t"},
		{"", "GRANT SELECT ON " + p + "t TO " + a + " WITH GRANT OPTION"},
		{"", "GRANT INSERT (x), SELECT (y) ON " + p + "t TO " + b},
		{"", "GRANT UPDATE (y) ON " + p + "t TO " + b + " WITH GRANT OPTION"},
		{"", "GRANT SELECT ON " + p + "t TO PUBLIC"},
		{a, "GRANT SELECT ON " + p + "t TO " + p + "group"},
		{"", "GRANT ALL ON " + p + "v TO " + c},
		{"", "GRANT TRUNCATE, TRIGGER ON " + p + "v TO " + p + "group"},
		{"", "REVOKE ALL ON " + p + "empty FROM weir"},
		{"", "CREATE SCHEMA " + p + "s"},
	}
	run := func(url string) {
		admin, err := pgx.Connect(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close(context.Background())
		for _, s := range setup {
			if s.as != "" {
				mustExec(t, admin, "SET ROLE "+s.as)
			}
			mustExec(t, admin, s.sql)
			if s.as != "" {
				mustExec(t, admin, "RESET ROLE")
			}
		}
	}
	run(pgURL)
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), pgURL)
		if err != nil {
			return
		}
		defer conn.Close(context.Background())
		for _, q := range []string{"DROP VIEW " + p + "v", "DROP TABLE " + p + "t, " + p + "empty, " + p + "none", "DROP SCHEMA " + p + "s",
			"DROP ROLE " + a, "DROP ROLE " + b, "DROP ROLE " + c, "DROP ROLE " + p + "group"} {
			conn.Exec(context.Background(), q)
		}
	})
	run(w.url())
	for _, cmd := range []string{`\dp ` + p + `*`, `\z ` + p + `t`, `\dp ` + p + `v`, `\dn+ public`, `\dn+ ` + p + `*`, `\l weir`, `\du ` + p + `*`, `\ddp`, `\dl+`} {
		show := func(url string) string {
			out, err := exec.Command(psql, url, "-X", "-c", cmd).CombinedOutput()
			if err != nil {
				t.Fatalf("psql %s: %v\n%s", cmd, err, out)
			}
			return string(out)
		}
		got, want := show(w.url()), show(pgURL)
		if got != want {
			t.Errorf("%s differs\nweir:\n%s\nPostgreSQL:\n%s", cmd, got, want)
		}
	}
}

// TestPsqlSchemaAndDatabasePrivileges compares psql's \dn+ and \l after
// GRANT and REVOKE on a schema and on the database (which need GRANT on
// schemas and databases, built beside this).
func TestPsqlSchemaAndDatabasePrivileges(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatal("psql not installed")
	}
	pg := pgtest.Shared(t)
	pgURL := freshWeirDatabase(t, pg)
	w := startServer(t, t.TempDir())
	p := fmt.Sprintf("dq%d_", time.Now().UnixNano())
	a, b := p+"alice", p+"bob"
	setup := []string{
		"CREATE ROLE " + a + " LOGIN",
		"CREATE ROLE " + b + " LOGIN",
		"CREATE SCHEMA " + p + "s",
		"GRANT USAGE ON SCHEMA " + p + "s TO " + a + " WITH GRANT OPTION",
		"GRANT CREATE ON SCHEMA " + p + "s TO PUBLIC",
		"GRANT CREATE ON SCHEMA public TO " + b,
		"REVOKE TEMPORARY ON DATABASE weir FROM PUBLIC",
		"GRANT CREATE ON DATABASE weir TO " + a,
		"GRANT CONNECT ON DATABASE weir TO " + b + " WITH GRANT OPTION",
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), pgURL)
		if err != nil {
			return
		}
		defer conn.Close(context.Background())
		for _, q := range []string{"DROP SCHEMA " + p + "s", "REVOKE ALL ON SCHEMA public FROM " + b, "REVOKE ALL ON DATABASE weir FROM " + a + ", " + b + " CASCADE",
			"DROP ROLE " + a, "DROP ROLE " + b} {
			conn.Exec(context.Background(), q)
		}
	})
	for _, url := range []string{pgURL, w.url()} {
		c, err := pgx.Connect(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range setup {
			mustExec(t, c, q)
		}
		c.Close(context.Background())
	}
	for _, cmd := range []string{`\dn+ ` + p + `*`, `\dn+ public`, `\l weir`} {
		show := func(url string) string {
			out, err := exec.Command(psql, url, "-X", "-c", cmd).CombinedOutput()
			if err != nil {
				t.Fatalf("psql %s: %v\n%s", cmd, err, out)
			}
			return string(out)
		}
		got, want := show(w.url()), show(pgURL)
		if got != want {
			t.Errorf("%s differs\nweir:\n%s\nPostgreSQL:\n%s", cmd, got, want)
		}
	}
}
