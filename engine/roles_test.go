package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/internal/pgtest"
)

// errOutcome is what a statement produced, as compared with PostgreSQL: "ok"
// or the SQLSTATE and message of its error.
func errOutcome(err error) string {
	if err == nil {
		return "ok"
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code + " " + pe.Message
	}
	return "error " + err.Error()
}

func mustExec(t *testing.T, c *pgx.Conn, sql string) {
	t.Helper()
	if _, err := c.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// connectAs opens a pgx connection to url with user (and password, if not
// empty) replaced.
func connectAs(t *testing.T, url, user, password string) (*pgx.Conn, error) {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.User, cfg.Password = user, password
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		t.Cleanup(func() { c.Close(context.Background()) })
	}
	return c, err
}

// TestAlterRolePrivileges runs ALTER ROLE as a role that is not a
// superuser, on weir and on PostgreSQL, and compares the outcomes: a role
// may change its own password and nothing else.
func TestAlterRolePrivileges(t *testing.T) {
	pg := pgtest.Shared(t)
	w := startServer(t, t.TempDir())
	suffix := fmt.Sprint(time.Now().UnixNano())
	self, other, super := "rself_"+suffix, "rother_"+suffix, "rsuper_"+suffix

	setup := []string{
		"CREATE ROLE " + self + " LOGIN",
		"CREATE ROLE " + other + " LOGIN",
		"CREATE ROLE " + super + " SUPERUSER LOGIN",
	}
	pgAdmin := pg.Connect(t)
	wAdmin := w.connect(t)
	for _, q := range setup {
		mustExec(t, pgAdmin, q)
		mustExec(t, wAdmin, q)
	}
	t.Cleanup(func() {
		for _, r := range []string{self, other, super} {
			pgAdmin.Exec(context.Background(), "DROP ROLE IF EXISTS "+r)
		}
	})
	pgSelf, err := connectAs(t, pg.URL(), self, "")
	if err != nil {
		t.Fatal(err)
	}
	wSelf, err := connectAs(t, w.url(), self, "")
	if err != nil {
		t.Fatal(err)
	}

	stmts := []string{
		"ALTER ROLE " + self + " SUPERUSER",
		"ALTER ROLE " + self + " NOSUPERUSER",
		"ALTER ROLE " + self + " LOGIN",
		"ALTER ROLE " + self + " NOLOGIN",
		"ALTER ROLE " + self + " CREATEDB",
		"ALTER ROLE " + self + " CREATEROLE",
		"ALTER ROLE " + self + " REPLICATION",
		"ALTER ROLE " + self + " BYPASSRLS",
		"ALTER ROLE " + self + " PASSWORD 'pw1' SUPERUSER",
		"ALTER ROLE " + self + " PASSWORD 'pw1' LOGIN",
		"ALTER ROLE " + self + " CONNECTION LIMIT 3",
		"ALTER ROLE " + other + " PASSWORD 'pw2'",
		"ALTER ROLE " + other + " NOLOGIN",
		"ALTER ROLE " + other + " SUPERUSER",
		"ALTER ROLE " + super + " PASSWORD 'pw3'",
		"ALTER ROLE " + super + " NOSUPERUSER",
		"ALTER ROLE nosuchrole_" + suffix + " PASSWORD 'x'",
		"ALTER ROLE CURRENT_USER SUPERUSER",
		"CREATE ROLE made_" + suffix,
		"DROP ROLE " + other,
		"ALTER ROLE " + self + " PASSWORD 'mine'",
		"ALTER ROLE CURRENT_USER PASSWORD 'mine2'",
	}
	for _, q := range stmts {
		_, pgErr := pgSelf.Exec(context.Background(), q)
		_, wErr := wSelf.Exec(context.Background(), q)
		if errOutcome(pgErr) != errOutcome(wErr) {
			t.Errorf("%s\n  PostgreSQL: %s\n  weir:       %s", q, errOutcome(pgErr), errOutcome(wErr))
		}
	}

	var super1 bool
	if err := wAdmin.QueryRow(context.Background(), "SELECT rolsuper FROM pg_roles WHERE rolname = $1", self).Scan(&super1); err != nil {
		t.Fatal(err)
	}
	if super1 {
		t.Fatalf("%s became a superuser by altering itself", self)
	}
}

// TestAlterRoleVerifier gives a weir role the SCRAM verifier PostgreSQL
// derived for a password (what psql's \password sends) and logs in with
// that password.
func TestAlterRoleVerifier(t *testing.T) {
	pg := pgtest.Shared(t)
	w := startServer(t, t.TempDir())
	role := fmt.Sprintf("rverif_%d", time.Now().UnixNano())
	pgAdmin := pg.Connect(t)
	mustExec(t, pgAdmin, "CREATE ROLE "+role+" LOGIN PASSWORD 'correct horse'")
	t.Cleanup(func() { pgAdmin.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
	var verifier string
	if err := pgAdmin.QueryRow(context.Background(), "SELECT rolpassword FROM pg_authid WHERE rolname = $1", role).Scan(&verifier); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(verifier, "SCRAM-SHA-256$") {
		t.Fatalf("PostgreSQL stored %q", verifier)
	}

	wAdmin := w.connect(t)
	mustExec(t, wAdmin, "CREATE ROLE "+role+" LOGIN")
	mustExec(t, wAdmin, "ALTER ROLE "+role+" PASSWORD '"+verifier+"'")
	if _, err := connectAs(t, w.url(), role, "correct horse"); err != nil {
		t.Fatalf("login with the password behind PostgreSQL's verifier: %v", err)
	}
	if _, err := connectAs(t, w.url(), role, verifier); err == nil {
		t.Fatal("the verifier text itself was accepted as the password")
	}

	// CREATE ROLE with a verifier, and a plaintext password that merely
	// starts like one, as PostgreSQL hashes it.
	role2 := role + "_c"
	mustExec(t, wAdmin, "CREATE ROLE "+role2+" LOGIN PASSWORD '"+verifier+"'")
	if _, err := connectAs(t, w.url(), role2, "correct horse"); err != nil {
		t.Fatalf("login after CREATE ROLE with a verifier: %v", err)
	}
	role3 := role + "_p"
	mustExec(t, wAdmin, "CREATE ROLE "+role3+" LOGIN PASSWORD 'SCRAM-SHA-256$nope'")
	if _, err := connectAs(t, w.url(), role3, "SCRAM-SHA-256$nope"); err != nil {
		t.Fatalf("a malformed verifier is a plaintext password: %v", err)
	}
}

// TestPsqlPasswordCommand: psql's \password computes the SCRAM verifier
// on the client (after reading password_encryption) and sends ALTER USER
// with it; the role then logs in with the password.
func TestPsqlPasswordCommand(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Skip("psql not installed")
	}
	w := startServer(t, t.TempDir())
	admin := w.connect(t)
	mustExec(t, admin, "CREATE ROLE pwrole LOGIN")
	cmd := exec.Command(psql, w.url(), "-X", "-c", `\password pwrole`)
	cmd.Stdin = strings.NewReader("hunter2\nhunter2\n")
	// No controlling terminal: psql reads the password from stdin.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("psql \\password: %v\n%s", err, out)
	}
	if _, err := connectAs(t, w.url(), "pwrole", "hunter2"); err != nil {
		t.Fatalf("login with the password set by \\password: %v", err)
	}
	if _, err := connectAs(t, w.url(), "pwrole", "wrong"); err == nil {
		t.Fatal("a wrong password was accepted")
	}
}

// TestNoLoginRole: a NOLOGIN role is refused after authentication with
// PostgreSQL's FATAL, and a role that does not exist is refused as a wrong
// password would be.
func TestNoLoginRole(t *testing.T) {
	pg := pgtest.Shared(t)
	w := startServer(t, t.TempDir())
	role := fmt.Sprintf("rnologin_%d", time.Now().UnixNano())
	pgAdmin := pg.Connect(t)
	mustExec(t, pgAdmin, "CREATE ROLE "+role+" NOLOGIN")
	t.Cleanup(func() { pgAdmin.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
	mustExec(t, w.connect(t), "CREATE ROLE "+role+" NOLOGIN")
	_, pgErr := connectAs(t, pg.URL(), role, "")
	_, wErr := connectAs(t, w.url(), role, "")
	var pe, we *pgconn.PgError
	if !errors.As(pgErr, &pe) || !errors.As(wErr, &we) || pe.Code != we.Code || pe.Message != we.Message || pe.Severity != we.Severity {
		t.Fatalf("NOLOGIN role\n  PostgreSQL: %v\n  weir:       %v", pgErr, wErr)
	}
	_, wErr = connectAs(t, w.url(), "nosuch_"+role, "pw")
	if !errors.As(wErr, &we) || we.Code != "28P01" || we.Message != `password authentication failed for user "nosuch_`+role+`"` {
		t.Fatalf("unknown role: %v", wErr)
	}
}
