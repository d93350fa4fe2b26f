package engine

import "github.com/weir-sql/weir/wire"

// The wire layer reports every refused login (wrong password, no or a
// rejecting pg_hba rule, a bad client certificate, a role that may not log
// in) through wire.AuthObserver; each becomes a login_failed audit event
// naming the role tried, the client's address and the SQLSTATE and message
// the client got.

var _ wire.AuthObserver = (*Engine)(nil)

// AuthFailed implements wire.AuthObserver.
func (e *Engine) AuthFailed(user, database, client, sqlstate, message string) {
	e.audit(AuditEvent{Kind: AuditLoginFailed, Role: user, Client: client, Success: false, Detail: sqlstate + " " + message})
}
