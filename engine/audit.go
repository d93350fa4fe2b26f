package engine

// The audit log (weir_catalog.audit_log) records who did what to access
// control and protected data: connections and their client address,
// failed logins, DDL, GRANT/REVOKE, reads of masked columns. Code that
// does such a thing calls audit (or Session.audit) with one AuditEvent;
// the audit log's own files (audit_log*.go) store, bound and serve them.

// Kinds of audit events.
const (
	AuditConnect     = "connect"      // a session authenticated
	AuditLoginFailed = "login_failed" // authentication failed
	AuditDDL         = "ddl"          // CREATE/ALTER/DROP of an object
	AuditGrant       = "grant"        // GRANT of a privilege or role
	AuditRevoke      = "revoke"       // REVOKE of a privilege or role
	AuditMaskedRead  = "masked_read"  // a query read a masked column
	AuditDenied      = "denied"       // a privilege check failed (42501)
)

// AuditEvent is one row of the audit log.
type AuditEvent struct {
	Kind string // one of the Audit* kinds
	// Role is the current user (SET ROLE's) that acted; SessionUser the
	// session user; both "" when none is known yet (a failed login names
	// the role it tried in Role).
	Role, SessionUser string
	Client            string // client address, "host:port" or "local"
	Object            string // the object acted on, schema-qualified, "" if none
	// Statement is the statement's text with secrets redacted (never a
	// password or secret value); "" for connection events.
	Statement string
	Success   bool
	Detail    string // SQLSTATE and message of a failure, or what was masked
}

// audit records ev. It never fails the caller: an event that cannot be
// stored is logged instead.
func (e *Engine) audit(ev AuditEvent) { e.auditRecord(ev) }

// audit records ev with the session's identities and client filled in
// where ev leaves them empty.
func (s *Session) audit(ev AuditEvent) {
	if ev.Role == "" {
		ev.Role = s.user
	}
	if ev.SessionUser == "" {
		ev.SessionUser = s.ids.session.name
	}
	if ev.Client == "" {
		ev.Client = s.client
	}
	s.eng.audit(ev)
}
