package engine

// auditRecord stores ev in the audit log. (A stub until the audit log's
// store lands: events only reach the server's log.)
func (e *Engine) auditRecord(ev AuditEvent) {
	e.logger().Info("audit", "kind", ev.Kind, "role", ev.Role, "object", ev.Object, "success", ev.Success)
}
