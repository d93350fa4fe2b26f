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

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/internal/pgtest"
)

// loginOutcome connects to url as user and says how it went: "ok", or
// the refusal's severity, SQLSTATE, message and detail.
func loginOutcome(t *testing.T, url, user string) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.User = user
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		c.Close(ctx)
		return "ok"
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s %s %s / %s", pe.Severity, pe.Code, pe.Message, pe.Detail)
	}
	return "error " + err.Error()
}

// TestConnectPrivilege: with CONNECT revoked from PUBLIC, a plain role is
// refused at login as PostgreSQL 15 refuses it, a role granted CONNECT
// and a superuser log in. weir's GRANT ON DATABASE comes from elsewhere:
// the test sets the database's ACL through the catalog.
func TestConnectPrivilege(t *testing.T) {
	pg := pgtest.Shared(t)
	w := startServer(t, t.TempDir())
	ctx := context.Background()
	sfx := fmt.Sprint(time.Now().UnixNano())
	plain, allowed := "cp_plain_"+sfx, "cp_allowed_"+sfx
	pgAdmin, wAdmin := pg.Connect(t), w.connect(t)
	var pgDB string
	if err := pgAdmin.QueryRow(ctx, "SELECT current_database()").Scan(&pgDB); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{plain, allowed} {
		mustExec(t, pgAdmin, "CREATE ROLE "+r+" LOGIN")
		mustExec(t, wAdmin, "CREATE ROLE "+r+" LOGIN")
	}
	t.Cleanup(func() {
		pgAdmin.Exec(ctx, "GRANT CONNECT ON DATABASE "+pgDB+" TO PUBLIC")
		pgAdmin.Exec(ctx, "REVOKE ALL ON DATABASE "+pgDB+" FROM "+allowed)
		pgAdmin.Exec(ctx, "DROP ROLE IF EXISTS "+plain)
		pgAdmin.Exec(ctx, "DROP ROLE IF EXISTS "+allowed)
	})
	if got := loginOutcome(t, w.url(), plain); got != "ok" {
		t.Fatalf("weir, default ACL: %s", got)
	}
	mustExec(t, pgAdmin, "REVOKE CONNECT ON DATABASE "+pgDB+" FROM PUBLIC")
	mustExec(t, pgAdmin, "GRANT CONNECT ON DATABASE "+pgDB+" TO "+allowed)
	r, ok := w.eng.Catalog().Role(allowed)
	if !ok {
		t.Fatal("no role " + allowed)
	}
	boot := catalog.BootstrapRoleOID
	if _, err := w.eng.Catalog().UpdateDatabase(catalog.DefaultDB, func(d *catalog.Database) error {
		d.ACL = catalog.ACL{
			{Grantee: 0, Grantor: boot, Privs: catalog.PrivTemporary},
			{Grantee: boot, Grantor: boot, Privs: catalog.PrivCreate | catalog.PrivTemporary | catalog.PrivConnect},
			{Grantee: r.OID, Grantor: boot, Privs: catalog.PrivConnect},
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var pgSuper string
	if err := pgAdmin.QueryRow(ctx, "SELECT current_user").Scan(&pgSuper); err != nil {
		t.Fatal(err)
	}
	if got := loginOutcome(t, w.url(), plain); !strings.HasPrefix(got, "FATAL 42501") {
		t.Errorf("weir, CONNECT revoked: %s", got)
	}
	for _, c := range []struct{ pgUser, wUser string }{{plain, plain}, {allowed, allowed}, {pgSuper, "weir"}} {
		p := strings.ReplaceAll(loginOutcome(t, pg.URL(), c.pgUser), pgDB, "DB")
		q := strings.ReplaceAll(loginOutcome(t, w.url(), c.wUser), catalog.DefaultDB, "DB")
		t.Logf("login as %s: %s", c.wUser, q)
		if p != q {
			t.Errorf("login as %s:\n  PostgreSQL: %s\n  weir:       %s", c.wUser, p, q)
		}
	}
}
