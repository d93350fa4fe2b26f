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
	var consumed int64 // bytes of the SSL/GSS requests so far
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
		case *pgproto3.SSLRequest:
			consumed += startupRequestLen
			if !c.startTLS(consumed) { // tls.go
				return false
			}
		case *pgproto3.GSSEncRequest:
			// No GSS encryption here: 'N' and the client carries on on
			// this same socket.
			consumed += startupRequestLen
			if c.tls != nil {
				c.fatal(sqlerr.ProtocolViolation, "unsupported frontend protocol: GSS encryption requested inside TLS")
				return false
			}
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

	var role Role
	e := c.refuseUnencrypted(user, params["database"]) // tls.go
	if e == nil && c.srv.cfg.HBA != nil {
		role, e = c.authenticateHBA(user, params["database"]) // hba_auth.go
	} else if e == nil {
		role, e = c.authenticate(user, params["database"])
	}
	if e == nil && !role.CanLogin {
		e = &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InvalidAuthorization,
			Message: fmt.Sprintf("role %q is not permitted to log in", user)}
	}
	if e == errAuthHungUp {
		return false
	}
	if e != nil {
		c.authFailed(user, params["database"], e) // auth_failures.go
		c.fatalError(e)
		return false
	}
	c.srv.authenticated(c)

	c.pid = c.srv.nextPID.Add(1)
	if _, err := rand.Read(c.key[:]); err != nil {
		c.fatal(sqlerr.InternalError, "could not generate cancel key: "+err.Error())
		return false
	}
	// Slots are taken only now, after authentication, so that clients
	// stalling in the handshake cannot lock anybody out.
	if e := c.srv.acquireSlot(c, role.Superuser); e != nil {
		c.fatalError(e)
		return false
	}

	sess, err := c.srv.h.NewSession(c.ctx, params, c)
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
// without a password only from this machine, otherwise SCRAM-SHA-256. An
// unknown role, and a passwordless one from another host, go through a
// mock SCRAM exchange that fails as a wrong password does (PostgreSQL's
// "doomed" exchange), so the answer tells nothing about which roles exist.
func (c *conn) authenticate(user, database string) (Role, *sqlerr.Error) {
	role, err := c.srv.h.LookupRole(user)
	if err != nil {
		e := *sqlerr.From(err)
		e.Severity = "FATAL"
		return role, &e
	}
	switch {
	case !role.Exists:
		c.srv.log.Info("wire: login as unknown role", "user", user, "client", c.nc.RemoteAddr().String())
		return role, c.authenticateSCRAM(user, c.srv.mockVerifier(user), true)
	case role.Verifier != "":
		return role, c.authenticateSCRAM(user, role.Verifier, false)
	case !isLocal(c.nc.RemoteAddr()):
		c.srv.log.Info("wire: remote login as a role without a password", "user", user, "database", database,
			"client", c.nc.RemoteAddr().String())
		return role, c.authenticateSCRAM(user, c.srv.mockVerifier(user), true)
	}
	return role, nil
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
