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
	"sync"
	"sync/atomic"
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
	KindPaused       = "paused"  // the store cannot write: the job waits, then resumes
	KindResumed      = "resumed" // after a pause
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
	Seq  uint64    `json:"-"` // assigned by Stage/Append; order of writing
	Time time.Time `json:"t"`
	// Object is the OID of the table, source or sink (0: the server). A
	// flow's job may write its checkpoint OID: readers show such an event
	// as its target's, with the flow's name (engine/event_log_relation.go).
	Object  uint32 `json:"o"`
	Name    string `json:"n"`           // its qualified name when the event was written
	Flow    string `json:"f,omitempty"` // the flow's name, for an event of one flow of a table
	Kind    string `json:"k"`
	Level   string `json:"l"`
	Epoch   int64  `json:"e,omitempty"` // the epoch the event is of (0: none)
	Message string `json:"m"`
	Details string `json:"d,omitempty"` // a JSON object, or ""
	// Error and Code are a failure's message and SQLSTATE ("" for none).
	Error string `json:"x,omitempty"`
	Code  string `json:"c,omitempty"`
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
	if err := tx.Set(key(seq), v); err != nil {
		return err
	}
	noteSeq(st, seq)
	return nil
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

// Trim deletes the events older than before (zero: no age limit), and
// the oldest ones past the newest keep (keep <= 0: no count limit); it
// returns how many it deleted. The count limit is on sequence numbers,
// which may skip (after a restart), so at most keep events remain. Trim
// reads keys only up to the first event it keeps: its cost is what it
// deletes, not the log's size.
func Trim(st *state.Store, before time.Time, keep int) (int, error) {
	last, err := lastSeq(st)
	if err != nil || last == 0 {
		return 0, err
	}
	var doomed []uint64
	tx := st.Begin(false)
	err = tx.IteratePrefix([]byte(prefix), func(k, v []byte) error {
		if len(k) != len(prefix)+8 {
			return nil
		}
		seq := binary.BigEndian.Uint64(k[len(prefix):])
		over := keep > 0 && seq+uint64(keep) <= last
		old := false
		if !over && !before.IsZero() {
			var ev struct {
				Time time.Time `json:"t"`
			}
			old = json.Unmarshal(v, &ev) == nil && ev.Time.Before(before)
		}
		if !over && !old {
			return errStop
		}
		doomed = append(doomed, seq)
		return nil
	})
	tx.Discard()
	if err != nil && err != errStop {
		return 0, err
	}
	if err := st.DeleteInBatches(len(doomed), func(i int) []byte { return key(doomed[i]) }); err != nil {
		return 0, err
	}
	return len(doomed), nil
}

// errStop ends an iteration early.
var errStop = sqlerr.New(sqlerr.InternalError, "stop")

// newest holds, per store, the highest sequence number staged since it
// opened (*atomic.Uint64), so that Trim need not read the whole log to
// find it; the first Trim of a store reads it once.
var newest sync.Map

func noteSeq(st *state.Store, seq uint64) {
	v, _ := newest.LoadOrStore(st, new(atomic.Uint64))
	n := v.(*atomic.Uint64)
	for {
		cur := n.Load()
		if seq <= cur || n.CompareAndSwap(cur, seq) {
			return
		}
	}
}

// lastSeq is the sequence number of the newest event (0: none).
func lastSeq(st *state.Store) (uint64, error) {
	if v, ok := newest.Load(st); ok {
		if n := v.(*atomic.Uint64).Load(); n > 0 {
			return n, nil
		}
	}
	tx := st.Begin(false)
	defer tx.Discard()
	var last uint64
	err := tx.IteratePrefix([]byte(prefix), func(k, _ []byte) error {
		if len(k) == len(prefix)+8 {
			last = binary.BigEndian.Uint64(k[len(prefix):])
		}
		return nil
	})
	if err == nil {
		noteSeq(st, last)
	}
	return last, err
}

// Forget drops what the package remembers of st (its newest sequence
// number); call it when st closes.
func Forget(st *state.Store) { newest.Delete(st) }
