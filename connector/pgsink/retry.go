package pgsink

import (
	"strings"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// A PostgreSQL that restarts (a crash, pg_ctl restart, a failover) cuts
// the sink's connection, then refuses connections while it starts. The
// sink waits that out instead of failing, which would stop it until
// REFRESH STREAMING TABLE or a restart of weir: an epoch is written in
// one transaction with its progress row, so trying it again after a cut
// of unknown outcome is safe (commit reads the progress row first).
//
// The wait is bounded: a server gone for longer than retryFor fails the
// sink as any error does (SHOW SINKS says why).
const (
	retryFor     = 60 * time.Second
	retryFirst   = 100 * time.Millisecond
	retryLongest = 2 * time.Second
)

// transient: the connection failed (class 08: weir's own 08001/08006 for
// a dial or network error) or the server is shutting down or starting
// (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now).
func transient(err error) bool {
	code := sqlerr.Code(err)
	return strings.HasPrefix(code, "08") || code == "57P01" || code == "57P02" || code == "57P03"
}

// retrying runs try (holding mu) until it succeeds, fails for good, or
// retryFor has passed, backing off from retryFirst to retryLongest, on a
// new connection each time.
func (s *Sink) retrying(try func() error) error {
	deadline := time.Now().Add(retryFor)
	delay := retryFirst
	for {
		s.mu.Lock()
		err := try()
		if err != nil && transient(err) {
			s.closeConn()
		}
		s.mu.Unlock()
		if err == nil || !transient(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(delay) // backoff while PostgreSQL is away
		delay = min(2*delay, retryLongest)
	}
}
