package engine

import (
	"fmt"
	"net"
	"sort"
	"time"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/catalog/pgcatalog"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// The registry of sessions by pid (Engine.sessions) serves
// pg_cancel_backend, pg_terminate_backend and pg_stat_activity. Other
// sessions are reached only through their wire.Backend and their
// immutable or atomic fields (loginUser, appName), never their settings.

// sessionBackends is the expr.BackendControl of one session's statement.
type sessionBackends struct {
	s  *Session
	io wire.ExecIO // for the WARNINGs; may be nil
}

var _ expr.BackendControl = sessionBackends{}

func (b sessionBackends) warn(msg string) {
	if b.io != nil {
		b.io.Notice("WARNING", sqlerr.Warning, msg)
	}
}

// target finds the session with that pid and checks, as PostgreSQL's
// pg_signal_backend does, that the caller may signal it: only a superuser
// may signal a superuser's session, and otherwise the caller must have
// the privileges of the session's role or of pg_signal_backend.
// deniedSuper / deniedRole are the 42501 messages.
func (b sessionBackends) target(pid int32, deniedSuper, deniedRole string) (*Session, error) {
	e := b.s.eng
	e.mu.Lock()
	t := e.sessions[uint32(pid)]
	e.mu.Unlock()
	if t == nil || t.backend == nil {
		b.warn(fmt.Sprintf("PID %d is not a PostgreSQL backend process", pid))
		return nil, nil
	}
	if b.s.superuser {
		return t, nil
	}
	if r, ok := e.cat.Role(t.loginUser); ok && r.Superuser {
		return nil, sqlerr.New(sqlerr.InsufficientPrivilege, "%s", deniedSuper)
	}
	if !b.s.hasPrivsOf(t.loginUser) && !b.s.hasPrivsOfOID(catalog.SignalBackendRoleOID) {
		return nil, sqlerr.New(sqlerr.InsufficientPrivilege, "%s", deniedRole)
	}
	return t, nil
}

// CancelBackend implements expr.BackendControl.
func (b sessionBackends) CancelBackend(pid int32) (bool, error) {
	t, err := b.target(pid, "must be a superuser to cancel superuser query",
		"must be a member of the role whose query is being canceled or member of pg_signal_backend")
	if t == nil || err != nil {
		return false, err
	}
	t.backend.CancelStatement()
	return true, nil
}

// TerminateBackend implements expr.BackendControl.
func (b sessionBackends) TerminateBackend(pid int32, timeout time.Duration) (bool, error) {
	t, err := b.target(pid, "must be a superuser to terminate superuser process",
		"must be a member of the role whose process is being terminated or member of pg_signal_backend")
	if t == nil || err != nil {
		return false, err
	}
	t.backend.Terminate()
	if timeout <= 0 {
		return true, nil
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-t.backend.Done():
		return true, nil
	case <-timer.C:
		b.warn(fmt.Sprintf("backend with PID %d did not terminate within %d milliseconds", pid, timeout.Milliseconds()))
		return false, nil
	}
}

// activity lists every client session for pg_stat_activity, as the session
// s may see them: a superuser or a member of pg_read_all_stats (such as
// pg_monitor's members) sees everything, another role the privileged
// columns of the sessions of roles it has the privileges of
// (PostgreSQL's HAS_PGSTAT_PERMISSIONS).
func (s *Session) activity() []pgcatalog.BackendActivity {
	e := s.eng
	e.mu.Lock()
	sessions := make([]*Session, 0, len(e.sessions))
	for _, t := range e.sessions {
		if t.backend != nil {
			sessions = append(sessions, t)
		}
	}
	e.mu.Unlock()
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].pid < sessions[j].pid })
	out := make([]pgcatalog.BackendActivity, 0, len(sessions))
	allStats := s.hasPrivsOfOID(catalog.ReadAllStatsRoleOID)
	for _, t := range sessions {
		a := t.backend.Activity()
		row := pgcatalog.BackendActivity{
			PID: int32(t.pid), Database: t.db, User: t.loginUser, ApplicationName: *t.appName.Load(),
			Visible: allStats || s.hasPrivsOf(t.loginUser),
		}
		if row.Visible {
			row.BackendStart, row.XactStart, row.QueryStart, row.StateChange = a.BackendStart, a.XactStart, a.QueryStart, a.StateChange
			row.State, row.Query = a.State, redactSecrets(a.Query) // secrets.go
			row.SSL = backendSSL(a.TLS)                            // ssl.go
			row.ClientPort = -1
			switch ca := a.ClientAddr.(type) {
			case *net.TCPAddr:
				row.ClientAddr, row.ClientPort = ca.IP.String(), int32(ca.Port)
			case nil:
				row.ClientPort = 0
			}
		}
		out = append(out, row)
	}
	return out
}
