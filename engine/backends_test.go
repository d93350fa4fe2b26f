package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weir-sql/weir/internal/pgtest"
)

// target is one server of a side-by-side test: weir or the PostgreSQL
// oracle, reached as any role.
type target struct {
	name string
	url  string // as the superuser
}

func (tg target) connect(t *testing.T, user string) *session {
	t.Helper()
	cfg, err := pgx.ParseConfig(tg.url)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		cfg.User = user
	}
	s := &session{}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		s.mu.Lock()
		s.notices = append(s.notices, n.Severity+" "+n.Message)
		s.mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.c, err = pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("%s: connect as %q: %v", tg.name, user, err)
	}
	t.Cleanup(func() { s.c.Close(context.Background()) })
	if err := s.c.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&s.pid); err != nil {
		t.Fatal(err)
	}
	return s
}

// session is one connection with its pid and the notices it received.
type session struct {
	c       *pgx.Conn
	pid     int32
	mu      sync.Mutex
	notices []string
}

func (s *session) takeNotices() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.notices
	s.notices = nil
	return n
}

// query returns the first column of the first row as text, or the error
// outcome.
func (s *session) query(sql string) string {
	var v any
	err := s.c.QueryRow(context.Background(), sql).Scan(&v)
	if err != nil {
		return errOutcome(err)
	}
	return fmt.Sprint(v)
}

// start runs sql in the background; the returned channel gets its outcome.
func (s *session) start(sql string) <-chan string {
	out := make(chan string, 1)
	go func() {
		_, err := s.c.Exec(context.Background(), sql)
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			out <- pe.Severity + " " + pe.Code + " " + pe.Message
			return
		}
		out <- errOutcome(err)
	}()
	return out
}

// waitActive waits until pid runs a statement (seen by the superuser
// session admin).
func waitActive(t *testing.T, admin *session, pid int32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if admin.query(fmt.Sprintf("SELECT state FROM pg_stat_activity WHERE pid = %d", pid)) == "active" {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("pid %d never became active", pid)
}

// waitGone waits until pid no longer shows in pg_stat_activity and returns
// how long that took.
func waitGone(t *testing.T, admin *session, pid int32, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for time.Since(start) < within {
		if admin.query(fmt.Sprintf("SELECT count(*) FROM pg_stat_activity WHERE pid = %d", pid)) == "0" {
			return time.Since(start)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("pid %d still in pg_stat_activity after %v", pid, within)
	return 0
}

func outcomeWithin(t *testing.T, ch <-chan string, d time.Duration) string {
	t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(d):
		t.Fatalf("statement still running after %v", d)
		return ""
	}
}

// sideBySide runs scenario against weir and PostgreSQL with the same
// roles and compares what it records.
func sideBySide(t *testing.T, roles []string, scenario func(t *testing.T, tg target, roles []string) []string) {
	pg := pgtest.Shared(t)
	w := startServer(t, t.TempDir())
	suffix := fmt.Sprint(time.Now().UnixNano())
	named := make([]string, len(roles))
	for i, r := range roles {
		named[i] = r + "_" + suffix
	}
	pgAdmin := pg.Connect(t)
	wAdmin := w.connect(t)
	for _, r := range named {
		mustExec(t, pgAdmin, "CREATE ROLE "+r+" LOGIN")
		mustExec(t, wAdmin, "CREATE ROLE "+r+" LOGIN")
	}
	t.Cleanup(func() {
		for _, r := range named {
			pgAdmin.Exec(context.Background(), "DROP ROLE IF EXISTS "+r)
		}
	})
	var got [2][]string
	for i, tg := range []target{{"PostgreSQL", pg.URL()}, {"weir", w.url()}} {
		got[i] = scenario(t, tg, named)
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

func TestCancelAndTerminateBackend(t *testing.T) {
	sideBySide(t, []string{"ra", "rb"}, func(t *testing.T, tg target, roles []string) []string {
		var log []string
		admin := tg.connect(t, "")
		a1 := tg.connect(t, roles[0])
		a2 := tg.connect(t, roles[0])
		b := tg.connect(t, roles[1])
		rec := func(what, got string) { log = append(log, what+": "+got) }

		// A superuser cancels a's statement; a goes on.
		run := a1.start("SELECT pg_sleep(30)")
		waitActive(t, admin, a1.pid)
		rec("superuser cancels", admin.query(fmt.Sprintf("SELECT pg_cancel_backend(%d)", a1.pid)))
		rec("cancelled statement", outcomeWithin(t, run, 5*time.Second))
		rec("after cancel", a1.query("SELECT 1"))

		// Another role may not; a role may cancel its own other session.
		run = a1.start("SELECT pg_sleep(30)")
		waitActive(t, admin, a1.pid)
		rec("other role cancels", b.query(fmt.Sprintf("SELECT pg_cancel_backend(%d)", a1.pid)))
		rec("other role terminates", b.query(fmt.Sprintf("SELECT pg_terminate_backend(%d)", a1.pid)))
		rec("cancel a superuser", b.query(fmt.Sprintf("SELECT pg_cancel_backend(%d)", admin.pid)))
		rec("terminate a superuser", b.query(fmt.Sprintf("SELECT pg_terminate_backend(%d)", admin.pid)))
		rec("same role cancels", a2.query(fmt.Sprintf("SELECT pg_cancel_backend(%d)", a1.pid)))
		rec("cancelled statement", outcomeWithin(t, run, 5*time.Second))

		// Unknown pids: false with a WARNING.
		b.takeNotices()
		rec("unknown pid cancel", b.query("SELECT pg_cancel_backend(2147483)"))
		rec("unknown pid terminate", b.query("SELECT pg_terminate_backend(2147483)"))
		rec("warnings", strings.Join(b.takeNotices(), " | "))
		rec("negative timeout", b.query(fmt.Sprintf("SELECT pg_terminate_backend(%d, -1)", a1.pid)))

		// The same role terminates a1 while it runs, waiting for it to go.
		run = a1.start("SELECT pg_sleep(30)")
		waitActive(t, admin, a1.pid)
		rec("same role terminates", a2.query(fmt.Sprintf("SELECT pg_terminate_backend(%d, 5000)", a1.pid)))
		rec("terminated statement", outcomeWithin(t, run, 5*time.Second))
		rec("gone", admin.query(fmt.Sprintf("SELECT count(*) FROM pg_stat_activity WHERE pid = %d", a1.pid)))

		// An idle session is ended too.
		rec("terminate idle", admin.query(fmt.Sprintf("SELECT pg_terminate_backend(%d, 5000)", b.pid)))
		_, err := b.c.Exec(context.Background(), "SELECT 1")
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			rec("idle terminated", pe.Severity+" "+pe.Code+" "+pe.Message)
		} else {
			rec("idle terminated", fmt.Sprint(err != nil))
		}
		return log
	})
}

// TestStatActivity compares what pg_stat_activity shows of a session to
// itself, to another role and to a superuser, in each state.
func TestStatActivity(t *testing.T) {
	sideBySide(t, []string{"va", "vb"}, func(t *testing.T, tg target, roles []string) []string {
		var log []string
		admin := tg.connect(t, "")
		a := tg.connect(t, roles[0])
		b := tg.connect(t, roles[1])
		cols := []string{"datname", "usename", "application_name", "client_addr", "client_port", "backend_start",
			"xact_start", "query_start", "state_change", "state", "query", "backend_type", "leader_pid"}
		// wait_event is left out: PostgreSQL sets ClientRead only once the
		// backend blocks in its read, so an idle row shows it or NULL
		// depending on timing; weir shows ClientRead for every idle state.
		row := func(viewer *session, pid int32) string {
			var parts []string
			for _, c := range cols {
				var v any
				q := fmt.Sprintf("SELECT %s FROM pg_stat_activity WHERE pid = %d", c, pid)
				if err := viewer.c.QueryRow(context.Background(), q).Scan(&v); err != nil {
					parts = append(parts, c+"="+errOutcome(err))
					continue
				}
				switch {
				case v == nil:
					parts = append(parts, c+"=NULL")
				case c == "usename" || c == "state" || c == "query" || c == "backend_type" || c == "application_name":
					s := strings.ReplaceAll(fmt.Sprint(v), fmt.Sprint(pid), "PID")
					for i, r := range roles {
						s = strings.ReplaceAll(s, r, fmt.Sprintf("role%d", i))
					}
					parts = append(parts, c+"="+s)
				case c == "datname":
					parts = append(parts, c+"=set")
				default:
					parts = append(parts, c+"=set")
				}
			}
			return strings.Join(parts, " ")
		}
		mustExec(t, a.c, "SET application_name = 'app_a'")
		mustExec(t, a.c, "SELECT 42")
		log = append(log, "self idle: "+row(a, a.pid))
		log = append(log, "other idle: "+row(b, a.pid))
		log = append(log, "super idle: "+row(admin, a.pid))
		log = append(log, "self active: "+row(a, a.pid))

		mustExec(t, a.c, "BEGIN")
		mustExec(t, a.c, "SELECT 7")
		log = append(log, "in transaction: "+row(admin, a.pid))
		a.c.Exec(context.Background(), "SELECT 1/0")
		log = append(log, "aborted: "+row(admin, a.pid))
		mustExec(t, a.c, "ROLLBACK")

		run := a.start("SELECT pg_sleep(30)")
		waitActive(t, admin, a.pid)
		log = append(log, "running, super: "+row(admin, a.pid))
		log = append(log, "running, other: "+row(b, a.pid))
		admin.query(fmt.Sprintf("SELECT pg_cancel_backend(%d)", a.pid))
		outcomeWithin(t, run, 5*time.Second)

		// Long texts are cut at track_activity_query_size, on a character
		// boundary.
		mustExec(t, a.c, "SELECT '"+strings.Repeat("é", 1500)+"'")
		log = append(log, "long query: "+admin.query(fmt.Sprintf("SELECT octet_length(query) || ' ' || right(query, 3) FROM pg_stat_activity WHERE pid = %d", a.pid)))

		// Everyone's client sessions are listed.
		log = append(log, "b sees a: "+b.query(fmt.Sprintf("SELECT count(*) FROM pg_stat_activity WHERE pid IN (%d, %d, %d)", a.pid, b.pid, admin.pid)))
		return log
	})
}
