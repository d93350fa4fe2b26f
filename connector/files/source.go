package files

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// Source is a files source as a connector.Source: it discovers files,
// records each in its processed-file log (in st, under logKey: one log
// per reader, as each reader keeps its own offsets) and serves their rows.
//
// An offset is a batch number across the processed-file log (filelog.go).
// Read serves the batches of the files in the log from an offset, decoding
// them from disk on demand (the last few decoded files are cached), and
// when it reaches the log's end admits new files — complete ones discovery
// found, oldest first, at most maxFilesPerTrigger files and
// maxBytesPerTrigger bytes (at least one file) — entering them in the log
// (durably) before returning any of their batches.
//
// Each file is read once: a path in the log is never admitted again, and
// one that changed after it was read (or was replaced by another file of
// the same name) is reported as a notice, not read again. Re-reading an
// offset after a restart decodes its file again from disk: a file that
// vanished or changed since it was read makes that Read fail with XX001
// naming it, since the rows a checkpoint recorded can no longer be
// reproduced (leave processed files in place until their epochs are
// committed and the table's checkpoints are past them).
//
// How the engine uses it: Open(st, LogKey(table, i), opts, schema) when
// the streaming table reading it starts (i: which of its sources this
// is); Read from the offset its checkpoint recorded, as any source;
// after each epoch, Notices() into the event log, Backlog() into
// streaming_progress, and SchemaChanged() — when it reports a version,
// restart the table on it (Close, then Open with the new schema, and read
// again from the committed offset). Close when the table stops (DROP,
// ALTER, shutdown, that restart); DropLog(st, key) when the table is
// dropped or reset to re-read everything.
type Source struct {
	st     *state.Store
	logKey []byte
	opts   Options
	cfg    config

	// readMu makes Reads one at a time (the contract has one reader; a
	// prefetching wrapper may call from another goroutine).
	readMu sync.Mutex

	mu          sync.Mutex
	entries     []logEntry
	byPath      map[string]int // path → index in entries
	end         int64          // the offset after the log's last batch
	cands       map[string]*candidate
	unsettled   map[string]struct{} // the candidates not complete yet
	changedSeen map[changeKey]bool
	noticed     map[string]bool // noticeOnce's keys
	notices     []Notice
	dropped     int // notices dropped for want of room
	schema      Schema
	pending     *Schema // a newer version evolution recorded
	versions    []Schema

	cache *decodeCache
	disc  *discovery

	closeOnce sync.Once
}

var _ connector.Source = (*Source)(nil)

// config is what tests (and the engine, through OpenWith) tune.
type config struct {
	settle    time.Duration
	relist    time.Duration
	batchRows int
	decode    decodeFileFunc
	// stopOnNew: under addNewColumns, a file with new columns stops
	// admission (evolution.go).
	stopOnNew bool
	hit       func(point string)
}

// Tuning adjusts a Source beyond its options; zero fields take defaults.
type Tuning struct {
	Settle    time.Duration // the completeness rule's interval (DefaultSettle)
	Relist    time.Duration // the fallback re-listing's interval (DefaultRelist)
	BatchRows int           // rows per batch (DefaultBatchRows)
	// StopOnNewColumns: under addNewColumns, a file bringing columns the
	// schema lacks is not read under the old schema; the source records
	// the merged schema and admits nothing more until it is reopened on
	// it (Databricks' stream stopping on UnknownFieldException, restarted
	// by its job). Without it, the file is read under the old schema (the
	// new fields in the rescued column) and the version is only recorded.
	StopOnNewColumns bool
	// Hit, when set, is called at the crash points of evolution
	// ("files-evolve-recorded"); the engine passes internal/failpoint's.
	Hit func(point string)
}

// DefaultBatchRows is the rows of a decoded batch.
const DefaultBatchRows = 8192

func (t Tuning) config() config {
	c := config{settle: t.Settle, relist: t.Relist, batchRows: t.BatchRows, decode: DecodeFile, stopOnNew: t.StopOnNewColumns, hit: t.Hit}
	if c.settle <= 0 {
		c.settle = DefaultSettle
	}
	if c.relist <= 0 {
		c.relist = DefaultRelist
	}
	if c.batchRows <= 0 {
		c.batchRows = DefaultBatchRows
	}
	return c
}

// Open opens the source; its log survives restarts under logKey. s is the
// schema to serve (the catalog's, or Infer's); a newer version an earlier
// run's evolution recorded shows at once in SchemaChanged.
func Open(st *state.Store, logKey []byte, o Options, s Schema) (*Source, error) {
	return OpenWith(st, logKey, o, s, Tuning{})
}

// OpenWith is Open with tuning.
func OpenWith(st *state.Store, logKey []byte, o Options, s Schema, t Tuning) (*Source, error) {
	return openWith(st, logKey, o, s, t.config())
}

func openWith(st *state.Store, logKey []byte, o Options, s Schema, cfg config) (*Source, error) {
	if len(logKey) == 0 {
		return nil, sqlerr.New(sqlerr.InternalError, "files source opened without a log key")
	}
	if s.Version <= 0 {
		s.Version = 1
	}
	entries, versions, err := loadLog(st, logKey)
	if err != nil {
		return nil, err
	}
	src := &Source{
		st:          st,
		logKey:      append([]byte(nil), logKey...),
		opts:        o,
		cfg:         cfg,
		entries:     entries,
		byPath:      make(map[string]int, len(entries)),
		cands:       map[string]*candidate{},
		unsettled:   map[string]struct{}{},
		changedSeen: map[changeKey]bool{},
		noticed:     map[string]bool{},
		schema:      s,
		versions:    versions,
	}
	for i, e := range entries {
		src.byPath[e.File.Path] = i
		src.end = e.First + e.Batches
	}
	// Record the schema served, unless this version is recorded already;
	// a newer recorded one is pending.
	// A recorded version of that number with other columns (one from
	// before CREATE OR REFRESH redefined the source) is replaced; only a
	// newer version that extends s (evolution.go) is pending.
	have := false
	for _, v := range versions {
		if v.Version == s.Version {
			have = sameSchema(v, s)
		}
		if v.Version > s.Version && extends(s, v) && len(v.Columns) > len(s.Columns) && (src.pending == nil || v.Version > src.pending.Version) {
			p := v
			src.pending = &p
		}
	}
	if !have {
		txn := st.Begin(true)
		if err := setVersion(txn, logKey, s); err != nil {
			txn.Discard()
			return nil, err
		}
		if err := txn.Commit(); err != nil {
			return nil, err
		}
		src.versions = insertVersion(src.versions, s)
	}
	src.cache = newDecodeCache(cfg)
	if src.disc, err = startDiscovery(src); err != nil {
		return nil, err
	}
	return src, nil
}

func insertVersion(vs []Schema, s Schema) []Schema {
	out := make([]Schema, 0, len(vs)+1)
	done := false
	for _, v := range vs {
		if !done && s.Version < v.Version {
			out = append(out, s)
			done = true
		}
		if v.Version == s.Version {
			continue
		}
		out = append(out, v)
	}
	if !done {
		out = append(out, s)
	}
	return out
}

// Close stops discovery. The engine closes a source when its table stops
// (DROP, ALTER, shutdown, a restart on a new schema); Read must not be
// called after.
func (s *Source) Close() error {
	s.closeOnce.Do(func() {
		if s.disc != nil {
			s.disc.close()
		}
	})
	return nil
}

// Start is 0: a files source never removes its log.
func (s *Source) Start() (int64, error) { return 0, nil }

// Schema is the source's schema now: the one its batches have.
func (s *Source) Schema() Schema {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.schema
}

// SchemaChanged is the newer schema version evolution recorded
// (addNewColumns found columns the schema lacks), if any. With
// Tuning.StopOnNewColumns the source admits no file while it is pending
// (evolution.go); without, it keeps admitting files under Schema (the new
// columns' values in the rescued column). Either way the engine may
// restart the table on the new version (Close this source, Open one with
// the new schema, read from the committed offset).
func (s *Source) SchemaChanged() (Schema, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil {
		return Schema{}, false
	}
	return *s.pending, true
}

// SchemaVersions are the schema versions recorded for this source, oldest
// first.
func (s *Source) SchemaVersions() []Schema {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Schema(nil), s.versions...)
}

// Rescan lists the path now and returns once discovery has taken the
// listing in (the completeness rule still applies to what it found).
func (s *Source) Rescan() { s.disc.rescan() }

// Notice kinds.
const (
	NoticeChanged    = "changed"    // a file changed after it was read: not read again
	NoticeUnreadable = "unreadable" // a file could not be read: tried again later
	NoticeVanished   = "vanished"   // a file vanished before it was read
	NoticeDamaged    = "damaged"    // ignoreCorruptFiles: a damaged file was skipped
	NoticeFolder     = "folder"     // the folder cannot be listed or watched
	NoticeSchema     = "schema"     // evolution recorded a new schema version
	NoticeNoFiles    = "no_files"   // nothing matches the path yet (the source waits for files)
)

// Notice is something discovery or reading met that the table's event
// log should show; nothing stopped because of it.
type Notice struct {
	Time    time.Time
	Kind    string
	Path    string
	Message string
}

const maxNotices = 1000

// Notices returns the notices given since the last call, oldest first
// (each is also written to the server log). At most maxNotices are kept
// between calls; older ones are dropped and counted in a last notice.
func (s *Source) Notices() []Notice {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.notices
	if s.dropped > 0 {
		out = append(out, Notice{Time: time.Now(), Kind: NoticeFolder, Path: s.opts.Path, Message: fmt.Sprintf("%d more notices were dropped", s.dropped)})
	}
	s.notices, s.dropped = nil, 0
	return out
}

func (s *Source) notice(kind, path, format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noticeLocked(kind, path, format, args...)
}

// noticeOnce gives a notice once per kind and path.
func (s *Source) noticeOnce(kind, path, format string, args ...any) {
	s.noticeOnceKey(kind+"\x00"+path, kind, path, format, args...)
}

// noticeOnceKey gives a notice once per key.
func (s *Source) noticeOnceKey(key, kind, path, format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.noticed[key] {
		return
	}
	s.noticed[key] = true
	s.noticeLocked(kind, path, format, args...)
}

func (s *Source) noticeLocked(kind, path, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	slog.Warn("files source "+s.opts.Path+": "+msg, "path", s.opts.Path, "kind", kind, "file", path)
	if len(s.notices) >= maxNotices {
		s.notices = s.notices[1:]
		s.dropped++
	}
	s.notices = append(s.notices, Notice{Time: time.Now(), Kind: kind, Path: path, Message: msg})
}
