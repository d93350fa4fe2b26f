// Package auditlog is weir's durable audit log: who connected from where,
// which DDL, GRANT and REVOKE statements ran (and failed), which
// statements were refused for want of a privilege, which queries read
// masked columns. The engine writes it (engine/audit_record.go) and
// serves it as weir_catalog.audit_log; it is bounded by age and by a row
// cap (Trim).
//
// Contract:
//   - Append writes a batch of events in one transaction: all or none of
//     them exist afterwards. Each gets the next sequence number, so the
//     events read back in the order they were appended (Seq increases;
//     it may skip after a restart, never go back).
//   - An Event holds no secret: Statement is redacted by its writer
//     before it reaches Append. The package stores what it is given.
//   - A Log is used by one engine. Append, Read and Trim may run at the
//     same time: Trim deletes only events older than the newest it knows
//     of, and Append only adds newer ones. Appends come from one
//     goroutine (the engine's audit writer), so sequence numbers and
//     commit order agree.
package auditlog

import (
	"encoding/binary"
	"sync/atomic"
	"time"

	"github.com/weir-sql/weir/state"
)

// Event is one entry of the audit log (one row of weir_catalog.audit_log).
type Event struct {
	Seq         uint64    // assigned by Append
	Time        time.Time // stored to the microsecond (codec.go)
	Kind        string
	Role        string
	SessionUser string
	Client      string
	Object      string
	Statement   string
	Success     bool
	Detail      string
}

// prefix is the log's key namespace: a/<seq u64 BE> (state/keys.go); the
// values are codec.go's.
const prefix = state.PrefixAuditLog

// seqName is the durable counter the log's sequence numbers come from.
const seqName = "auditlog"

func key(seq uint64) []byte { return binary.BigEndian.AppendUint64([]byte(prefix), seq) }

// Log is the audit log of one store.
type Log struct {
	st *state.Store
	// last is the highest sequence number appended or found (0: not yet
	// known), so that Trim need not read the whole log to find it.
	last atomic.Uint64
}

// Open gives the audit log of st. It reads nothing: the first Trim before
// any Append finds the newest event.
func Open(st *state.Store) *Log { return &Log{st: st} }
