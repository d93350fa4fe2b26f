// Package wire is weir's PostgreSQL frontend/backend protocol (v3.0)
// server. It authenticates clients (by default trust from loopback for
// roles without a password, SCRAM-SHA-256 otherwise, a mock exchange for
// unknown roles; or by pg_hba-style rules with client certificates, see
// HBA; SCRAM-SHA-256-PLUS over TLS) before giving them one of the
// connection slots, runs the simple and
// extended query protocols, portals with row limits, COPY in and out,
// cancellation (CancelRequest, statement_timeout, a vanished client), the
// idle timeouts and graceful shutdown, and encodes Arrow batches as DataRow
// values through sql/types. Everything about SQL is behind the Handler it
// is given.
//
// Each connection is served by one goroutine, which alone reads and writes
// its socket; Handler, Session, Statement and Result methods are called on
// that goroutine. Other goroutines (CancelRequest, Shutdown, the engine
// through a session's Backend, timers) only cancel contexts, read the
// connection's activity and set socket deadlines.
package wire
