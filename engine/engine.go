// Package engine is weir's statement dispatcher: it owns the store and the
// catalog, opens sessions for the wire layer and runs each statement.
package engine

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/connector/tablelog"
	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
	"github.com/weir-sql/weir/wire"
)

// Version is weir's version, reported in server_version and version().
const Version = "0.1.0"

// ServerVersion is what clients see as server_version: a PostgreSQL 15 form
// so that psql, JDBC and SQLAlchemy pick their PostgreSQL 15 code paths.
const ServerVersion = "15.0 (weir " + Version + ")"

// Config configures an Engine.
type Config struct {
	DataDir string
	Sync    state.SyncPolicy
	// SnapshotRows is how many input rows a streaming table reads between
	// two snapshots of its state (0: chosen from the state's size).
	SnapshotRows int64
	// StreamingStateMemory is the most state memory (bytes) one streaming
	// table may hold unless its state_memory_limit option says otherwise;
	// 0 is DefaultStreamingStateMemory, negative is no limit.
	StreamingStateMemory int64
	// QueryMemory bounds the memory all batch queries hold together, in
	// bytes (weir serve --query-memory); 0: no bound.
	QueryMemory int64
	// FilesRoots are the folders server files may be read from and
	// written to (weir serve --files-root; files_access.go); none: the
	// working directory.
	FilesRoots []string
	// SecretKey is the 32-byte key CREATE SECRET seals values with (weir
	// serve --secret-key-file); nil refuses CREATE SECRET (secrets.go).
	SecretKey []byte
	// Logger is the server's structured log (nil: slog's default); the
	// event log's lines are written to it (event_log.go).
	Logger *slog.Logger
	// EventLogRetention is how long events are kept (0: the default, 7
	// days; negative: forever); EventLogMaxRows the most kept (0: the
	// default, 100000; negative: no limit). weir serve
	// --event-log-retention, --event-log-max-rows.
	EventLogRetention time.Duration
	EventLogMaxRows   int
	// AuditLogRetention is how long audit events are kept (0: the
	// default, 30 days; negative: forever); AuditLogMaxRows the most kept
	// (0: the default, 100000; negative: no limit). weir serve
	// --audit-log-retention, --audit-log-max-rows (audit_writer.go).
	AuditLogRetention time.Duration
	AuditLogMaxRows   int
}

// DefaultStreamingStateMemory is the state memory limit of a streaming
// table when neither the server nor the table sets one.
const DefaultStreamingStateMemory = 1 << 30

// Engine is one weir server's SQL state.
type Engine struct {
	store *state.Store
	cat   *catalog.Catalog
	start time.Time

	// secretKey seals and opens secrets (secrets.go).
	secretKey []byte

	mu       sync.Mutex
	sessions map[uint32]*Session
	runners  map[uint32]*runner // streaming tables by OID
	inline   sync.Map           // inline sources (source_inline.go) by OID: *catalog.Relation
	flows    flowRegistry       // the running flows' targets (flows.go)
	sinks    sync.Map           // running sinks (sinks.go) by streaming table OID: *tableSinks
	expect   sync.Map           // jobs' expectations (expectations.go) by job OID: *expectationJob

	// sig is closed (and replaced) at every commit, waking streaming
	// tables that wait for input.
	sigMu sync.Mutex
	sig   chan struct{}

	closing chan struct{} // closed by Close: stops background loops

	// logs reads the tables' chunks as streaming sources, and trims them
	// (input retention).
	logs *tablelog.Logs

	snapshotRows int64
	stateLimit   int64 // per streaming table, bytes; <= 0 none

	queryBudget *exec.MemoryBudget // all batch queries' memory
	tempDir     string             // DATA/tmp: spill files

	sched scheduler // schedule.go: SCHEDULE clauses

	filesRoots []string    // files_access.go: resolved --files-root folders
	filesOpen  filesOpened // files_input.go: the files sources streaming tables read
	kafkaOpen  kafkaOpened // kafka_input.go: the Kafka sources streaming tables read
	pgcdc      pgcdcOpened // pgcdc_source.go: the running postgres-cdc replicators

	stats      serverCounters // server_stats.go: connections, statements, errors, latencies
	log        *slog.Logger   // event_log.go: the server's log
	recoveries sync.Map       // event_log_recovery.go: job OID → recoveryNote
	eventLog   eventLogLimit  // event_log_retention.go
	batches    batchTail      // batches.go: each job's newest batch row
	auditLog   *auditWriter   // audit_writer.go
}

var _ wire.Handler = (*Engine)(nil)

// Open opens (or creates) the data directory.
func Open(cfg Config) (*Engine, error) {
	st, err := state.Open(cfg.DataDir, state.Options{Sync: cfg.Sync})
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Open(st)
	if err != nil {
		st.Close()
		return nil, err
	}
	// Damaged data is reported as XX001 naming the table (state/corruption.go).
	st.NameRelations(func(oid uint32) string {
		if r, ok := cat.RelationByOID(oid); ok {
			return r.Name
		}
		return ""
	})
	filesRoots, err := openFilesRoots(cfg.FilesRoots)
	if err != nil {
		st.Close()
		return nil, err
	}
	tempDir, err := openTempDir(cfg.DataDir)
	if err != nil {
		st.Close()
		return nil, err
	}
	e := &Engine{store: st, logs: tablelog.New(st), cat: cat, start: time.Now(), sessions: map[uint32]*Session{}, runners: map[uint32]*runner{},
		closing: make(chan struct{}), snapshotRows: cfg.SnapshotRows, stateLimit: cfg.StreamingStateMemory,
		queryBudget: exec.NewMemoryBudget(cfg.QueryMemory), tempDir: tempDir, filesRoots: filesRoots, secretKey: cfg.SecretKey}
	if e.stateLimit == 0 {
		e.stateLimit = DefaultStreamingStateMemory
	}
	e.log, e.eventLog = cfg.Logger, newEventLogLimit(cfg.EventLogRetention, cfg.EventLogMaxRows) // event_log_retention.go
	st.SetObserver(&e.stats)                                                                     // server_stats.go: commit and fsync latency
	// audit_writer.go: before anything can record an event.
	e.startAuditWriter(cfg.AuditLogRetention, cfg.AuditLogMaxRows)
	e.startStreamingTables()
	e.startPgCDC() // pgcdc_source.go
	go e.retentionLoop()
	return e, nil
}

// Close stops the streaming tables and closes the store; sessions must be
// gone.
func (e *Engine) Close() error {
	close(e.closing)
	e.waitFilesRestarts() // files_evolve.go
	e.stopAll()
	e.stopAuditWriter() // audit_writer.go: writes what is queued
	e.closePgCDC()      // pgcdc_source.go
	eventlog.Forget(e.store)
	return e.store.Close()
}

// Catalog gives the catalog (tests and subcommands).
func (e *Engine) Catalog() *catalog.Catalog { return e.cat }

// Store gives the store (tests and subcommands).
func (e *Engine) Store() *state.Store { return e.store }

// LookupRole implements wire.Handler.
func (e *Engine) LookupRole(user string) (wire.Role, error) {
	r, ok := e.cat.Role(user)
	if !ok {
		return wire.Role{}, nil
	}
	return wire.Role{Exists: true, Verifier: r.Verifier, Superuser: r.Superuser, CanLogin: r.CanLogin}, nil
}

// NewSession implements wire.Handler.
func (e *Engine) NewSession(ctx context.Context, params map[string]string, b wire.Backend) (wire.Session, error) {
	pid := b.PID()
	user := params["user"]
	db := params["database"]
	if db == "" {
		db = user
	}
	if _, ok := e.cat.Database(db); !ok {
		err := &sqlerr.Error{Severity: "FATAL", Code: sqlerr.InvalidCatalogName, Message: "database \"" + db + "\" does not exist"}
		e.auditSessionRefused(user, b, err) // audit_connect.go
		return nil, err
	}
	role, _ := e.cat.Role(user)
	if err := e.checkConnect(role, db); err != nil { // grant_objects.go
		e.auditSessionRefused(user, b, err)
		return nil, err
	}
	s := newSession(e, user, db, pid, role != nil && role.Superuser, params)
	s.backend = b
	e.mu.Lock()
	e.sessions[pid] = s
	e.mu.Unlock()
	e.stats.connsOpened.Add(1) // server_stats.go
	s.auditConnect(b)          // audit_connect.go
	return s, nil
}

func (e *Engine) forget(pid uint32) {
	e.mu.Lock()
	delete(e.sessions, pid)
	e.mu.Unlock()
}
