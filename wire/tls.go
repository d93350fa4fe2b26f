package wire

import (
	"crypto/tls"
	"fmt"
	"net"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// LoadTLS reads a PEM certificate (chain) and its private key and returns
// the server's TLS configuration: TLS 1.2 or later, as PostgreSQL's
// ssl_min_protocol_version defaults to. The error names the files, so a
// bad --tls-cert/--tls-key fails the start with something to act on.
func LoadTLS(certFile, keyFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("TLS certificate %s / key %s: %w", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// countingReader counts the bytes read from the socket before TLS starts,
// so that startTLS can tell whether the Backend holds bytes the client
// sent after its SSLRequest (they arrived in the clear).
type countingReader struct {
	r net.Conn
	n int64
}

func (cr *countingReader) Read(p []byte) (int, error) {
	n, err := cr.r.Read(p)
	cr.n += int64(n)
	return n, err
}

// startupRequestLen is the size of an SSLRequest or GSSENCRequest: length
// and code, nothing else.
const startupRequestLen = 8

// startTLS answers an SSLRequest. Without a certificate it says 'N' and the
// client carries on in the clear. With one it says 'S', runs the TLS
// handshake on the socket and from then on speaks the protocol through
// it. consumed is how many bytes the startup messages so far (this
// SSLRequest included) take: if more were read from the socket, the
// client (or someone in between) sent plaintext that would otherwise be
// taken as having come through TLS (CVE-2021-23214); the connection is
// refused, as PostgreSQL does. It returns false when the connection is
// done.
func (c *conn) startTLS(consumed int64) bool {
	if c.tls != nil {
		c.fatal(sqlerr.ProtocolViolation, "unsupported frontend protocol: SSL negotiation already done")
		return false
	}
	cfg := c.srv.cfg.TLS
	if cfg == nil {
		_, err := c.nc.Write([]byte{'N'})
		return err == nil
	}
	if c.rawIn.n > consumed {
		c.fatalError(&sqlerr.Error{Severity: "FATAL", Code: sqlerr.ProtocolViolation,
			Message: "received unencrypted data after SSL request",
			Detail:  "This could be either a client-software bug or evidence of an attempted man-in-the-middle attack."})
		return false
	}
	if _, err := c.nc.Write([]byte{'S'}); err != nil {
		return false
	}
	// The socket's deadline (StartupTimeout) bounds the handshake too.
	tc := tls.Server(c.nc, cfg)
	if err := tc.HandshakeContext(c.ctx); err != nil {
		c.srv.log.Info("wire: TLS handshake failed", "client", c.nc.RemoteAddr().String(), "err", err)
		return false
	}
	st := tc.ConnectionState()
	c.tls = &st
	c.actMu.Lock()
	c.act.TLS = &st
	c.actMu.Unlock()
	// c.nc stays the raw socket: deadlines set on it (from other
	// goroutines too) reach the TLS connection, and the client watch
	// polls it. Only the protocol's bytes go through tc.
	be := pgproto3.NewBackend(tc, tc)
	be.SetMaxBodyLen(c.srv.cfg.MaxMessageSize)
	c.be = be
	return true
}

// refuseUnencrypted enforces Config.RequireTLS after the startup message:
// a client that did not negotiate TLS is refused with PostgreSQL's
// pg_hba.conf wording (28000), loopback clients included. It returns the
// error to send, nil to carry on.
func (c *conn) refuseUnencrypted(user, database string) *sqlerr.Error {
	if !c.srv.cfg.RequireTLS || c.tls != nil {
		return nil
	}
	host := "[local]"
	switch a := c.nc.RemoteAddr().(type) {
	case *net.TCPAddr:
		host = a.IP.String()
	}
	c.srv.log.Info("wire: refused a client without TLS", "user", user, "client", c.nc.RemoteAddr().String())
	c.refusedByRule = true
	return &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InvalidAuthorization,
		Message: fmt.Sprintf(`no pg_hba.conf entry for host "%s", user "%s", database "%s", no encryption`, host, user, database)}
}
