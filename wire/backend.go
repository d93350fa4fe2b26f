package wire

import (
	"context"
	"errors"
	"net"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// A connection is the Backend of its session: the engine reaches it from
// other goroutines to cancel or end it and to read its activity.
var _ Backend = (*conn)(nil)

// SQLSTATEs of the idle timeouts, as PostgreSQL 15 sends them.
const (
	codeIdleInTransactionTimeout = "25P03"
	codeIdleSessionTimeout       = "57P05"
)

// Why a statement's or a connection's context was cancelled; the error a
// cancelled statement returns is worded after it.
var (
	errUserCancel       = errors.New("wire: statement cancelled on request")
	errStatementTimeout = errors.New("wire: statement_timeout")
	errTerminated       = errors.New("wire: session terminated")
	errClientGone       = errors.New("wire: client connection lost")
)

// PID implements Backend.
func (c *conn) PID() uint32 { return c.pid }

// Done implements Backend.
func (c *conn) Done() <-chan struct{} { return c.done }

// Activity implements Backend.
func (c *conn) Activity() Activity {
	c.actMu.Lock()
	defer c.actMu.Unlock()
	return c.act
}

// CancelStatement implements Backend.
func (c *conn) CancelStatement() {
	c.runMu.Lock()
	cancel := c.runCancel
	c.runMu.Unlock()
	if cancel != nil {
		cancel(errUserCancel)
	}
}

// Terminate implements Backend: the connection's context is cancelled
// (and with it the running statement) and a connection waiting for the
// client's next message is woken; its goroutine then says goodbye.
func (c *conn) Terminate() {
	c.cancel(errTerminated)
	_ = c.nc.SetReadDeadline(time.Now())
}

// clientAddr is the peer address pg_stat_activity shows: nil for pipes.
func clientAddr(nc net.Conn) net.Addr {
	switch a := nc.RemoteAddr().(type) {
	case *net.TCPAddr, *net.UnixAddr:
		return a
	}
	return nil
}

// trackActivityQuerySize is PostgreSQL's default track_activity_query_size:
// pg_stat_activity shows at most 1023 bytes of a query.
const trackActivityQuerySize = 1024

// activeStatement records that a statement (text query) starts running.
func (c *conn) activeStatement(query string) {
	if len(query) >= trackActivityQuerySize {
		n := trackActivityQuerySize - 1
		for n > 0 && !utf8.RuneStart(query[n]) {
			n--
		}
		query = strings.Clone(query[:n]) // do not keep a large text alive
	}
	now := time.Now()
	c.actMu.Lock()
	c.act.State, c.act.Query, c.act.QueryStart, c.act.StateChange = "active", query, now, now
	if c.act.XactStart.IsZero() {
		c.act.XactStart = now
	}
	c.actMu.Unlock()
}

// setIdle records the state shown at ReadyForQuery.
func (c *conn) setIdle(tx byte) {
	state := "idle"
	switch tx {
	case 'T':
		state = "idle in transaction"
	case 'E':
		state = "idle in transaction (aborted)"
	}
	now := time.Now()
	c.actMu.Lock()
	if c.act.State != state {
		c.act.State, c.act.StateChange = state, now
	}
	if tx != 'T' {
		// An aborted transaction block shows no xact_start in PostgreSQL.
		c.act.XactStart = time.Time{}
	}
	c.actMu.Unlock()
}

// running publishes cancel as the running statement's until the returned
// stop is called: CancelRequest and pg_cancel_backend reach it, the
// session's statement_timeout is armed, and the socket is watched so that
// a client that vanished stops the statement.
func (c *conn) running(cancel context.CancelCauseFunc) (stop func()) {
	c.runMu.Lock()
	c.runCancel = cancel
	c.runMu.Unlock()
	var timer *time.Timer
	if d := c.sess.Timeouts().Statement; d > 0 {
		timer = time.AfterFunc(d, func() { cancel(errStatementTimeout) })
	}
	unwatch := c.watchClient()
	return func() {
		unwatch()
		if timer != nil {
			timer.Stop()
		}
		c.runMu.Lock()
		c.runCancel = nil
		c.runMu.Unlock()
	}
}

// statementError words the error of a statement whose context was
// cancelled after the cause, as PostgreSQL does; a bare context error gets
// 57014.
func statementError(ctx context.Context, err error) error {
	if errors.Is(err, errWriteFailed) || ctx.Err() == nil {
		return err
	}
	var e *sqlerr.Error
	isSQL := errors.As(err, &e)
	if !isSQL && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if isSQL && e.Code != sqlerr.QueryCanceled {
		return err
	}
	if context.Cause(ctx) == errStatementTimeout {
		return sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to statement timeout")
	}
	if isSQL {
		return err
	}
	return sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
}
