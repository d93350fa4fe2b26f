package pgcdc

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/state"
)

// Replicator streams one postgres-cdc source into weir's log: the chunks
// of relation Rel in Store (doc.go). Start it once per source; Close stops
// it. It reconnects by itself, with backoff, when the connection breaks.
type Replicator struct {
	store  *state.Store
	rel    uint32
	o      Options
	cols   []Column
	schema *arrow.Schema

	// OnCommit is called after each commit to the log (wakes readers).
	OnCommit func()
	// OnEvent reports what a status page or event log should show:
	// level is "info" or "warn".
	OnEvent func(level, msg string)
	// StatusInterval is how often the confirmed LSN is sent to
	// PostgreSQL when nothing else prompts it (default 1 s): a quiet
	// source still lets PostgreSQL release WAL.
	StatusInterval time.Duration

	mu     sync.Mutex
	status Status

	cancel context.CancelFunc
	done   chan struct{}
}

// Status is what a replicator knows of its slot now.
type Status struct {
	Streaming   bool   // connected and streaming
	Snapshotted bool   // the initial snapshot is in the log
	LoggedLSN   uint64 // end of the last transaction in weir's log
	Confirmed   uint64 // the LSN last confirmed to PostgreSQL
	ServerLSN   uint64 // the server's WAL end as last reported
	Reconnects  int64
	LastError   string
	Changes     int64 // change rows logged since start
}

// Lag is the WAL PostgreSQL keeps for the slot beyond what weir
// confirmed, in bytes (pg_current_wal_lsn() - confirmed_flush_lsn, as
// the server last reported its WAL end).
func (s Status) Lag() int64 {
	if s.ServerLSN > s.Confirmed {
		return int64(s.ServerLSN - s.Confirmed)
	}
	return 0
}

// NewReplicator returns the replicator of source relation rel, whose
// change rows have columns cols (Prepare's).
func NewReplicator(st *state.Store, rel uint32, o Options, cols []Column) *Replicator {
	return &Replicator{store: st, rel: rel, o: o, cols: cols, schema: Schema(cols), StatusInterval: time.Second}
}

// ProgressKey is where a source's log keeps its progress: the end LSN of
// the last logged transaction, and whether the snapshot is logged.
func ProgressKey(rel uint32) []byte {
	k := append([]byte(state.PrefixOperator), "pgcdc/"...)
	return binary.BigEndian.AppendUint32(k, rel)
}

type progress struct {
	snapshotted bool
	end         uint64
}

func (r *Replicator) loadProgress() (progress, error) {
	tx := r.store.Begin(false)
	defer tx.Discard()
	v, err := tx.Get(ProgressKey(r.rel))
	if err == state.ErrNotFound {
		return progress{}, nil
	}
	if err != nil || len(v) != 9 {
		return progress{}, err
	}
	return progress{snapshotted: v[0] == 1, end: binary.BigEndian.Uint64(v[1:])}, nil
}

func setProgress(tx *state.Txn, rel uint32, p progress) error {
	v := make([]byte, 9)
	if p.snapshotted {
		v[0] = 1
	}
	binary.BigEndian.PutUint64(v[1:], p.end)
	return tx.Set(ProgressKey(rel), v)
}

// Start runs the replicator in the background until Close.
func (r *Replicator) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel, r.done = cancel, make(chan struct{})
	go r.run(ctx)
}

// Close stops the replicator and waits for it.
func (r *Replicator) Close() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	<-r.done
}

// Status reports the replicator's state now.
func (r *Replicator) Status() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

func (r *Replicator) update(f func(*Status)) {
	r.mu.Lock()
	f(&r.status)
	r.mu.Unlock()
}

func (r *Replicator) event(level, format string, args ...any) {
	if r.OnEvent != nil {
		r.OnEvent(level, fmt.Sprintf(format, args...))
	}
}

// Backoff between reconnections: from 100 ms, doubling, at most 10 s;
// back to the start once a session streamed for a while.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 10 * time.Second
)

func (r *Replicator) run(ctx context.Context) {
	defer close(r.done)
	wait := minBackoff
	for {
		began := time.Now()
		err := r.session(ctx)
		if ctx.Err() != nil {
			return
		}
		if time.Since(began) > 5*time.Second {
			wait = minBackoff
		}
		r.update(func(s *Status) { s.Streaming = false; s.LastError = err.Error(); s.Reconnects++ })
		r.event("warn", "postgres-cdc source lost its replication connection to %s:%d (%v); reconnecting in %s", r.o.Host, r.o.Port, err, wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, maxBackoff)
	}
}
