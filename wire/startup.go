package wire

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// startup runs the connection from its first byte to the first
// ReadyForQuery. It returns false when the connection is done (a
// CancelRequest, a refused login, a vanished client).
func (c *conn) startup() bool {
	_ = c.nc.SetDeadline(time.Now().Add(c.srv.cfg.StartupTimeout))
	var sm *pgproto3.StartupMessage
	for sm == nil {
		msg, err := c.be.ReceiveStartupMessage()
		if err != nil {
			var ne net.Error
			if !isDisconnect(err) && !(errors.As(err, &ne) && ne.Timeout()) {
				c.fatal(sqlerr.ProtocolViolation, "invalid startup packet: "+err.Error())
			}
			return false
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest, *pgproto3.GSSEncRequest:
			// No TLS or GSS encryption here: 'N' and the client carries on
			// in the clear on this same socket.
			if _, err := c.nc.Write([]byte{'N'}); err != nil {
				return false
			}
		case *pgproto3.CancelRequest:
			c.srv.cancel(m.ProcessID, m.SecretKey)
			return false
		case *pgproto3.StartupMessage:
			sm = m
		default:
			c.fatal(sqlerr.ProtocolViolation, fmt.Sprintf("unsupported startup message %T", msg))
			return false
		}
	}

	params := make(map[string]string, len(sm.Parameters))
	var unrecognized []string
	for k, v := range sm.Parameters {
		if strings.HasPrefix(k, "_pq_.") {
			unrecognized = append(unrecognized, k)
			continue
		}
		params[k] = v
	}
	if sm.ProtocolVersion != pgproto3.ProtocolVersion30 || len(unrecognized) > 0 {
		// A newer minor version or protocol options: tell the client we
		// speak 3.0 without them, as PostgreSQL 15 does.
		sort.Strings(unrecognized)
		c.send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: 0, UnrecognizedOptions: unrecognized})
	}
	user := params["user"]
	if user == "" {
		c.fatal(sqlerr.InvalidAuthorization, "no PostgreSQL user name specified in startup packet")
		return false
	}
	if params["database"] == "" {
		params["database"] = user
	}
	c.user = user

	c.pid = c.srv.nextPID.Add(1)
	if _, err := rand.Read(c.key[:]); err != nil {
		c.fatal(sqlerr.InternalError, "could not generate cancel key: "+err.Error())
		return false
	}
	if !c.srv.acquireSlot(c) {
		c.fatal(sqlerr.TooManyConnections, "sorry, too many clients already")
		return false
	}

	if e := c.authenticate(user, params["database"]); e != nil {
		c.fatalError(e)
		return false
	}

	sess, err := c.srv.h.NewSession(c.ctx, params, c.pid)
	if err != nil {
		e := *sqlerr.From(err)
		e.Severity = "FATAL"
		c.fatalError(&e)
		return false
	}
	c.sess = sess

	c.send(&pgproto3.AuthenticationOk{})
	for _, p := range sess.StartupParameters() {
		c.send(&pgproto3.ParameterStatus{Name: p.Name, Value: p.Value})
	}
	c.send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.key[:]})
	_ = c.nc.SetDeadline(time.Time{})
	c.readyForQuery()
	return !c.broken
}

// authenticate decides whether the client may log in as user: a role
// without a password only from this machine, otherwise SCRAM-SHA-256.
func (c *conn) authenticate(user, database string) *sqlerr.Error {
	exists, verifier, err := c.srv.h.LookupRole(user)
	if err != nil {
		e := *sqlerr.From(err)
		e.Severity = "FATAL"
		return &e
	}
	if !exists {
		return &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InvalidAuthorization,
			Message: fmt.Sprintf("role %q does not exist", user)}
	}
	if verifier != "" {
		return c.authenticateSCRAM(user, verifier)
	}
	if !isLocal(c.nc.RemoteAddr()) {
		host := c.nc.RemoteAddr().String()
		if ta, ok := c.nc.RemoteAddr().(*net.TCPAddr); ok {
			host = ta.IP.String()
		}
		return &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InvalidAuthorization,
			Message: fmt.Sprintf("no pg_hba.conf entry for host %q, user %q, database %q, no encryption", host, user, database),
			Hint:    "A role without a password may connect only from this machine; set a password for remote logins."}
	}
	return nil
}

// isLocal reports whether a peer is on this machine: loopback TCP, a Unix
// socket, or an in-process pipe.
func isLocal(a net.Addr) bool {
	switch a := a.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	case nil:
		return false
	}
	return a.Network() == "pipe"
}

func (c *conn) fatalError(e *sqlerr.Error) {
	if c.broken {
		return
	}
	_ = c.nc.SetWriteDeadline(time.Now().Add(time.Second))
	c.send(errorResponse(e))
	c.flush()
	c.broken = true
}
