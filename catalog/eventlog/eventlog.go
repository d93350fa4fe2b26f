// Package eventlog is weir's durable event log: what happened to each
// streaming table, flow, source and sink (created, started, recovered,
// refreshed, failed, dropped, expectation counts of an epoch, schema
// changes, files notices, retention trims), as Databricks' pipeline event
// log records it. It is read by event_log('table') and
// weir_catalog.event_log, and bounded by a retention setting (Trim).
//
// Contract:
//   - Stage writes an event into a transaction the caller commits: an
//     event about an epoch (its expectation counts, a schema change it
//     met) is staged in the epoch's own transaction, so it exists exactly
//     when the epoch does, across crashes.
//   - Append writes an event in a transaction of its own (lifecycle
//     events: created, failed, dropped …).
//   - Events read back in the order they were written (Seq increases);
//     Read never returns half a transaction's events.
//   - Details is a JSON object (text), or "" for none; it must never hold
//     a secret (connector passwords are not event details).
package eventlog

import (
	"encoding/binary"
	"encoding/json"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// Kinds of events (event_type in event_log). Databricks names its event
// types create_update, flow_progress, …; weir's are the words a reader
// would search for.
const (
	KindCreated      = "created"
	KindStarted      = "started"
	KindRecovered    = "recovered"
	KindRefreshed    = "refreshed"
	KindFailed       = "failed"
	KindDropped      = "dropped"
	KindExpectations = "expectations" // per-epoch passed/failed counts
	KindSchemaChange = "schema_change"
	KindFiles        = "files" // a files input's notice: vanished, changed, unreadable file
	KindRetention    = "retention_trim"
	KindSink         = "sink"
)

// Levels, as Databricks' event log names them.
const (
	LevelInfo  = "INFO"
	LevelWarn  = "WARN"
	LevelError = "ERROR"
)

// Event is one entry of the log.
type Event struct {
	Seq     uint64    `json:"-"` // assigned by Stage/Append; order of writing
	Time    time.Time `json:"t"`
	Object  uint32    `json:"o"` // OID of the table, flow, source or sink (0: the server)
	Name    string    `json:"n"` // its qualified name when the event was written
	Kind    string    `json:"k"`
	Level   string    `json:"l"`
	Epoch   int64     `json:"e,omitempty"` // the epoch the event is of (0: none)
	Message string    `json:"m"`
	Details string    `json:"d,omitempty"` // a JSON object, or ""
}

// prefix is the log's key namespace: l/<seq u64 BE> (see state/keys.go).
const prefix = "l/"

// seqName is the durable counter the log's sequence numbers come from.
const seqName = "eventlog"

func key(seq uint64) []byte { return binary.BigEndian.AppendUint64([]byte(prefix), seq) }

// Stage writes ev into tx, to exist once tx commits.
func Stage(st *state.Store, tx *state.Txn, ev Event) error {
	seq, err := st.NextID(seqName)
	if err != nil {
		return err
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	if ev.Level == "" {
		ev.Level = LevelInfo
	}
	v, err := json.Marshal(ev)
	if err != nil {
		return sqlerr.New(sqlerr.InternalError, "event log: %v", err)
	}
	return tx.Set(key(seq), v)
}

// Append writes ev in a transaction of its own.
func Append(st *state.Store, ev Event) error {
	tx := st.Begin(true)
	defer tx.Discard()
	if err := Stage(st, tx, ev); err != nil {
		return err
	}
	return tx.Commit()
}

// Read returns the events keep says yes to (nil: all), oldest first.
func Read(st *state.Store, keep func(*Event) bool) ([]Event, error) {
	tx := st.Begin(false)
	defer tx.Discard()
	var out []Event
	err := tx.IteratePrefix([]byte(prefix), func(k, v []byte) error {
		var ev Event
		if len(k) != len(prefix)+8 || json.Unmarshal(v, &ev) != nil {
			return sqlerr.New(sqlerr.DataCorrupted, "unreadable event log entry")
		}
		ev.Seq = binary.BigEndian.Uint64(k[len(prefix):])
		if keep == nil || keep(&ev) {
			out = append(out, ev)
		}
		return nil
	})
	return out, err
}

// Trim deletes the events older than before, and the oldest ones past the
// newest keep events (keep <= 0: no count limit); it returns how many it
// deleted.
func Trim(st *state.Store, before time.Time, keep int) (int, error) {
	evs, err := Read(st, nil)
	if err != nil {
		return 0, err
	}
	tx := st.Begin(true)
	defer tx.Discard()
	n := 0
	for i, ev := range evs {
		old := !before.IsZero() && ev.Time.Before(before)
		over := keep > 0 && len(evs)-i > keep
		if !old && !over {
			break
		}
		if err := tx.Delete(key(ev.Seq)); err != nil {
			return 0, err
		}
		n++
	}
	if n == 0 {
		return 0, nil
	}
	return n, tx.Commit()
}
