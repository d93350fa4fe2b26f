package wire

import (
	"fmt"
	"net"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// authenticateHBA authenticates a client by the first Config.HBA rule that
// matches it, as PostgreSQL's ClientAuthentication does: no rule, or a
// reject rule, refuses it (28000, pg_hba.conf's wording); a rule asking
// for a client certificate refuses a connection without a valid one
// before anything else; then the method runs (trust, scram-sha-256, cert)
// and, for clientcert=verify-full, the certificate's CN must be the user.
func (c *conn) authenticateHBA(user, database string) (Role, *sqlerr.Error) {
	cl := hbaClient{ssl: c.tls != nil, user: user, database: database}
	if a, ok := c.nc.RemoteAddr().(*net.TCPAddr); ok {
		cl.ip = a.IP
	} else {
		cl.local = true
	}
	rule := c.srv.cfg.HBA.match(cl, c.isMemberOf, interfaceNets)
	if rule == nil {
		c.refusedByRule = true
		return Role{}, &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InvalidAuthorization,
			Message: fmt.Sprintf(`no pg_hba.conf entry for host "%s", user "%s", database "%s", %s`, c.hbaHost(), user, database, c.hbaEncryption())}
	}
	c.srv.log.Debug("wire: pg_hba rule", "line", rule.line, "rule", rule.text, "user", user, "client", c.nc.RemoteAddr().String())
	if rule.method == hbaReject {
		c.refusedByRule = true
		return Role{}, &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InvalidAuthorization,
			Message: fmt.Sprintf(`pg_hba.conf rejects connection for host "%s", user "%s", database "%s", %s`, c.hbaHost(), user, database, c.hbaEncryption())}
	}
	if rule.clientCert != "" && c.clientCertificateCN() == nil {
		return Role{}, &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InvalidAuthorization, Message: "connection requires a valid client certificate"}
	}
	role, err := c.srv.h.LookupRole(user)
	if err != nil {
		e := *sqlerr.From(err)
		e.Severity = "FATAL"
		return role, &e
	}
	switch rule.method {
	case hbaSCRAM:
		if !role.Exists || role.Verifier == "" {
			// PostgreSQL's doomed exchange: a role that cannot log in
			// with a password fails as a wrong password does.
			if e := c.authenticateSCRAM(user, c.srv.mockVerifier(user), true); e != nil {
				return role, e
			}
		} else if e := c.authenticateSCRAM(user, role.Verifier, false); e != nil {
			return role, e
		}
	case hbaCert, hbaTrust:
	}
	if rule.clientCert == "verify-full" {
		if cn := c.clientCertificateCN(); cn == nil || *cn != user {
			c.srv.log.Info("wire: client certificate CN is not the user name", "user", user, "client", c.nc.RemoteAddr().String())
			return role, certMismatch(rule.method, user)
		}
	}
	if !role.Exists {
		return role, &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InvalidAuthorization, Message: fmt.Sprintf("role %q does not exist", user)}
	}
	return role, nil
}

// isMemberOf answers +role and samerole through the Handler when it knows
// memberships.
func (c *conn) isMemberOf(user, role string) bool {
	if user == role {
		return true
	}
	if m, ok := c.srv.h.(RoleMembers); ok {
		return m.IsRoleMember(user, role)
	}
	return false
}

// hbaHost is the client as pg_hba.conf messages name it.
func (c *conn) hbaHost() string {
	if a, ok := c.nc.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return "[local]"
}

func (c *conn) hbaEncryption() string {
	if c.tls != nil {
		return "SSL encryption"
	}
	return "no encryption"
}

// certMismatch is the refusal of a client certificate whose CN is not the
// user name. PostgreSQL words it after the rule's method (its auth_failed),
// so under scram-sha-256 clientcert=verify-full it reads as a wrong
// password.
func certMismatch(method, user string) *sqlerr.Error {
	switch method {
	case hbaSCRAM:
		return &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InvalidPassword, Message: fmt.Sprintf("password authentication failed for user %q", user)}
	case hbaTrust:
		return &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InvalidAuthorization, Message: fmt.Sprintf("\"trust\" authentication failed for user %q", user)}
	}
	return &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InvalidAuthorization, Message: fmt.Sprintf("certificate authentication failed for user %q", user)}
}
