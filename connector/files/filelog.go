package files

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"path/filepath"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// The processed-file log: the files a files source has read, in the order
// it read them, in weir's store under the source's log key.
//
//	<logKey>f<seq u64 BE>       one file: logEntry (encodeEntry)
//	<logKey>v<version u32 BE>   one schema version: Schema as JSON
//
// An offset is a batch number across the log: file seq's batches are
// offsets First .. First+Batches-1, and First is the sum of the batches
// of the files before it. An entry is written (and committed, durably)
// when its file is first decoded, before any of its batches is returned,
// so an offset a checkpoint recorded always finds its file in the log
// after a restart; re-reading it decodes the file from disk again (which
// must still be there, unchanged: see Source.Read).

// LogKey is the log key of the idx-th files source read by streaming
// table rel: each reader keeps its own log, as it keeps its own offsets.
// DropLog removes it with the table.
func LogKey(rel uint32, idx int) []byte {
	k := append([]byte(state.PrefixOperator), "files/"...)
	k = binary.BigEndian.AppendUint32(k, rel)
	k = binary.BigEndian.AppendUint16(k, uint16(idx))
	return append(k, '/')
}

// logEntry is one file of the log.
type logEntry struct {
	File    FileInfo
	First   int64 // offset of its first batch
	Batches int64
	Rows    int64
	// Version is the schema version it was first decoded with.
	Version int
	// Damaged: decoding found it damaged and ignoreCorruptFiles was on;
	// it holds no batches.
	Damaged bool

	// rowsBefore is the rows of the entries before it (in memory only:
	// the backlog after an offset is a subtraction).
	rowsBefore int64
}

const entryFormat = 1

func entryKey(logKey []byte, seq int) []byte {
	k := append(append([]byte(nil), logKey...), 'f')
	return binary.BigEndian.AppendUint64(k, uint64(seq))
}

func versionKey(logKey []byte, v int) []byte {
	k := append(append([]byte(nil), logKey...), 'v')
	return binary.BigEndian.AppendUint32(k, uint32(v))
}

func encodeEntry(e logEntry) []byte {
	b := make([]byte, 0, 64+len(e.File.Path))
	b = append(b, entryFormat)
	b = binary.AppendVarint(b, e.First)
	b = binary.AppendVarint(b, e.Batches)
	b = binary.AppendVarint(b, e.Rows)
	b = binary.AppendVarint(b, e.File.Size)
	b = binary.AppendVarint(b, e.File.Modified.UnixNano())
	b = binary.AppendVarint(b, int64(e.Version))
	flags := byte(0)
	if e.Damaged {
		flags |= 1
	}
	b = append(b, flags)
	return append(b, e.File.Path...)
}

var errBadEntry = errors.New("malformed entry")

func decodeEntry(b []byte) (logEntry, error) {
	if len(b) < 1 || b[0] != entryFormat {
		return logEntry{}, errBadEntry
	}
	b = b[1:]
	var vals [6]int64
	for i := range vals {
		v, n := binary.Varint(b)
		if n <= 0 {
			return logEntry{}, errBadEntry
		}
		vals[i] = v
		b = b[n:]
	}
	if len(b) < 1 {
		return logEntry{}, errBadEntry
	}
	flags := b[0]
	path := string(b[1:])
	e := logEntry{
		File:    FileInfo{Path: path, Name: filepath.Base(path), Size: vals[3], Modified: time.Unix(0, vals[4])},
		First:   vals[0],
		Batches: vals[1],
		Rows:    vals[2],
		Version: int(vals[5]),
		Damaged: flags&1 != 0,
	}
	return e, nil
}

// loadLog reads a log: its entries in order, and its schema versions in
// version order. A log whose offsets do not add up is damaged (XX001).
func loadLog(st *state.Store, logKey []byte) ([]logEntry, []Schema, error) {
	txn := st.Begin(false)
	defer txn.Discard()
	var entries []logEntry
	var next, rows int64
	fp := append(append([]byte(nil), logKey...), 'f')
	err := txn.IteratePrefix(fp, func(key, val []byte) error {
		seq := int(binary.BigEndian.Uint64(key[len(fp):]))
		e, err := decodeEntry(val)
		if err != nil || seq != len(entries) || e.First != next || e.Batches < 0 {
			return sqlerr.New(sqlerr.DataCorrupted, "the processed-file log of a files source is damaged at entry %d", seq)
		}
		next += e.Batches
		e.rowsBefore = rows
		rows += e.Rows
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var versions []Schema
	vp := append(append([]byte(nil), logKey...), 'v')
	err = txn.IteratePrefix(vp, func(key, val []byte) error {
		var s Schema
		if err := json.Unmarshal(val, &s); err != nil {
			return sqlerr.New(sqlerr.DataCorrupted, "a schema version of a files source is damaged: %v", err)
		}
		versions = append(versions, s)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return entries, versions, nil
}

func setVersion(txn *state.Txn, logKey []byte, s Schema) error {
	b, err := json.Marshal(s)
	if err != nil {
		return sqlerr.New(sqlerr.InternalError, "encode schema: %v", err)
	}
	return txn.Set(versionKey(logKey, s.Version), b)
}

// SchemaVersions are the schema versions a files source's log recorded,
// oldest first (DESCRIBE, the event log); none before it first opened.
func SchemaVersions(st *state.Store, logKey []byte) ([]Schema, error) {
	_, vs, err := loadLog(st, logKey)
	return vs, err
}

// LoggedFile is one file of a processed-file log, as the engine shows it.
type LoggedFile struct {
	File          FileInfo
	FirstOffset   int64
	Batches, Rows int64
	SchemaVersion int
	Damaged       bool
}

// ProcessedFiles is the processed-file log under logKey, in read order.
func ProcessedFiles(st *state.Store, logKey []byte) ([]LoggedFile, error) {
	es, _, err := loadLog(st, logKey)
	if err != nil {
		return nil, err
	}
	out := make([]LoggedFile, len(es))
	for i, e := range es {
		out[i] = LoggedFile{File: e.File, FirstOffset: e.First, Batches: e.Batches, Rows: e.Rows, SchemaVersion: e.Version, Damaged: e.Damaged}
	}
	return out, nil
}

// DropLog removes the log under logKey (the reading table was dropped).
func DropLog(st *state.Store, logKey []byte) error {
	txn := st.Begin(true)
	defer txn.Discard()
	var keys [][]byte
	if err := txn.IteratePrefix(logKey, func(k, _ []byte) error {
		keys = append(keys, append([]byte(nil), k...))
		return nil
	}); err != nil {
		return err
	}
	txn.Discard()
	// In transactions of bounded size: a long-lived source's log is long.
	for len(keys) > 0 {
		n := min(len(keys), 10000)
		del := st.Begin(true)
		for _, k := range keys[:n] {
			if err := del.Delete(k); err != nil {
				del.Discard()
				return err
			}
		}
		if err := del.Commit(); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}
