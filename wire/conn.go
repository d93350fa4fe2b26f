package wire

import (
	"container/list"
	"context"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// flushThreshold is how many bytes of output may pile up in the Backend's
// buffer before they are written, so a large result streams instead of
// being held whole in memory.
const flushThreshold = 64 << 10

// conn is one client connection: the protocol state machine around a
// Session. Only its own goroutine reads or writes the socket; other
// goroutines (CancelRequest, Shutdown) only cancel contexts and set
// deadlines.
type conn struct {
	srv *Server
	nc  net.Conn
	be  *pgproto3.Backend

	rawIn countingReader       // the socket as the Backend reads it before TLS
	tls   *tls.ConnectionState // after a TLS handshake; nil in the clear

	pid       uint32
	key       [4]byte
	holdsSlot bool          // guarded by srv.mu
	startElem *list.Element // in srv.starting until authenticated; guarded by srv.mu

	// ctx is cancelled at shutdown, by pg_terminate_backend (cause
	// errTerminated), when the client is found gone (errClientGone) and
	// when the connection ends.
	ctx    context.Context
	cancel context.CancelCauseFunc
	done   chan struct{} // closed when serve returns

	sess Session
	user string
	io   *execIO

	runMu     sync.Mutex
	runCancel context.CancelCauseFunc // of the statement running now, for CancelRequest

	actMu sync.Mutex
	act   Activity // what pg_stat_activity shows; guarded by actMu

	stmts        map[string]*prepared
	portals      map[string]*portal
	skipTillSync bool // after an error in an extended-protocol message

	pending int  // bytes buffered in be since the last flush
	broken  bool // a write failed: the client is gone

	// refusedByRule: the login was refused by a rule (HBA, RequireTLS),
	// not for a wrong credential; the failed-login throttle skips it.
	refusedByRule bool

	rows    rowEncoder
	copyIn  *copyInSource // the COPY FROM STDIN in progress, if any
	copyBuf []byte        // reused for outgoing CopyData
}

func newConn(s *Server, nc net.Conn) *conn {
	ctx, cancel := context.WithCancelCause(s.base)
	now := time.Now()
	c := &conn{
		srv: s, nc: nc, ctx: ctx, cancel: cancel, done: make(chan struct{}),
		act:     Activity{BackendStart: now, StateChange: now, State: "starting", ClientAddr: clientAddr(nc)},
		stmts:   map[string]*prepared{},
		portals: map[string]*portal{},
	}
	c.rawIn.r = nc
	c.be = pgproto3.NewBackend(&c.rawIn, nc)
	c.be.SetMaxBodyLen(s.cfg.MaxMessageSize)
	c.io = &execIO{c: c}
	c.rows.init()
	return c
}

// serve runs the connection to its end. A panic anywhere below is reported
// to this client as XX000 and ends only this connection.
func (c *conn) serve() {
	defer close(c.done)
	defer c.nc.Close()
	defer c.cancel(nil)
	defer c.endSession()
	defer c.recoverPanic()
	if !c.startup() {
		return
	}
	c.loop()
}

func (c *conn) recoverPanic() {
	if r := recover(); r != nil {
		c.srv.log.Error("wire: panic in connection", "pid", c.pid, "panic", r, "stack", string(debug.Stack()))
		c.fatal(sqlerr.InternalError, fmt.Sprintf("internal error: %v", r))
	}
}

// endSession releases portals and the session; a panic in the handler's
// cleanup is logged, not propagated.
func (c *conn) endSession() {
	defer func() {
		if r := recover(); r != nil {
			c.srv.log.Error("wire: panic closing session", "pid", c.pid, "panic", r)
		}
	}()
	c.finishCopyInQuietly()
	c.closeAllPortals()
	if c.sess != nil {
		c.sess.Close()
	}
}

// loop reads and dispatches messages until the client leaves or the
// connection must end.
func (c *conn) loop() {
	for !c.broken {
		idle := c.armIdleTimeout()
		if c.ctx.Err() != nil {
			// Checked after arming: Shutdown and Terminate cancel ctx
			// before they set the read deadline that wakes us, so either
			// we see the cancel here or their deadline replaces ours.
			c.fatal(sqlerr.AdminShutdown, "terminating connection due to administrator command")
			return
		}
		msg, err := c.be.Receive()
		if err != nil {
			c.receiveFailedIdle(err, idle)
			return
		}
		if idle != "" {
			_ = c.nc.SetReadDeadline(time.Time{})
		}
		if c.skipTillSync {
			switch msg.(type) {
			case *pgproto3.Sync, *pgproto3.Terminate:
			default:
				continue
			}
		}
		switch m := msg.(type) {
		case *pgproto3.Query:
			c.simpleQuery(m.String)
		case *pgproto3.Parse:
			c.extended(c.parse(m))
		case *pgproto3.Bind:
			c.extended(c.bind(m))
		case *pgproto3.Describe:
			c.extended(c.describe(m))
		case *pgproto3.Execute:
			c.extended(c.execute(m))
		case *pgproto3.Close:
			c.extended(c.closeObject(m))
		case *pgproto3.Sync:
			c.sync()
		case *pgproto3.Flush:
			c.flush()
		case *pgproto3.Terminate:
			return
		case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
			// Left over from a COPY that already ended in an error;
			// PostgreSQL ignores these outside COPY mode too.
		case *pgproto3.FunctionCall:
			c.extended(sqlerr.New(sqlerr.FeatureNotSupported, "function call protocol is not supported"))
		default:
			c.fatal(sqlerr.ProtocolViolation, fmt.Sprintf("invalid frontend message type %T", msg))
			return
		}
		if c.shutdownPending() {
			return
		}
	}
}

// shutdownPending reports (after sending the goodbye) that the server is
// shutting down, so a connection ends right after its current message.
func (c *conn) shutdownPending() bool {
	if c.ctx.Err() == nil || c.broken {
		return c.broken
	}
	c.fatal(sqlerr.AdminShutdown, "terminating connection due to administrator command")
	return true
}

// armIdleTimeout sets the read deadline of idle_session_timeout or
// idle_in_transaction_session_timeout for the wait for the next message and
// says which one it armed ("" for none).
func (c *conn) armIdleTimeout() string {
	t := c.sess.Timeouts()
	switch {
	case c.sess.TxStatus() != 'I' && t.IdleInTransaction > 0:
		_ = c.nc.SetReadDeadline(time.Now().Add(t.IdleInTransaction))
		return "in transaction"
	case c.sess.TxStatus() == 'I' && t.IdleSession > 0:
		_ = c.nc.SetReadDeadline(time.Now().Add(t.IdleSession))
		return "session"
	}
	return ""
}

// receiveFailed is receiveFailedIdle for a read outside the idle wait.
func (c *conn) receiveFailed(err error) { c.receiveFailedIdle(err, "") }

// receiveFailedIdle turns a failed read into the right goodbye: nothing
// when the client left, 57P01 at shutdown or pg_terminate_backend, 25P03
// or 57P05 when the idle timeout armed for the read ran out, 08P01 for a
// malformed message.
func (c *conn) receiveFailedIdle(err error, idle string) {
	if isDisconnect(err) {
		return
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		switch {
		case c.ctx.Err() != nil:
			c.fatal(sqlerr.AdminShutdown, "terminating connection due to administrator command")
		case idle == "in transaction":
			c.fatal(codeIdleInTransactionTimeout, "terminating connection due to idle-in-transaction timeout")
		case idle == "session":
			c.fatal(codeIdleSessionTimeout, "terminating connection due to idle-session timeout")
		}
		return
	}
	var tooLong *pgproto3.ExceededMaxBodyLenErr
	if errors.As(err, &tooLong) {
		c.fatal(sqlerr.ProtocolViolation, fmt.Sprintf("invalid message length: message of %d bytes exceeds the limit of %d bytes", tooLong.ActualBodyLen, tooLong.MaxExpectedBodyLen))
		return
	}
	c.fatal(sqlerr.ProtocolViolation, "invalid frontend message: "+err.Error())
}

func isDisconnect(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrClosedPipe) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// extended finishes one extended-protocol message: an error is reported and
// the rest up to Sync is skipped.
func (c *conn) extended(err error) {
	if err == nil {
		return
	}
	c.sendError(err)
	c.skipTillSync = true
}

func (c *conn) sync() {
	c.skipTillSync = false
	c.closePortal("")
	// Outside a transaction block the implicit transaction ends at Sync,
	// and with it every portal, as in PostgreSQL.
	c.endOfTransaction()
	c.readyForQuery()
}

func (c *conn) readyForQuery() {
	tx := c.sess.TxStatus()
	c.setIdle(tx)
	c.send(&pgproto3.ReadyForQuery{TxStatus: tx})
	c.flush()
}

// send buffers a message; flushIfFull writes when enough has piled up.
func (c *conn) send(msg pgproto3.BackendMessage) {
	c.be.Send(msg)
	c.pending += 64
}

func (c *conn) flushIfFull(n int) {
	c.pending += n
	if c.pending >= flushThreshold {
		c.flush()
	}
}

func (c *conn) flush() {
	c.pending = 0
	if c.broken {
		return
	}
	if err := c.be.Flush(); err != nil {
		c.broken = true
		c.cancel(errClientGone)
		if !isDisconnect(err) {
			c.srv.log.Debug("wire: write failed", "pid", c.pid, "err", err)
		}
	}
}

// errWriteFailed stops a statement whose client has gone away.
var errWriteFailed = errors.New("wire: client connection lost")

func (c *conn) sendError(err error) {
	if c.broken || errors.Is(err, errWriteFailed) {
		return
	}
	r := errorResponse(err)
	c.send(r)
	if r.Severity == "FATAL" || r.Severity == "PANIC" {
		// The engine ended the session (e.g. pg_terminate_backend).
		c.flush()
		c.broken = true
	}
}

// fatal sends a FATAL error and flushes it; the caller ends the connection.
func (c *conn) fatal(code, msg string) {
	if c.broken {
		return
	}
	_ = c.nc.SetWriteDeadline(time.Now().Add(time.Second))
	c.send(errorResponse(&sqlerr.Error{Severity: "FATAL", Code: code, Message: msg}))
	c.flush()
	c.broken = true
}

// errorResponse converts any error to the ErrorResponse PostgreSQL would send.
func errorResponse(err error) *pgproto3.ErrorResponse {
	e := sqlerr.From(err)
	sev := e.Severity
	if sev == "" {
		sev = "ERROR"
	}
	code := e.Code
	if code == "" {
		code = sqlerr.InternalError
	}
	r := &pgproto3.ErrorResponse{
		Severity: sev, SeverityUnlocalized: sev, Code: code,
		Message: e.Message, Detail: e.Detail, Hint: e.Hint, Position: int32(e.Position),
	}
	var ce *CopyDataError
	if errors.As(err, &ce) {
		r.Where = ce.Context
	}
	return r
}

func (c *conn) keyMatches(key []byte) bool {
	return subtle.ConstantTimeCompare(key, c.key[:]) == 1
}
