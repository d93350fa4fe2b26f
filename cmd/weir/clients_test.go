package main

// Real-client compatibility tests. Each test starts the real weir binary
// (built once in TestMain) on a fresh data directory and drives it with a
// real PostgreSQL client: psql, pgx, node-postgres, pgjdbc, SQLAlchemy 1.4 +
// psycopg2 and psycopg 3. psql output is compared with what PostgreSQL 15
// (internal/pgtest) prints for the same objects. A missing client fails the
// test: scripts/test.sh installs them all.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/internal/pgtest"
)

var weirBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "weir-clients-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	weirBinary = filepath.Join(dir, "weir")
	build := exec.Command("go", "build", "-o", weirBinary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build weir:", err)
		os.Exit(1)
	}
	code := m.Run()
	pgtest.StopShared()
	os.RemoveAll(dir)
	os.Exit(code)
}

// weirServer is one running weir process.
type weirServer struct {
	Port int
	cmd  *exec.Cmd
	log  *bytes.Buffer
}

func (s *weirServer) URL() string {
	return fmt.Sprintf("postgres://weir@127.0.0.1:%d/weir?sslmode=disable", s.Port)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startWeir runs `weir serve` on a fresh data directory and a free port,
// waits until pgx can connect, and at the end stops it with SIGTERM and
// checks that it exits (cleanly) within 5 seconds.
func startWeir(t *testing.T) *weirServer {
	t.Helper()
	s := &weirServer{Port: freePort(t), log: &bytes.Buffer{}}
	s.cmd = exec.Command(weirBinary, "serve", "--data", filepath.Join(t.TempDir(), "data"),
		"--listen", fmt.Sprintf("127.0.0.1:%d", s.Port))
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start weir: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	t.Cleanup(func() {
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Errorf("SIGTERM weir: %v", err)
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("weir exited with %v after SIGTERM; log:\n%s", err, s.log)
			}
		case <-time.After(5 * time.Second):
			s.cmd.Process.Kill()
			<-exited
			t.Errorf("weir did not exit within 5s of SIGTERM; log:\n%s", s.log)
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, s.URL())
		cancel()
		if err == nil {
			c.Close(context.Background())
			return s
		}
		select {
		case werr := <-exited:
			exited <- werr
			t.Fatalf("weir exited before accepting connections (%v); log:\n%s", werr, s.log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("weir not accepting connections after 20s: %v; log:\n%s", err, s.log)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not synchronisation
	}
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func mustTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("client %s is not installed (scripts/test.sh installs it): %v", name, err)
	}
	return p
}

// run executes a client program with a deadline and returns its stdout,
// stderr and error.
func run(t *testing.T, dir string, stdin string, env []string, name string, args ...string) (string, string, error) {
	t.Helper()
	// Generous: a JVM compiling JdbcCompat.java on a loaded CI machine.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

func clientsDir(t *testing.T, sub string) string {
	t.Helper()
	d, err := filepath.Abs(filepath.Join("..", "..", "testdata", "clients", sub))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// checkScriptOutput compares a client script's stdout line by line with
// want and reports each FAIL line the script printed.
func checkScriptOutput(t *testing.T, client, stdout, stderr string, err error, want string) {
	t.Helper()
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "FAIL ") {
			t.Errorf("%s: %s", client, l)
		}
	}
	if err != nil {
		t.Errorf("%s exited with %v\nstdout:\n%s\nstderr:\n%s", client, err, stdout, stderr)
	}
	if stdout != want {
		t.Errorf("%s output differs\n got:\n%s\nwant:\n%s", client, stdout, want)
	}
}

// ---------------------------------------------------------------- psql

const psqlPath = "/usr/bin/psql"

// psqlEnv is how psql reaches a server; PGPASSWORD-less trust on loopback.
type psqlTarget struct {
	host, port, user, db string
}

func (p psqlTarget) env() []string {
	return []string{"PGHOST=" + p.host, "PGPORT=" + p.port, "PGUSER=" + p.user, "PGDATABASE=" + p.db,
		"PGSSLMODE=prefer", "PGTZ=UTC", "PGCLIENTENCODING=UTF8", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "PAGER=", "PSQL_PAGER=", "COLUMNS=200"}
}

// psql runs psql -X -q -v ON_ERROR_STOP=1 with extra args and stdin.
func (p psqlTarget) psql(t *testing.T, dir, stdin string, args ...string) (string, string, error) {
	t.Helper()
	return run(t, dir, stdin, p.env(), psqlPath, append([]string{"-X", "-q", "-v", "ON_ERROR_STOP=1"}, args...)...)
}

func weirTarget(s *weirServer) psqlTarget {
	return psqlTarget{"127.0.0.1", fmt.Sprint(s.Port), "weir", "weir"}
}

// pgTarget gives a fresh PostgreSQL 15 database in which objects are owned
// by a superuser role called weir, so that the Owner columns of \d, \dt, \dv
// print the same name as weir's (whose only user is weir) instead of
// postgres: that difference is inherent, not a bug. It has an empty schema
// weir_catalog, as weir has (with weir's own views in it).
func pgTarget(t *testing.T) psqlTarget {
	t.Helper()
	pg := pgtest.Shared(t)
	url := pg.FreshDatabase(t)
	c := pg.Connect(t)
	ctx := ctxT(t)
	var exists bool
	if err := c.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = 'weir')").Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if !exists {
		if _, err := c.Exec(ctx, "CREATE ROLE weir SUPERUSER CREATEDB CREATEROLE REPLICATION BYPASSRLS LOGIN"); err != nil {
			t.Fatal(err)
		}
	}
	db := url[strings.LastIndex(url, "/")+1 : strings.Index(url, "?")]
	target := psqlTarget{"127.0.0.1", fmt.Sprint(pg.Port), "weir", db}
	// weir has the schema weir_catalog (its own views); PostgreSQL gets an
	// empty one with the same owner, so that \dn lists the same schemas.
	if out, errOut, err := target.psql(t, t.TempDir(), "CREATE SCHEMA weir_catalog AUTHORIZATION weir;"); err != nil {
		t.Fatalf("create schema weir_catalog on PostgreSQL: %v\n%s%s", err, out, errOut)
	}
	return target
}

const psqlSetup = `
CREATE TABLE orders (
  id bigint PRIMARY KEY,
  customer text NOT NULL,
  amount numeric(10,2) DEFAULT 0,
  ts timestamptz DEFAULT now(),
  data jsonb,
  note text DEFAULT 'none'
);
CREATE VIEW big_orders AS SELECT id, customer, amount FROM orders WHERE amount > 100;
INSERT INTO orders (id, customer, amount, ts, data) VALUES
  (1, 'alice', 150.50, '2024-01-02 03:04:05+00', '{"a": 1}'),
  (2, 'bob', 20.00, '2024-02-03 04:05:06+00', NULL);
CREATE TABLE ct (id int, name text, amount numeric(10,2));
CREATE VIEW v2 AS SELECT customer AS who, amount * 2 + 1 AS more, amount - (id - 1) AS odd
  FROM orders WHERE customer <> 'x' AND (amount IS NOT NULL OR id > 3) AND id * 2 > 5;
`

// normaliseDu drops PostgreSQL's bootstrap superuser "postgres" from \du:
// weir has a single role, weir; the test role weir exists on both sides.
func normaliseDu(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, " postgres ") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

func TestPsql(t *testing.T) {
	mustTool(t, "psql")
	w := startWeir(t)
	wt := weirTarget(w)
	pt := pgTarget(t)
	dir := t.TempDir()
	for _, tg := range []psqlTarget{wt, pt} {
		if out, errOut, err := tg.psql(t, dir, psqlSetup); err != nil {
			t.Fatalf("setup on %s:%s failed: %v\n%s%s", tg.host, tg.port, err, out, errOut)
		}
	}

	// Meta-commands whose whole output must equal PostgreSQL's.
	for _, cmd := range []string{`\d`, `\dt`, `\dv`, `\dn`, `\du`, `\d orders`, `\d+ orders`, `\d big_orders`, `\d+ big_orders`, `\d+ v2`} {
		t.Run(cmd, func(t *testing.T) {
			got, gerr, err := wt.psql(t, dir, "", "-c", cmd)
			if err != nil {
				t.Errorf("weir: psql -c %q failed: %v\n%s", cmd, err, gerr)
			}
			want, perr, err := pt.psql(t, dir, "", "-c", cmd)
			if err != nil {
				t.Fatalf("PostgreSQL: psql -c %q failed: %v\n%s", cmd, err, perr)
			}
			if cmd == `\du` {
				want = normaliseDu(want)
			}

			if got != want {
				t.Errorf("psql %s differs from PostgreSQL 15\n--- weir:\n%s%s--- PostgreSQL:\n%s", cmd, got, gerr, want)
			}
		})
	}

	// \l: the databases themselves differ (PostgreSQL has postgres,
	// template0/1 and the test databases), so compare the title and column
	// header with PostgreSQL and check weir's own row.
	t.Run(`\l`, func(t *testing.T) {
		got, gerr, err := wt.psql(t, dir, "", "-c", `\l`)
		if err != nil {
			t.Fatalf("weir: psql -c \\l failed: %v\n%s", err, gerr)
		}
		want, _, err := pt.psql(t, dir, "", "-c", `\l`)
		if err != nil {
			t.Fatal(err)
		}
		header := func(s string) []string {
			ls := strings.Split(s, "\n")
			if len(ls) < 2 {
				return nil
			}
			var h []string
			for _, f := range strings.Split(ls[1], "|") {
				h = append(h, strings.TrimSpace(f))
			}
			return append([]string{strings.TrimSpace(ls[0])}, h...)
		}
		if g, w := header(got), header(want); fmt.Sprint(g) != fmt.Sprint(w) {
			t.Errorf("\\l header: got %q, want %q", g, w)
		}
		if !regexp.MustCompile(`(?m)^ weir +\| weir +\| UTF8 +\| C\.UTF-8 +\| C\.UTF-8 +\| +\| libc +\| *$`).MatchString(got) {
			t.Errorf("\\l: no row for database weir like PostgreSQL's:\n%s", got)
		}
	})

	// \df: any non-error output.
	t.Run(`\df`, func(t *testing.T) {
		if out, errOut, err := wt.psql(t, dir, "", "-c", `\df`); err != nil || errOut != "" || !strings.Contains(out, "List of functions") {
			t.Errorf("\\df: err %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
		}
	})

	// \copy in (CSV) and out (text), compared with PostgreSQL and exactly.
	t.Run(`\copy`, func(t *testing.T) {
		csv := filepath.Join(dir, "ct.csv")
		if err := os.WriteFile(csv, []byte("1,one,1.50\n2,\"two, quoted\",\n3,,-3.25\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		script := fmt.Sprintf("\\copy ct from '%s' csv\n\\copy ct to stdout\nSELECT count(*), sum(amount) FROM ct;\n", csv)
		const want = "1\tone\t1.50\n2\ttwo, quoted\t\\N\n3\t\\N\t-3.25\n count |  sum  \n-------+-------\n     3 | -1.75\n(1 row)\n\n"
		got, gerr, err := wt.psql(t, dir, script)
		if err != nil {
			t.Errorf("weir: \\copy failed: %v\n%s", err, gerr)
		}
		pgOut, perr, err := pt.psql(t, dir, script)
		if err != nil {
			t.Fatalf("PostgreSQL: \\copy failed: %v\n%s", err, perr)
		}
		if got != pgOut {
			t.Errorf("\\copy output differs\n--- weir:\n%s%s--- PostgreSQL:\n%s", got, gerr, pgOut)
		}
		if got != want {
			t.Errorf("\\copy through weir: got %q, want %q", got, want)
		}
	})

	// FETCH_COUNT: psql reads the result through a cursor, 1,000 rows per
	// FETCH; inside and outside a transaction block, and with an error
	// after some FETCHes (psql prints the rows it had, then the error). The
	// failing row is the first of weir's second 8192-row batch: weir fails
	// a whole batch where PostgreSQL fails one row, and there both have
	// sent the same rows.
	t.Run("FETCH_COUNT", func(t *testing.T) {
		script := "\\set FETCH_COUNT 1000\n" +
			"SELECT count(*) FROM generate_series(1, 10) g;\n" +
			"SELECT g, md5(g::text) FROM generate_series(1, 2500) g;\n" +
			"BEGIN;\nSELECT g FROM generate_series(1, 1500) g ORDER BY g DESC;\nCOMMIT;\n" +
			"SELECT 1/(8193-g) AS q FROM generate_series(1, 9000) g;\n" +
			"SELECT 'after';\n"
		got, gerr, err := wt.psql(t, dir, script, "-v", "ON_ERROR_STOP=0")
		if err != nil {
			t.Errorf("weir: psql failed: %v\n%s", err, gerr)
		}
		want, perr, err := pt.psql(t, dir, script, "-v", "ON_ERROR_STOP=0")
		if err != nil {
			t.Fatalf("PostgreSQL: psql failed: %v\n%s", err, perr)
		}
		if got+gerr != want+perr {
			t.Errorf("FETCH_COUNT output differs (%d and %d bytes)\n--- weir:\n%.2000s%s--- PostgreSQL:\n%.2000s%s", len(got), len(want), got, gerr, want, perr)
		}
		if !strings.Contains(got, "(2500 rows)") {
			t.Errorf("FETCH_COUNT: no 2,500-row result:\n%.500s", got)
		}
	})

	// One Query message holding two statements, and the empty query.
	t.Run("multi-statement and empty query", func(t *testing.T) {
		for _, args := range [][]string{{"-c", "select 1; select 2"}, {"-c", ";"}, {"-c", "-- just a comment"}} {
			got, gerr, err := wt.psql(t, dir, "", args...)
			if err != nil {
				t.Errorf("weir: psql %q failed: %v\n%s", args, err, gerr)
			}
			want, _, err := pt.psql(t, dir, "", args...)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("psql %q differs\n--- weir:\n%s%s--- PostgreSQL:\n%s", args, got, gerr, want)
			}
		}
		got, _, _ := wt.psql(t, dir, "", "-c", "select 1; select 2")
		if want := " ?column? \n----------\n        1\n(1 row)\n\n ?column? \n----------\n        2\n(1 row)\n\n"; got != want {
			t.Errorf("select 1; select 2: got %q want %q", got, want)
		}
	})
}

// TestPsqlCatalogQueries sends every statement psql 15 was seen sending
// (/work/shared/compat/psql_queries.sql, copied to testdata/clients/psql)
// through the simple protocol and requires each to succeed.
func TestPsqlCatalogQueries(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(clientsDir(t, "psql"), "psql_queries.sql"))
	if err != nil {
		t.Fatal(err)
	}
	w := startWeir(t)
	c := connect(t, w.URL())
	ctx := ctxT(t)
	for _, stmt := range strings.Split(psqlSetup, ";\n") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := c.Exec(ctx, stmt, pgx.QueryExecModeSimpleProtocol); err != nil {
			t.Fatalf("setup %q: %v", stmt, err)
		}
	}
	var oid uint32
	if err := c.QueryRow(ctx, "SELECT 'orders'::regclass::oid").Scan(&oid); err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(raw), "'16385'", fmt.Sprintf("'%d'", oid))
	n := 0
	for _, part := range regexp.MustCompile(`(?m)^;;\s*$`).Split(text, -1) {
		var label string
		var body []string
		for _, l := range strings.Split(part, "\n") {
			if strings.HasPrefix(l, "--") {
				if strings.HasPrefix(l, "-- [") && label == "" {
					label = strings.TrimPrefix(l, "-- ")
				}
				continue
			}
			body = append(body, l)
		}
		sql := strings.TrimSpace(strings.Join(body, "\n"))
		if sql == "" {
			continue
		}
		n++
		if label == "" {
			label = fmt.Sprintf("statement %d", n)
		}
		if len(label) > 60 {
			label = label[:60]
		}
		t.Run(label, func(t *testing.T) {
			rows, err := c.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
			if err == nil {
				for rows.Next() {
				}
				rows.Close()
				err = rows.Err()
			}
			if err != nil {
				t.Errorf("psql catalog query failed: %v\nSQL:\n%s", err, sql)
			}
		})
	}
	if n != 44 {
		t.Errorf("expected 44 statements in psql_queries.sql, found %d", n)
	}
}

// ---------------------------------------------------------------- node-postgres

func TestNodePostgres(t *testing.T) {
	node := mustTool(t, "node")
	dir := clientsDir(t, "node")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "pg")); err != nil {
		t.Fatalf("node-postgres not installed: run npm install in %s (scripts/test.sh does): %v", dir, err)
	}
	w := startWeir(t)
	out, errOut, err := run(t, dir, "", nil, node, "basic.js", w.URL())
	checkScriptOutput(t, "node-postgres", out, errOut, err,
		"simple ok\nparams ok\nnamed ok\ntable ok\nerror ok 42P01 22012\ndone\n")
}

// ---------------------------------------------------------------- pgjdbc

const pgjdbcJar = "/usr/share/java/postgresql.jar"

// oracleDiff compares a client program's output for weir with its output
// for PostgreSQL 15 line by line, after normalise, and reports each line
// that differs. A call that fails on weir prints an ERROR or FAIL line
// PostgreSQL does not, so it is reported too; one that fails the same way
// on both (pgjdbc's getSuperTables is "not yet implemented", SQLAlchemy
// 1.4 has no get_temp_table_names for PostgreSQL) is not a difference.
func oracleDiff(t *testing.T, client, got, want string, normalise func(string) string) {
	t.Helper()
	got, want = normalise(got), normalise(want)
	if got == want {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	in := func(ls []string) map[string]int {
		m := map[string]int{}
		for _, l := range ls {
			m[l]++
		}
		return m
	}
	gm, wm := in(gl), in(wl)
	var diff strings.Builder
	for _, l := range wl {
		if gm[l] == 0 {
			fmt.Fprintf(&diff, "  PostgreSQL only: %s\n", l)
		} else {
			gm[l]--
		}
	}
	for _, l := range gl {
		if wm[l] == 0 {
			fmt.Fprintf(&diff, "  weir only:       %s\n", l)
		} else {
			wm[l]--
		}
	}
	if diff.Len() == 0 {
		diff.WriteString("  (same lines, different order)\n")
	}
	t.Errorf("%s: output for weir differs from PostgreSQL 15's:\n%s", client, diff.String())
}

// jdbcURL is the pgjdbc URL of the target.
func (p psqlTarget) jdbcURL() string {
	return fmt.Sprintf("jdbc:postgresql://%s:%s/%s", p.host, p.port, p.db)
}

// TestPgJDBC runs every DatabaseMetaData call DBeaver, DataGrip and
// Metabase make, and ResultSetMetaData, through pgjdbc against weir and
// against PostgreSQL 15 with the same objects, and requires the same
// answers. Documented differences are normalised away: the database name,
// the OIDs in pgjdbc's SPECIFIC_NAME (proname_oid) of built-in functions,
// and the descriptions PostgreSQL has for built-in functions (weir keeps
// none).
func TestPgJDBC(t *testing.T) {
	java := mustTool(t, "java")
	if _, err := os.Stat(pgjdbcJar); err != nil {
		t.Fatalf("pgjdbc not installed (libpostgresql-jdbc-java): %v", err)
	}
	w := startWeir(t)
	pg := pgTarget(t)
	dir := clientsDir(t, "java")
	out, errOut, err := run(t, dir, "", nil, java, "-cp", pgjdbcJar, "JdbcCompat.java", weirTarget(w).jdbcURL())
	if err != nil {
		t.Errorf("pgjdbc against weir exited with %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	want, perr, err := run(t, dir, "", nil, java, "-cp", pgjdbcJar, "JdbcCompat.java", pg.jdbcURL())
	if err != nil {
		t.Fatalf("pgjdbc against PostgreSQL exited with %v\nstdout:\n%s\nstderr:\n%s", err, want, perr)
	}
	specific := regexp.MustCompile(`(?m)^(get(?:Function|Procedure)\w*\(\w+\): .*\| \w+_)\d+$`)
	normalise := func(s string) string {
		s = strings.ReplaceAll(s, "getCatalogs: "+pg.db+"\n", "getCatalogs: weir\n")
		s = strings.ReplaceAll(s, "getFunctions(version): "+pg.db+" |", "getFunctions(version): weir |")
		s = strings.ReplaceAll(s, "| version | PostgreSQL version string |", "| version | NULL |")
		return specific.ReplaceAllString(s, "${1}OID")
	}
	oracleDiff(t, "pgjdbc", out, want, normalise)
	if !strings.HasSuffix(out, "errorRecovery ok\ndone\n") {
		t.Errorf("pgjdbc run did not finish: %q", out[max(0, len(out)-200):])
	}
}

// ---------------------------------------------------------------- Python

const python = "/usr/bin/python3"

// TestSQLAlchemyPsycopg2 runs every SQLAlchemy 1.4 inspector method (with
// psycopg2) against weir and against PostgreSQL 15 with the same objects
// and requires the same answers.
func TestSQLAlchemyPsycopg2(t *testing.T) {
	if _, err := os.Stat(python); err != nil {
		t.Fatal(err)
	}
	w := startWeir(t)
	pg := pgTarget(t)
	dir := clientsDir(t, "python")
	out, errOut, err := run(t, dir, "", nil, python, "sqlalchemy_compat.py", "127.0.0.1", fmt.Sprint(w.Port), "weir", "weir")
	if err != nil {
		t.Errorf("SQLAlchemy against weir exited with %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	want, perr, err := run(t, dir, "", nil, python, "sqlalchemy_compat.py", pg.host, pg.port, pg.user, pg.db)
	if err != nil {
		t.Fatalf("SQLAlchemy against PostgreSQL exited with %v\nstdout:\n%s\nstderr:\n%s", err, want, perr)
	}
	oracleDiff(t, "SQLAlchemy+psycopg2", out, want, func(s string) string { return s })
	if !strings.HasSuffix(out, "query ok\nweir_catalog ok\n") {
		t.Errorf("SQLAlchemy run did not finish: %q", out)
	}
}

// TestPsycopg3 checks parameters, binary results and COPY, and compares
// psycopg 3's type introspection (TypeInfo, CompositeInfo, EnumInfo,
// RangeInfo fetch; registered adapters with arrays) with PostgreSQL 15's
// answers.
func TestPsycopg3(t *testing.T) {
	w := startWeir(t)
	pg := pgTarget(t)
	dir := clientsDir(t, "python")
	out, errOut, err := run(t, dir, "", nil, python, "psycopg3_compat.py",
		fmt.Sprintf("host=127.0.0.1 port=%d user=weir dbname=weir", w.Port))
	if err != nil {
		t.Errorf("psycopg3 against weir exited with %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	want, perr, err := run(t, dir, "", nil, python, "psycopg3_compat.py",
		fmt.Sprintf("host=%s port=%s user=%s dbname=%s", pg.host, pg.port, pg.user, pg.db))
	if err != nil {
		t.Fatalf("psycopg3 against PostgreSQL exited with %v\nstdout:\n%s\nstderr:\n%s", err, want, perr)
	}
	if !strings.HasPrefix(out, "params ok\nbinary ok\ncopy ok\nerror ok\n") {
		t.Errorf("psycopg3 checks: %q", out)
	}
	oracleDiff(t, "psycopg3", out, want, func(s string) string { return s })
}

// TestPgGetKeywords compares pg_get_keywords() with PostgreSQL 15's.
func TestPgGetKeywords(t *testing.T) {
	w := startWeir(t)
	pg := pgTarget(t)
	const q = "SELECT word, catcode, barelabel, catdesc, baredesc FROM pg_catalog.pg_get_keywords() ORDER BY word"
	got, gerr, err := weirTarget(w).psql(t, t.TempDir(), "", "-At", "-c", q)
	if err != nil {
		t.Fatalf("weir: %v\n%s", err, gerr)
	}
	want, perr, err := pg.psql(t, t.TempDir(), "", "-At", "-c", q)
	if err != nil {
		t.Fatalf("PostgreSQL: %v\n%s", err, perr)
	}
	oracleDiff(t, "pg_get_keywords()", got, want, func(s string) string { return s })
	if n := strings.Count(got, "\n"); n < 400 {
		t.Errorf("pg_get_keywords() returned %d rows", n)
	}
}

// ---------------------------------------------------------------- pgx

func TestPgx(t *testing.T) {
	w := startWeir(t)
	c := connect(t, w.URL())
	ctx := ctxT(t)

	t.Run("params and binary results", func(t *testing.T) {
		var (
			i4  int32
			i8  int64
			f8  float64
			b   bool
			s   string
			ts  time.Time
			num string
		)
		err := c.QueryRow(ctx, "SELECT $1::int4 + 1, $2::int8 * 2, $3::float8 / 2, NOT $4::bool, $5::text || '!', $6::timestamptz + interval '1 hour', ($7::numeric(10,2) * 2)::text",
			int32(41), int64(1)<<40, 5.0, false, "hi", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), "12.34").
			Scan(&i4, &i8, &f8, &b, &s, &ts, &num)
		if err != nil {
			t.Fatal(err)
		}
		if i4 != 42 || i8 != int64(1)<<41 || f8 != 2.5 || !b || s != "hi!" ||
			!ts.Equal(time.Date(2024, 1, 2, 4, 4, 5, 0, time.UTC)) || num != "24.68" {
			t.Errorf("got %v %v %v %v %q %v %q", i4, i8, f8, b, s, ts, num)
		}
		// pgx asks for binary results of these types: check the formats.
		rows, err := c.Query(ctx, "SELECT 1::int8, 2.5::numeric, '2024-01-02'::date, true")
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range rows.FieldDescriptions() {
			if fd.Format != 1 {
				t.Errorf("column %s (oid %d) returned in format %d, want binary", fd.Name, fd.DataTypeOID, fd.Format)
			}
		}
		var (
			bi int64
			nu float64
			d  time.Time
			bo bool
		)
		for rows.Next() {
			if err := rows.Scan(&bi, &nu, &d, &bo); err != nil {
				t.Fatal(err)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if bi != 1 || nu != 2.5 || !d.Equal(time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)) || !bo {
			t.Errorf("binary values: %v %v %v %v", bi, nu, d, bo)
		}
	})

	t.Run("reg types as text", func(t *testing.T) {
		// Simple protocol: text results, as psql sees them.
		var typ, cls, ns string
		err := c.QueryRow(ctx, "SELECT 'int4'::regtype, 'pg_class'::regclass, 'pg_catalog'::regnamespace", pgx.QueryExecModeSimpleProtocol).Scan(&typ, &cls, &ns)
		if err != nil {
			t.Fatal(err)
		}
		if typ != "integer" || cls != "pg_class" || ns != "pg_catalog" {
			t.Errorf("reg* text output: got %q %q %q, want \"integer\" \"pg_class\" \"pg_catalog\"", typ, cls, ns)
		}
	})

	t.Run("CopyFrom", func(t *testing.T) {
		if _, err := c.Exec(ctx, "CREATE TABLE pgx_copy (id int8 PRIMARY KEY, name text, amount numeric(10,2), at timestamptz, ok bool)"); err != nil {
			t.Fatal(err)
		}
		base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		n, err := c.CopyFrom(ctx, pgx.Identifier{"pgx_copy"}, []string{"id", "name", "amount", "at", "ok"},
			pgx.CopyFromSlice(10000, func(i int) ([]any, error) {
				return []any{int64(i + 1), fmt.Sprintf("name %d", i+1), fmt.Sprintf("%d.%02d", i, i%100), base.Add(time.Duration(i) * time.Second), i%2 == 0}, nil
			}))
		if err != nil {
			t.Fatal(err)
		}
		if n != 10000 {
			t.Errorf("CopyFrom reported %d rows", n)
		}
		var count, sumID int64
		var maxAt time.Time
		var trues int64
		if err := c.QueryRow(ctx, "SELECT count(*), sum(id), max(at), count(*) FILTER (WHERE ok) FROM pgx_copy").Scan(&count, &sumID, &maxAt, &trues); err != nil {
			t.Fatal(err)
		}
		if count != 10000 || sumID != 50005000 || !maxAt.Equal(base.Add(9999*time.Second)) || trues != 5000 {
			t.Errorf("after CopyFrom: count %d sum %d max(at) %v trues %d", count, sumID, maxAt, trues)
		}
		var name, amount string
		if err := c.QueryRow(ctx, "SELECT name, amount::text FROM pgx_copy WHERE id = $1", int64(1235)).Scan(&name, &amount); err != nil {
			t.Fatal(err)
		}
		if name != "name 1235" || amount != "1234.34" {
			t.Errorf("row 1235: %q %q", name, amount)
		}
	})

	t.Run("prepared", func(t *testing.T) {
		if _, err := c.Prepare(ctx, "sq", "SELECT $1::int4 * $1::int4, $2::text"); err != nil {
			t.Fatal(err)
		}
		for i := int32(1); i <= 3; i++ {
			var sq int32
			var s string
			if err := c.QueryRow(ctx, "sq", i, fmt.Sprint("v", i)).Scan(&sq, &s); err != nil {
				t.Fatal(err)
			}
			if sq != i*i || s != fmt.Sprint("v", i) {
				t.Errorf("prepared #%d: %d %q", i, sq, s)
			}
		}
		if err := c.Deallocate(ctx, "sq"); err != nil {
			t.Errorf("deallocate: %v", err)
		}
	})

	t.Run("SendBatch", func(t *testing.T) {
		b := &pgx.Batch{}
		b.Queue("SELECT $1::int4 + 1", int32(1))
		b.Queue("SELECT $1::text || 'b'", "a")
		b.Queue("SELECT count(*) FROM generate_series(1, $1::int4)", int32(10))
		br := c.SendBatch(ctx, b)
		var i int32
		var s string
		var n int64
		if err := br.QueryRow().Scan(&i); err != nil {
			t.Fatal(err)
		}
		if err := br.QueryRow().Scan(&s); err != nil {
			t.Fatal(err)
		}
		if err := br.QueryRow().Scan(&n); err != nil {
			t.Fatal(err)
		}
		if err := br.Close(); err != nil {
			t.Fatal(err)
		}
		if i != 2 || s != "ab" || n != 10 {
			t.Errorf("batch results: %d %q %d", i, s, n)
		}
	})

	t.Run("error then ok", func(t *testing.T) {
		_, err := c.Exec(ctx, "SELECT * FROM pgx_missing")
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "42P01" {
			t.Errorf("missing table: got %v, want SQLSTATE 42P01", err)
		}
		var one int
		if err := c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Errorf("after error: %v %d", err, one)
		}
		if err := c.Ping(ctx); err != nil {
			t.Errorf("Ping (empty query): %v", err)
		}
	})

	t.Run("CancelRequest", func(t *testing.T) {
		done := make(chan error, 1)
		go func() {
			var n int64
			done <- c.QueryRow(context.Background(), "SELECT count(*) FROM generate_series(1, 200000000) a, generate_series(1, 1000) b").Scan(&n)
		}()
		// Cancel requests are a no-op when they arrive before the query
		// runs, so send them repeatedly until the query ends (deadline).
		deadline := time.After(20 * time.Second)
		var err error
	loop:
		for {
			if cerr := c.PgConn().CancelRequest(ctx); cerr != nil {
				t.Errorf("CancelRequest: %v", cerr)
			}
			select {
			case err = <-done:
				break loop
			case <-time.After(50 * time.Millisecond):
			case <-deadline:
				t.Fatal("query not cancelled within 20s")
			}
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57014" {
			t.Fatalf("cancelled query: got %v, want SQLSTATE 57014", err)
		}
		var v int
		if err := c.QueryRow(ctx, "SELECT 7").Scan(&v); err != nil || v != 7 {
			t.Errorf("connection unusable after cancel: %v %d", err, v)
		}
	})
}
