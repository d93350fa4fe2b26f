// Package state is weir's durable store: an embedded Badger database in the
// data directory holding the catalog, input-table chunks, counters, and
// (later) operator state and epochs. See keys.go for the key layout.
//
// # Durability and fsync policy
//
// A write is acknowledged when Txn.Commit returns nil. With the default
// policy, SyncGroup, Commit returns only after the data is on stable storage:
// Badger writes the transaction to its write-ahead log and value log without
// syncing, and then the committer waits for a store-wide group sync. The first
// waiter becomes the leader and calls fsync (Badger's DB.Sync) once for every
// commit that had been written when it started; committers that arrive while
// that fsync runs wait for the next one, which again covers all of them. So N
// concurrent committers share one fsync instead of paying N, while a single
// committer pays exactly one fsync per commit.
//
// SyncEachWrite sets Badger's own SyncWrites: Badger then fsyncs inside its
// write loop (the value log once per batch of concurrent requests, the
// write-ahead log once per transaction). SyncNone never fsyncs on commit:
// acknowledged writes survive a crash of the process (kill -9), because they
// are in the kernel's page cache, but not a crash of the machine. It is meant
// for tests and benchmarks.
//
// Multi-part commits (transactions larger than one Badger transaction, see
// Txn.Commit) write their parts first and a small commit record last; every
// part is synced by the same policy before the record is written.
package state

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// SyncPolicy says when commits are forced to stable storage.
type SyncPolicy int

const (
	// SyncGroup fsyncs before Commit returns, sharing one fsync among
	// concurrent committers. The default.
	SyncGroup SyncPolicy = iota
	// SyncEachWrite lets Badger fsync inside every write (SyncWrites).
	SyncEachWrite
	// SyncNone never fsyncs on commit: safe against process crashes only.
	SyncNone
)

// Options configure a Store. The zero value is the production default.
type Options struct {
	Sync SyncPolicy

	// MinFreeBytes is the free space a commit must leave on the data
	// directory's disk (see diskspace.go). Default 64 MiB.
	MinFreeBytes int64

	// MemTableSize is Badger's memtable size; a Badger transaction may hold
	// at most 15% of it (in LSM bytes: values larger than the value
	// threshold count only as pointers). Default 32 MiB.
	MemTableSize int64

	// PartBytes and PartChunks bound one part of a multi-part commit: a
	// transaction whose appended chunks exceed either is committed in parts
	// (see Txn.Commit). Defaults 64 MiB and 1024 chunks.
	PartBytes  int64
	PartChunks int

	// ReadOnly opens the directory without writing anything to it (weir
	// verify): no recovery of unfinished commits, no compaction, and
	// commits fail.
	ReadOnly bool

	// noVerify turns all checks of stored data off (Badger's block and
	// value checksums, the table-file check and log-tail check at Open,
	// the chunk checksum on read), as before weir had them: benchmarks
	// measure what they cost.
	noVerify bool

	// failAfterParts, when > 0, makes a multi-part commit stop after writing
	// that many parts as if the process died there: no commit record, no
	// clean-up. Tests only.
	failAfterParts int
}

const (
	defaultMemTableSize = 32 << 20
	defaultPartBytes    = 64 << 20
	defaultPartChunks   = 1024
	// valueThreshold sends every value of at least this size (table chunks)
	// to the value log, so that the LSM tree holds only small keys and
	// pointers and compaction does not rewrite chunk data.
	valueThreshold = 4 << 10
)

// Store is an open data directory. It is safe for concurrent use.
type Store struct {
	logger *warningLogger
	db     *badger.DB
	opts   Options
	dir    string

	syncer groupSyncer

	seqMu    sync.Mutex
	counters map[string]*counter

	tablesMu sync.Mutex
	tables   map[uint32]*tableCache

	// damaged are the damaged blocks of table files, found at Open or
	// recorded by an earlier one (integrity.go, damage_records.go); nil
	// when there are none. Replaced as a whole when DropTable removes
	// records, and added to when a read finds new damage (recheck.go);
	// damagedMu orders those writers.
	damaged   atomic.Pointer[[]damagedFile]
	damagedMu sync.Mutex
	// namer names relations in XX001 errors (NameRelations).
	namer atomic.Pointer[func(uint32) string]
	// observer is told commit and fsync durations (observer.go).
	observer storeObserver
}

// Open opens (creating if needed) the store in dir, and discards the parts
// of multi-part commits that never got their commit record.
func Open(dir string, opts Options) (*Store, error) {
	if opts.MinFreeBytes <= 0 {
		opts.MinFreeBytes = defaultMinFreeBytes
	}
	if opts.MemTableSize <= 0 {
		opts.MemTableSize = defaultMemTableSize
	}
	if opts.PartBytes <= 0 {
		opts.PartBytes = defaultPartBytes
	}
	if opts.PartChunks <= 0 {
		opts.PartChunks = defaultPartChunks
	}
	if opts.ReadOnly {
		if _, err := os.Stat(dir); err != nil {
			return nil, storageError("open data directory "+dir, err)
		}
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, storageError("create data directory "+dir, err)
	}
	if !opts.ReadOnly && !opts.noVerify {
		if _, err := preserveLogTails(dir); err != nil {
			return nil, storageError("check the value log of "+dir, err)
		}
	}
	if !opts.noVerify {
		if err := checkTableIndexes(dir); err != nil { // integrity_open.go
			return nil, err
		}
	}
	logger := &warningLogger{}
	bo := badger.DefaultOptions(dir).
		WithLogger(logger).
		WithSyncWrites(opts.Sync == SyncEachWrite).
		WithMemTableSize(opts.MemTableSize).
		WithNumMemtables(3).
		WithNumLevelZeroTables(4).
		WithNumLevelZeroTablesStall(8).
		WithBlockCacheSize(8 << 20).
		WithValueThreshold(valueThreshold).
		WithValueLogFileSize(256 << 20).
		WithNumCompactors(2).
		WithMetricsEnabled(false).
		WithReadOnly(opts.ReadOnly)
	if !opts.noVerify {
		// Every SST block is checked against its checksum when it is read
		// and every value-log entry against its CRC, so that damage on disk
		// is an error instead of data. Not OnTableRead: on a table that fails
		// it at open, Badger logs and drops the whole table from the tree,
		// which would lose its rows silently (see integrity.go for how a
		// damaged table is reported instead).
		bo = bo.WithChecksumVerificationMode(options.OnBlockRead).
			WithVerifyValueChecksum(true)
	}
	db, err := badger.Open(bo)
	if err != nil {
		return nil, storageError("open data directory "+dir, err)
	}
	s := &Store{
		logger:   logger,
		db:       db,
		opts:     opts,
		dir:      dir,
		counters: map[string]*counter{},
		tables:   map[uint32]*tableCache{},
	}
	s.syncer.init(s.timedSync) // observer.go: timed for the observer
	if !opts.noVerify {
		if err := s.checkTableFiles(); err != nil {
			db.Close()
			return nil, err
		}
	}
	if opts.ReadOnly {
		return s, nil
	}
	if err := s.recoverPending(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close flushes and closes the store. Txns must be finished first.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return storageError("close data directory "+s.dir, err)
	}
	return nil
}

// Dir is the data directory.
func (s *Store) Dir() string { return s.dir }

// durable makes the commit that just returned from Badger durable according
// to the sync policy.
func (s *Store) durable() error {
	if s.opts.Sync != SyncGroup {
		return nil
	}
	if err := s.syncer.wait(s.syncer.written()); err != nil {
		return storageError("sync data directory "+s.dir, err)
	}
	return nil
}

// warningLogger keeps Badger quiet: only warnings and errors reach the log,
// prefixed so that they can be told apart from weir's own messages.
//
// It also remembers which value-log file failed for which key: Badger's
// Item.Value logs a failed value-log read and then returns an empty value
// without an error, so the log line is the only place that names the file
// (corruption.go reports it with the damaged chunk).
type warningLogger struct {
	vlogFailures sync.Map // string(key) → value-log file name
}

func (l *warningLogger) Errorf(f string, a ...any) {
	slog.Error("badger: " + strings.TrimSpace(fmt.Sprintf(f, a...)))
	// "Unable to read: Key: %v, … Error: %v" and then "Key: %v, …
	// valuePointer: %+v": the file number is in the error or the pointer.
	if (strings.HasPrefix(f, "Unable to read: Key: ") || strings.HasPrefix(f, "Key: ")) && len(a) > 1 {
		if key, _ := a[0].([]byte); key != nil {
			if m := vlogFid.FindStringSubmatch(fmt.Sprintf("%+v", a[len(a)-1])); m != nil {
				if n, err := strconv.Atoi(m[1]); err == nil {
					l.vlogFailures.Store(string(key), fmt.Sprintf("%06d.vlog", n))
				}
			}
		}
	}
}
func (*warningLogger) Warningf(f string, a ...any) {
	slog.Warn("badger: " + strings.TrimSpace(fmt.Sprintf(f, a...)))
}
func (*warningLogger) Infof(string, ...any)  {}
func (*warningLogger) Debugf(string, ...any) {}

// vlogFailure names the value-log file whose read of key failed, or "".
func (l *warningLogger) vlogFailure(key []byte) string {
	if f, ok := l.vlogFailures.Load(string(key)); ok {
		return f.(string)
	}
	return ""
}

var _ badger.Logger = (*warningLogger)(nil)

// fmtRel names a relation in error messages of this layer, which knows only
// OIDs.
func fmtRel(rel uint32) string { return fmt.Sprintf("relation with OID %d", rel) }
