package engine

import (
	"crypto/tls"
	"net"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// A session's start is the audit log's connect event: who (the
// authenticated role), from where (the client's "ip:port", "local" for a
// Unix socket or an in-process pipe), to which database, and whether the
// connection is encrypted (Detail: "database=d tls=TLSv1.3" or
// "database=d tls=off"). Failed logins are the wire layer's to report
// (audit_auth.go); a login the engine refuses after authentication (no
// such database, no CONNECT privilege on it) is auditSessionRefused's,
// a login_failed event as theirs are.

// auditConnect records that s started over backend b.
func (s *Session) auditConnect(b wire.Backend) {
	a := b.Activity()
	s.client = auditClientName(a.ClientAddr)
	detail := "database=" + s.db + " tls=" + auditTLSVersion(a.TLS)
	if app := *s.appName.Load(); app != "" {
		detail += " application_name=" + app
	}
	s.audit(AuditEvent{Kind: AuditConnect, Success: true, Detail: detail})
}

// auditSessionRefused records that user, authenticated over b, was
// refused a session with err.
func (e *Engine) auditSessionRefused(user string, b wire.Backend, err error) {
	se := sqlerr.From(err)
	e.audit(AuditEvent{Kind: AuditLoginFailed, Role: user, Client: auditClientName(b.Activity().ClientAddr), Detail: se.Code + " " + se.Message})
}

// auditClientName is how the audit log names a client address.
func auditClientName(addr net.Addr) string {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.String()
	case nil, *net.UnixAddr:
		return "local"
	}
	return addr.String()
}

// auditTLSVersion is a connection's TLS version as pg_stat_ssl names it ("off":
// in the clear).
func auditTLSVersion(cs *tls.ConnectionState) string {
	if ssl := backendSSL(cs); ssl.SSL { // ssl.go
		return ssl.Version
	}
	return "off"
}
