package engine_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/internal/pgtest"
)

// The privilege scripts (testdata/privileges/*.sql) are run statement by
// statement on PostgreSQL 15 and on weir, each statement by the role its
// "-- as <role>" line names (one connection per role, kept for the whole
// script, so that SET ROLE lasts), and each outcome — rows as text, the
// command tag, warnings and notices, or the error's SQLSTATE and
// message — must be the same on both. Role names starting with pv_ are
// the scripts'; the PostgreSQL side runs in a fresh database weir owned
// by a superuser weir (pgAsWeir), so no name needs rewriting.

// scriptStep is one statement of a privilege script.
type scriptStep struct {
	line int    // where the statement starts in the file
	as   string // the role that runs it
	sql  string
}

// readPrivilegeScript reads a script: every statement is preceded by a
// "-- as <role>" line and ends with a line ending in ";"; other comment
// lines and blank lines are ignored.
func readPrivilegeScript(t *testing.T, path string) []scriptStep {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var steps []scriptStep
	var cur *scriptStep
	var as string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "-- as "):
			as = strings.TrimSpace(strings.TrimPrefix(trimmed, "-- as "))
			continue
		case cur == nil && (trimmed == "" || strings.HasPrefix(trimmed, "--")):
			continue
		case cur == nil:
			if as == "" {
				t.Fatalf("%s:%d: statement without a \"-- as <role>\" line", path, n)
			}
			cur = &scriptStep{line: n, as: as}
			as = ""
		}
		if cur.sql != "" {
			cur.sql += "\n"
		}
		cur.sql += line
		if strings.HasSuffix(trimmed, ";") {
			cur.sql = strings.TrimSuffix(strings.TrimSpace(cur.sql), ";")
			steps = append(steps, *cur)
			cur = nil
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: statement without its closing ;", path, cur.line)
	}
	return steps
}

// scriptRunner runs steps on one server, a connection per role.
type scriptRunner struct {
	t     *testing.T
	url   string // as the superuser weir, to database weir
	conns map[string]*scriptConn
}

type scriptConn struct {
	c       *pgx.Conn
	mu      sync.Mutex
	notices []string
}

func (r *scriptRunner) conn(role string) (*scriptConn, error) {
	if c, ok := r.conns[role]; ok {
		return c, nil
	}
	cfg, err := pgx.ParseConfig(r.url)
	if err != nil {
		return nil, err
	}
	cfg.User = role
	sc := &scriptConn{}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		sc.mu.Lock()
		sc.notices = append(sc.notices, n.Severity+" "+n.Code+" "+n.Message)
		sc.mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if sc.c, err = pgx.ConnectConfig(ctx, cfg); err != nil {
		return nil, err
	}
	r.conns[role] = sc
	return sc, nil
}

func (r *scriptRunner) close() {
	for _, c := range r.conns {
		c.c.Close(context.Background())
	}
}

// run is one step's outcome as text.
func (r *scriptRunner) run(st scriptStep) string {
	c, err := r.conn(st.as)
	if err != nil {
		return "cannot connect as " + st.as + ": " + errOutcome(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out string
	rows, err := c.c.Query(ctx, st.sql, pgx.QueryExecModeSimpleProtocol)
	if err == nil {
		var lines []string
		for rows.Next() {
			var vals []string
			for _, v := range rows.RawValues() {
				if v == nil {
					vals = append(vals, "NULL")
				} else {
					vals = append(vals, string(v))
				}
			}
			lines = append(lines, strings.Join(vals, "|"))
		}
		rows.Close()
		err = rows.Err()
		if err == nil {
			out = rows.CommandTag().String()
			if len(lines) > 0 {
				out += ": " + strings.Join(lines, " ; ")
			}
		}
	}
	if err != nil {
		if pe, ok := err.(*pgconn.PgError); ok {
			out = "ERROR " + pe.Code + " " + pe.Message
		} else {
			out = errOutcome(err)
		}
	}
	c.mu.Lock()
	for _, n := range c.notices {
		out += " | " + n
	}
	c.notices = nil
	c.mu.Unlock()
	return out
}

// freshWeirDatabase gives the PostgreSQL oracle an empty database weir
// and no pv_ roles, and returns pgAsWeir's URL.
func freshWeirDatabase(t *testing.T, pg *pgtest.Server) string {
	t.Helper()
	url := pgAsWeir(t, pg)
	admin := pg.Connect(t)
	clean := func() error {
		ctx := context.Background()
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS weir WITH (FORCE)"); err != nil {
			return err
		}
		rows, err := admin.Query(ctx, "SELECT rolname FROM pg_roles WHERE rolname LIKE 'pv\\_%'")
		if err != nil {
			return err
		}
		roles, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		for _, r := range roles {
			if _, err := admin.Exec(ctx, `DROP ROLE "`+r+`"`); err != nil {
				return err
			}
		}
		_, err = admin.Exec(ctx, "CREATE DATABASE weir OWNER weir")
		return err
	}
	if err := clean(); err != nil {
		t.Fatal(err)
	}
	// Leave no pv_ roles behind: other tests read the shared server's
	// pg_auth_members.
	t.Cleanup(func() {
		if err := clean(); err != nil {
			t.Errorf("cleaning PostgreSQL after the script: %v", err)
		}
	})
	return url
}

// runPrivilegeScript runs the script at path on both servers and
// reports every step whose outcomes differ, with its line.
func runPrivilegeScript(t *testing.T, path string) {
	steps := readPrivilegeScript(t, path)
	pg := pgtest.Shared(t)
	pgURL := freshWeirDatabase(t, pg)
	w := startServer(t, t.TempDir())
	var got [2][]string
	for i, url := range []string{pgURL, w.url()} {
		r := &scriptRunner{t: t, url: url, conns: map[string]*scriptConn{}}
		for _, st := range steps {
			got[i] = append(got[i], r.run(st))
		}
		r.close()
	}
	mismatches := 0
	for i, st := range steps {
		if got[0][i] != got[1][i] {
			mismatches++
			t.Errorf("%s:%d (as %s) %s\n  PostgreSQL: %s\n  weir:       %s", path, st.line, st.as, st.sql, got[0][i], got[1][i])
		}
	}
	t.Logf("%s: %d steps, %d differ", path, len(steps), mismatches)
	if testing.Verbose() {
		for i, st := range steps {
			t.Logf("%d (as %s) %s => %s", st.line, st.as, st.sql, got[0][i])
		}
	}
}

// TestPrivilegeScript runs testdata/privileges/script.sql (what is seen
// of privileges: GRANT and REVOKE, ACL columns, has_*_privilege,
// information_schema) and enforce.sql (what the checks refuse or allow)
// on PostgreSQL 15 and weir, case by case.
func TestPrivilegeScript(t *testing.T) {
	for _, name := range []string{"script", "enforce"} {
		t.Run(name, func(t *testing.T) {
			runPrivilegeScript(t, fmt.Sprintf("../testdata/privileges/%s.sql", name))
		})
	}
}
