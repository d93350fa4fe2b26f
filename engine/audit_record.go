package engine

import (
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/weir-sql/weir/catalog/auditlog"
)

// auditRecord stores ev in the audit log (audit_writer.go queues it) and
// writes it to the server's log. The statement is redacted here again,
// whoever recorded it: no caller can put a password into either. It
// never fails: an event the writer no longer takes (the engine is
// closing) is only logged.
func (e *Engine) auditRecord(ev AuditEvent) {
	stmt, removed := auditRedact(ev.Statement)
	stmt = auditTruncate(stmt, auditStatementMax)
	rec := auditlog.Event{Time: time.Now(), Kind: ev.Kind, Role: ev.Role, SessionUser: ev.SessionUser, Client: ev.Client,
		Object: ev.Object, Statement: stmt, Success: ev.Success, Detail: auditScrub(ev.Detail, removed)}
	attrs := auditAttrs(rec)
	if e.auditLog == nil || !e.auditLog.enqueue(auditItem{ev: rec}) {
		e.logger().Warn("audit log: closed; the event is only logged", attrs...)
		return
	}
	e.logger().Info("audit", attrs...)
}

// auditStatementMax is the most of a statement's text an event keeps
// (bytes): what the row cap bounds is then the log's size too.
const auditStatementMax = 16 << 10

// auditTruncate is s cut to at most n bytes on a character boundary, with
// "…" when it was cut.
func auditTruncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// auditAttrs are ev's fields as log attributes of a line whose message is
// "audit" (what the stub before the store wrote, and what log readers
// match).
func auditAttrs(ev auditlog.Event) []any {
	attrs := []any{slog.String("kind", ev.Kind), slog.Bool("success", ev.Success)}
	for _, kv := range [][2]string{{"role", ev.Role}, {"session_user", ev.SessionUser}, {"client", ev.Client},
		{"object", ev.Object}, {"statement", ev.Statement}, {"detail", ev.Detail}} {
		if kv[1] != "" {
			attrs = append(attrs, slog.String(kv[0], kv[1]))
		}
	}
	return attrs
}
