package engine_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/weir-sql/weir/internal/pgtest"
)

// TestSQLFunctionsLikePostgres runs the same CREATE FUNCTION, calls and
// DROP FUNCTION on PostgreSQL 15 and on weir and compares every outcome:
// rows, or SQLSTATE and message.
func TestSQLFunctionsLikePostgres(t *testing.T) {
	pg := pgtest.Shared(t)
	w := startServer(t, t.TempDir())
	schema := fmt.Sprintf("fn_%d", time.Now().UnixNano())
	script := []string{
		"CREATE SCHEMA " + schema,
		"SET search_path = " + schema + ", public",
		"CREATE FUNCTION add_f(a int, b int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT a + b $$",
		"SELECT add_f(1, 2), add_f(NULL, 2)",
		"SELECT add_f(1.5, 2)",
		"SELECT add_f('7', '8')",
		"SELECT add_f('a', 1)",
		"CREATE FUNCTION inc_f(int) RETURNS int RETURN $1 + 1",
		"SELECT inc_f(41), inc_f(inc_f(1))",
		"SELECT count(*) FROM generate_series(1, 10) g WHERE inc_f(g) > 5",
		"SELECT g % 3 AS k, sum(inc_f(g)) FROM generate_series(1, 9) g GROUP BY k ORDER BY k",
		"SELECT inc_f(g % 3) AS k, count(*) FROM generate_series(1, 9) g GROUP BY inc_f(g % 3) ORDER BY 1",
		"CREATE FUNCTION greet_f(name text) RETURNS text RETURN 'hello ' || name",
		"SELECT greet_f(x) FROM (VALUES ('ann'), ('bob')) v(x) ORDER BY 1",
		"SELECT greet_f(name => 'cat')",
		"SELECT " + schema + ".greet_f('dan')",
		"CREATE FUNCTION twice_f(a int) RETURNS bigint RETURN add_f(a, a)",
		"SELECT twice_f(21), pg_typeof(twice_f(1))",
		"CREATE FUNCTION half_f(a numeric) RETURNS int RETURN a / 2",
		"SELECT half_f(7)",
		"CREATE FUNCTION bad_f(a int) RETURNS int RETURN a + nope",
		"CREATE FUNCTION bad2_f(a int) RETURNS int RETURN no_such_fn(a)",
		"CREATE FUNCTION bad3_f(a int) RETURNS date RETURN a",
		"CREATE FUNCTION bad4_f(a int) RETURNS int RETURN $2",
		"CREATE FUNCTION add_f(a int, b int) RETURNS int RETURN a - b",
		"CREATE OR REPLACE FUNCTION add_f(a int, b int) RETURNS int RETURN a * b",
		"SELECT add_f(3, 4)",
		"CREATE OR REPLACE FUNCTION add_f(a int, b int) RETURNS text RETURN 'x'",
		"CREATE FUNCTION ov_f(a int) RETURNS text RETURN 'int'",
		"CREATE FUNCTION ov_f(a text) RETURNS text RETURN 'text'",
		"SELECT ov_f(1), ov_f('x'::text), ov_f(2::smallint)",
		"DROP FUNCTION ov_f",
		"DROP FUNCTION ov_f(text)",
		"SELECT ov_f(1)",
		"DROP FUNCTION inc_f(int)",
		"SELECT inc_f(1)",
		"DROP FUNCTION IF EXISTS inc_f(int)",
		"DROP FUNCTION no_such_f(int)",
		"CREATE FUNCTION src_f(a int, int) RETURNS int LANGUAGE sql STABLE AS $$ SELECT a * $2 $$",
		"SELECT src_f(6, 7)",
		"SELECT pg_get_functiondef('" + schema + ".src_f'::regproc)",
		"SELECT proname, prokind, provolatile, pronargs, prorettype::regtype, prolang FROM pg_proc WHERE pronamespace = '" + schema + "'::regnamespace ORDER BY proname, pronargs",
		"SELECT p.proname, pg_get_function_arguments(p.oid), pg_get_function_result(p.oid) FROM pg_proc p WHERE pronamespace = '" + schema + "'::regnamespace ORDER BY 1, 2",
	}
	run := func(url string) []string {
		c := (target{url: url}).connect(t, "")
		var out []string
		for _, q := range script {
			out = append(out, q+" → "+c.rowsText(q))
		}
		return out
	}
	want := run(pg.URL())
	pgAdmin := pg.Connect(t)
	t.Cleanup(func() { pgAdmin.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE") })
	got := run(w.url())
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("\n  PostgreSQL: %s\n  weir:       %s", want[i], got[i])
		}
	}
}

// TestSQLFunctionsRefused checks what weir does not run, with the reason:
// other languages, recursion, query bodies.
func TestSQLFunctionsRefused(t *testing.T) {
	w := startServer(t, t.TempDir())
	c := (target{url: w.url()}).connect(t, "")
	for q, want := range map[string]string{
		"CREATE FUNCTION plf(a int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN a; END $$": "0A000 functions in language \"plpgsql\" are not supported",
		"CREATE FUNCTION qf(a int) RETURNS bigint AS $$ SELECT count(*) FROM pg_class $$":      "0A000 SQL function bodies must be SELECT of one expression",
		"CREATE PROCEDURE pr() LANGUAGE sql AS $$ SELECT 1 $$":                                 "0A000 CREATE PROCEDURE is not supported",
	} {
		if got := c.rowsText(q); got != want {
			t.Errorf("%s:\n got %s\nwant %s", q, got, want)
		}
	}
	mustExec(t, c.c, "CREATE FUNCTION rec_f(a int) RETURNS int RETURN a")
	if got := c.rowsText("CREATE OR REPLACE FUNCTION rec_f(a int) RETURNS int RETURN CASE WHEN a <= 0 THEN 0 ELSE rec_f(a - 1) END"); !strings.HasPrefix(got, "0A000 SQL function \"rec_f\" calls itself") {
		t.Errorf("recursive function: %s", got)
	}
	// Databricks' spelling: STRING, no RETURNS (the body's type).
	mustExec(t, c.c, "CREATE FUNCTION up_f(s STRING) RETURN upper(s)")
	if got := c.rowsText("SELECT up_f('abc'), pg_typeof(up_f('x'))"); got != "ABC|text" {
		t.Errorf("Databricks function: %s", got)
	}
	// The examples of Databricks' CREATE FUNCTION (SQL) page.
	for _, q := range []string{
		"CREATE FUNCTION hello() RETURNS STRING RETURN 'Hello World!'",
		"CREATE FUNCTION area(x DOUBLE, y DOUBLE) RETURNS DOUBLE RETURN x * y",
		"CREATE FUNCTION square(x DOUBLE) RETURNS DOUBLE RETURN area(x, x)",
		"CREATE FUNCTION roll_dice() RETURNS INT NOT DETERMINISTIC CONTAINS SQL COMMENT 'Roll a single 6 sided die' RETURN (random() * 6)::INT + 1", // rand() is Spark's random(),
		"CREATE FUNCTION plus_one(x INT COMMENT 'the argument') RETURNS INT DETERMINISTIC READS SQL DATA COMMENT 'Add one' RETURN x + 1",
	} {
		mustExec(t, c.c, q)
	}
	if got := c.rowsText("SELECT hello(), area(2, 3), square(4), roll_dice() BETWEEN 1 AND 6, plus_one(x => 41)"); got != "Hello World!|6|16|true|42" {
		t.Errorf("Databricks' examples: %s", got)
	}
	if got := c.rowsText("CREATE FUNCTION getemps(deptno INT) RETURNS TABLE (name STRING) AS $$ SELECT 'x' $$"); !strings.HasPrefix(got, "0A000 SQL table functions") {
		t.Errorf("RETURNS TABLE: %s", got)
	}
	if got := c.rowsText("SELECT is_account_group_member('no_such_group'), is_member('weir'), is_account_group_member('pg_monitor')"); got != "false|true|true" {
		t.Errorf("group membership as a superuser: %s", got)
	}
}

// TestPsqlDescribeFunctions runs psql's \df over the same functions on
// PostgreSQL and on weir and compares the listings.
func TestPsqlDescribeFunctions(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatalf("psql: %v", err)
	}
	pg := pgtest.Shared(t)
	w := startServer(t, t.TempDir())
	schema := fmt.Sprintf("df_%d", time.Now().UnixNano())
	setup := []string{
		"CREATE SCHEMA " + schema,
		"CREATE FUNCTION " + schema + ".add_f(a int, b int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT a + b $$",
		"CREATE FUNCTION " + schema + ".ssn_mask(ssn text) RETURNS text RETURN CASE WHEN current_user = 'hr' THEN ssn ELSE '***' END",
		"CREATE FUNCTION " + schema + ".inc_f(int) RETURNS bigint RETURN $1 + 1",
	}
	pgAdmin := pg.Connect(t)
	t.Cleanup(func() { pgAdmin.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE") })
	describe := func(url string) string {
		c := (target{url: url}).connect(t, "")
		for _, q := range setup {
			mustExec(t, c.c, q)
		}
		out, err := exec.Command(psql, url, "-X", "-c", `\df `+schema+`.*`).CombinedOutput()
		if err != nil {
			t.Fatalf("psql \\df: %v\n%s", err, out)
		}
		return string(out)
	}
	want := describe(pg.URL())
	if got := describe(w.url()); got != want {
		t.Errorf("\\df differs\nPostgreSQL:\n%s\nweir:\n%s", want, got)
	}
}
