package engine_test

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/weir-sql/weir/internal/pgtest"
)

// TestMembershipSignalsAndActivity compares, on weir and PostgreSQL, what
// membership gives other sessions: pg_monitor (through
// pg_read_all_stats) sees every session's query, pg_signal_backend may
// cancel other roles' statements but not a superuser's, a member of a
// role sees and signals that role's sessions, and SET ROLE needs
// membership.
func TestMembershipSignalsAndActivity(t *testing.T) {
	sideBySide(t, []string{"mrole", "mmember", "mmon", "msig", "mnone"}, func(t *testing.T, tg target, roles []string) []string {
		var log []string
		rec := func(what, got string) {
			for i, r := range roles {
				got = strings.ReplaceAll(got, r, fmt.Sprintf("role%d", i))
			}
			log = append(log, what+": "+digits.ReplaceAllString(got, "N"))
		}
		admin := tg.connect(t, "")
		role, member, mon, sig, none := roles[0], roles[1], roles[2], roles[3], roles[4]
		mustExec(t, admin.c, "GRANT "+role+" TO "+member)
		mustExec(t, admin.c, "GRANT pg_monitor TO "+mon)
		mustExec(t, admin.c, "GRANT pg_signal_backend TO "+sig)

		a := tg.connect(t, role)
		m := tg.connect(t, member)
		mo := tg.connect(t, mon)
		sg := tg.connect(t, sig)
		n := tg.connect(t, none)
		seen := func(viewer *session, pid int32) string {
			return viewer.query(fmt.Sprintf("SELECT coalesce(state, 'NULL') || ' / ' || query FROM pg_stat_activity WHERE pid = %d", pid))
		}

		run := a.start("SELECT pg_sleep(30)")
		waitActive(t, admin, a.pid)
		rec("pg_monitor member sees", seen(mo, a.pid))
		rec("role member sees", seen(m, a.pid))
		rec("pg_signal_backend member sees", seen(sg, a.pid))
		rec("unrelated role sees", seen(n, a.pid))
		rec("pg_monitor member sees a superuser", seen(mo, admin.pid))

		rec("unrelated role cancels", n.query(fmt.Sprintf("SELECT pg_cancel_backend(%d)", a.pid)))
		rec("pg_monitor member cancels", mo.query(fmt.Sprintf("SELECT pg_cancel_backend(%d)", a.pid)))
		rec("pg_signal_backend member cancels a superuser", sg.query(fmt.Sprintf("SELECT pg_cancel_backend(%d)", admin.pid)))
		rec("pg_signal_backend member terminates a superuser", sg.query(fmt.Sprintf("SELECT pg_terminate_backend(%d)", admin.pid)))
		rec("pg_signal_backend member cancels", sg.query(fmt.Sprintf("SELECT pg_cancel_backend(%d)", a.pid)))
		rec("cancelled statement", outcomeWithin(t, run, 5*time.Second))

		run = a.start("SELECT pg_sleep(30)")
		waitActive(t, admin, a.pid)
		rec("role member cancels", m.query(fmt.Sprintf("SELECT pg_cancel_backend(%d)", a.pid)))
		rec("cancelled statement", outcomeWithin(t, run, 5*time.Second))
		rec("role cancels its member", a.query(fmt.Sprintf("SELECT pg_cancel_backend(%d)", m.pid)))
		rec("role does not see its member's session", seen(a, m.pid))

		// SET ROLE follows membership; current_user changes, session_user not.
		rec("member sets role", errOutcome(execErr(m, "SET ROLE "+role)))
		rec("identities", m.query("SELECT current_user || ' ' || session_user"))
		rec("as the role, sees own sessions", seen(m, a.pid))
		rec("reset", errOutcome(execErr(m, "RESET ROLE")))
		rec("member sets other role", errOutcome(execErr(m, "SET ROLE "+mon)))
		rec("pg_monitor member sets pg_read_all_stats", errOutcome(execErr(mo, "SET ROLE pg_read_all_stats")))
		rec("as pg_read_all_stats", mo.query("SELECT current_user || ' ' || session_user"))
		rec("as pg_read_all_stats sees", seen(mo, n.pid))

		// Revoking takes the privilege away from sessions already open.
		mustExec(t, admin.c, "REVOKE pg_signal_backend FROM "+sig)
		rec("after revoke, cancels", sg.query(fmt.Sprintf("SELECT pg_cancel_backend(%d)", a.pid)))
		rec("after revoke, sees", seen(sg, a.pid))
		return log
	})
}

// digits are pids and the like, which differ between the servers.
var digits = regexp.MustCompile(`\b[0-9]{2,}\b`)

func execErr(s *session, sql string) error {
	_, err := s.c.Exec(context.Background(), sql)
	return err
}

// TestMembershipSurvivesRestart: memberships, ADMIN OPTION and a revoked
// predefined membership are stored, and read back after a restart.
func TestMembershipSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	w := startServer(t, dir)
	c := w.connect(t)
	for _, q := range []string{
		"CREATE ROLE ra",
		"CREATE ROLE rb LOGIN",
		"CREATE ROLE rc IN ROLE ra ADMIN rb",
		"GRANT ra TO rb WITH ADMIN OPTION",
		"GRANT pg_monitor TO rc",
		"REVOKE pg_stat_scan_tables FROM pg_monitor",
		"CREATE ROLE rd CREATEROLE",
		"CREATE ROLE re IN ROLE ra",
		"DROP ROLE re",
	} {
		mustExec(t, c, q)
	}
	const q = `SELECT string_agg(r.rolname || '>' || m.rolname || CASE WHEN a.admin_option THEN '*' ELSE '' END, ' ' ORDER BY r.rolname, m.rolname)
		FROM pg_auth_members a JOIN pg_roles r ON r.oid = a.roleid JOIN pg_roles m ON m.oid = a.member`
	var before string
	if err := c.QueryRow(context.Background(), q).Scan(&before); err != nil {
		t.Fatal(err)
	}
	want := "pg_monitor>rc pg_read_all_settings>pg_monitor pg_read_all_stats>pg_monitor ra>rb* ra>rc rc>rb*"
	if before != want {
		t.Fatalf("memberships before restart:\n  %s\nwant\n  %s", before, want)
	}
	c.Close(context.Background())
	w.stop()

	w = startServer(t, dir)
	c = w.connect(t)
	var after string
	var createRole, member, admin bool
	if err := c.QueryRow(context.Background(), q).Scan(&after); err != nil {
		t.Fatal(err)
	}
	err := c.QueryRow(context.Background(), `SELECT (SELECT rolcreaterole FROM pg_roles WHERE rolname = 'rd'),
		pg_has_role('rc', 'pg_read_all_stats', 'USAGE'), pg_has_role('rb', 'ra', 'MEMBER WITH ADMIN OPTION')`).Scan(&createRole, &member, &admin)
	if err != nil {
		t.Fatal(err)
	}
	if after != before || !createRole || !member || !admin {
		t.Fatalf("after restart: %s createrole=%v member=%v admin=%v\nbefore: %s", after, createRole, member, admin, before)
	}
}

// TestPsqlDuMemberOf runs psql's own \du against weir and PostgreSQL with
// the same roles and memberships and compares the tables it prints.
func TestPsqlDuMemberOf(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Skip("psql not installed")
	}
	pg := pgtest.Shared(t)
	w := startServer(t, t.TempDir())
	p := fmt.Sprintf("du%d_", time.Now().UnixNano())
	setup := []string{
		"CREATE ROLE " + p + "a",
		"CREATE ROLE " + p + "b LOGIN CREATEROLE",
		"CREATE ROLE " + p + "c SUPERUSER IN ROLE " + p + "a, " + p + "b",
		"CREATE ROLE " + p + "d CREATEDB LOGIN ROLE " + p + "c",
		"GRANT pg_monitor, " + p + "a TO " + p + "d WITH ADMIN OPTION",
	}
	pgAdmin := pg.Connect(t)
	wAdmin := w.connect(t)
	for _, q := range setup {
		mustExec(t, pgAdmin, q)
		mustExec(t, wAdmin, q)
	}
	t.Cleanup(func() {
		for _, r := range []string{"d", "c", "b", "a"} {
			pgAdmin.Exec(context.Background(), "DROP ROLE IF EXISTS "+p+r)
		}
	})
	du := func(url string) string {
		out, err := exec.Command(psql, url, "-X", "-c", `\du `+p+`*`).CombinedOutput()
		if err != nil {
			t.Fatalf("psql \\du: %v\n%s", err, out)
		}
		return strings.ReplaceAll(string(out), p, "")
	}
	got, want := du(w.url()), du(pg.URL())
	if got != want {
		t.Errorf("\\du differs\nweir:\n%s\nPostgreSQL:\n%s", got, want)
	}
}

// TestRoleNotices compares the NOTICEs and WARNINGs of membership
// statements: a membership already there, a REVOKE of none, DROP ROLE IF
// EXISTS of a missing role.
func TestRoleNotices(t *testing.T) {
	sideBySide(t, []string{"na", "nb", "nc"}, func(t *testing.T, tg target, roles []string) []string {
		var log []string
		admin := tg.connect(t, "")
		a, b, c := roles[0], roles[1], roles[2]
		for _, q := range []string{
			"GRANT " + a + " TO " + b,
			"GRANT " + a + " TO " + b + ", " + c,
			"GRANT " + a + " TO " + b + " WITH ADMIN OPTION",
			"GRANT " + a + " TO " + b + " WITH ADMIN OPTION",
			"REVOKE " + a + " FROM " + b + ", " + c + ", " + c,
			"REVOKE ADMIN OPTION FOR " + a + " FROM " + b,
			"DROP ROLE IF EXISTS nosuch_role_x, nosuch_role_y",
		} {
			err := execErr(admin, q)
			got := errOutcome(err) + " | " + strings.Join(admin.takeNotices(), " | ")
			for i, r := range roles {
				got = strings.ReplaceAll(got, r, fmt.Sprintf("role%d", i))
			}
			log = append(log, got)
		}
		return log
	})
}
