package tablelog

import (
	"encoding/binary"
	"time"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/state"
)

// Input retention: WITH (retention = '24 hours') on a table removes its
// rows once they are older than that — but never rows a streaming table
// may still re-read after a restart (before its resume offset, which the
// checkpoint's resume guard knows), so recovery stays exact. Retention
// removes a prefix of the log and remembers how long that prefix was, so
// positions in the log (the offsets streaming tables record) keep their
// meaning. The keys (r/, state/keys.go):
//
//	r/<table>/<n>   commit time (µs) by which the table's first n chunks existed
//	r/<table>.trim  how many chunks retention removed

// OptionSpec is the options of a table whose log is a source: WITH
// (retention = '<interval>').
var OptionSpec = connector.OptionSpec{
	Options:     []connector.Option{{Name: "retention", Kind: connector.DurationOption}},
	Unknown:     "unrecognized parameter \"%s\"",
	UnknownHint: "Tables accept WITH (retention = '<interval>').",
}

// Options are a table log's typed options.
type Options struct {
	// Retention is how long rows are kept; 0 keeps them forever.
	Retention time.Duration
}

// ParseOptions checks a table's options, in order.
func ParseOptions(settings []connector.Setting) (Options, error) {
	o, err := OptionSpec.Parse(settings)
	if err != nil {
		return Options{}, err
	}
	return Options{Retention: o.Duration("retention")}, nil
}

// OptionsOf reads the options kept in a table's catalog entry.
func OptionsOf(m map[string]string) (Options, error) {
	o, err := OptionSpec.ParseMap(m)
	if err != nil {
		return Options{}, err
	}
	return Options{Retention: o.Duration("retention")}, nil
}

// Trimmed is how many chunks retention removed from rel's log.
func (l *Logs) Trimmed(rel uint32) (int64, error) {
	return l.store.ReadUint64(state.TrimKey(rel))
}

// NoteCommitTime records, for a table with retention, that its chunks up
// to the current count existed at now. It runs after the commit, so a
// crash in between only makes rows live longer.
func (l *Logs) NoteCommitTime(rel uint32, now time.Time) {
	count, err := l.store.ChunkCount(rel)
	if err != nil {
		return
	}
	trimmed, err := l.Trimmed(rel)
	if err != nil {
		return
	}
	tx := l.store.Begin(true)
	defer tx.Discard()
	key := state.CommitTimeKey(rel, uint64(trimmed)+uint64(count))
	if tx.Set(key, binary.BigEndian.AppendUint64(nil, uint64(now.UnixMicro()))) == nil {
		tx.Commit()
	}
}

// Expired is the offset before which rel's chunks are all older than
// cutoff (the longest prefix known to be), and how many are trimmed.
func (l *Logs) Expired(rel uint32, cutoff time.Time) (old, trimmed int64, err error) {
	if trimmed, err = l.Trimmed(rel); err != nil {
		return 0, 0, err
	}
	tx := l.store.Begin(false)
	defer tx.Discard()
	err = tx.IteratePrefix(state.RetentionPrefix(rel), func(k, v []byte) error {
		if len(v) == 8 && len(k) >= 8 && int64(binary.BigEndian.Uint64(v)) <= cutoff.UnixMicro() {
			old = max(old, int64(binary.BigEndian.Uint64(k[len(k)-8:])))
		}
		return nil
	})
	return old, trimmed, err
}

// TrimTo removes rel's chunks before offset to, of which trimmed are
// already gone (Expired), and records the new trim count in the same
// commit. The caller has clamped to by every reader's resume offset.
func (l *Logs) TrimTo(rel uint32, to, trimmed int64) error {
	n := to - trimmed
	if n <= 0 {
		return nil
	}
	l.trimMu.Lock()
	defer l.trimMu.Unlock()
	return l.store.TrimTable(rel, int(n), state.TrimKey(rel), binary.BigEndian.AppendUint64(nil, uint64(trimmed+n)))
}
