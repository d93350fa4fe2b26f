package state

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/dgraph-io/badger/v4/y"
	"github.com/dgraph-io/ristretto/v2/z"
)

// When Badger opens a data directory for writing, it reads the newest
// value-log file, and each write-ahead log (.mem), up to its first entry
// that fails its CRC and truncates the file there: that is how it drops the
// torn tail of a write cut short by a crash. But a damaged entry in the
// middle of the file looks the same, and then the truncation throws away
// every good entry after it, for ever. So before Badger opens the
// directory, preserveLogTails finds the first bad entry of those files
// itself; if any non-zero byte follows it (a torn tail is followed by
// nothing, or by the zeros of the preallocated file), it copies the whole
// file aside as <name>.damaged-<time> and says so in the log. Badger then
// truncates as always: reads of values that were after the damage in the
// value log fail with XX001; transactions that were after it in a
// write-ahead log are gone, which the log line says. The copy keeps both
// for whoever repairs the directory. (After a power loss a torn tail may
// be followed by data that was never acknowledged; the copy is then just a
// spare.)

// vlogHeaderLen is the size of a value-log file's header (Badger: key ID
// and IV for encryption, 8 + 12 bytes).
const vlogHeaderLen = 20

// preserveLogTails copies the newest value-log file and every write-ahead
// log of dir aside when damaged before their end; it returns the copies'
// names.
func preserveLogTails(dir string) ([]string, error) {
	vlogs, err := filepath.Glob(filepath.Join(dir, "*.vlog"))
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.mem"))
	if err != nil {
		return nil, err
	}
	if len(vlogs) > 0 {
		sort.Strings(vlogs) // zero-padded numbers: the newest is last
		files = append(files, vlogs[len(vlogs)-1])
	}
	var saved []string
	for _, f := range files {
		s, err := preserveLogTail(dir, f)
		if err != nil {
			return saved, err
		}
		if s != "" {
			saved = append(saved, s)
		}
	}
	return saved, nil
}

// preserveLogTail copies one log file aside when it is damaged before its
// end; it returns the copy's name, or "".
func preserveLogTail(dir, last string) (string, error) {
	mf, err := z.OpenMmapFile(last, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer func() { _ = mf.Close(-1) }()
	data := mf.Data
	bad, damaged := logTailDamage(dir, last, data, true)
	if !damaged {
		return "", nil
	}
	saved := fmt.Sprintf("%s.damaged-%d", last, time.Now().Unix())
	if err := os.WriteFile(saved, data, 0o600); err != nil {
		return "", err
	}
	what := "values after it will read as damaged"
	if filepath.Ext(last) == ".mem" {
		what = "the transactions after it are lost"
	}
	slog.Error(fmt.Sprintf("DATA CORRUPTION: log file %s has a damaged entry at offset %d with %d bytes after it; Badger will cut the file there (%s), so a copy of it is kept as %s",
		filepath.Base(last), bad, len(data)-bad, what, filepath.Base(saved)), "file", filepath.Base(last), "offset", bad)
	return saved, nil
}

// firstBadVlogEntry is the offset of the first entry that does not parse
// or fails its CRC (len(data) when all do), and the end of that entry as
// its header tells it (bad+maxEntryHeader when the header is unreadable).
func firstBadVlogEntry(data []byte) (bad, end int) {
	return walkLogEntries(data, nil)
}

// walkLogEntries reads a log file (value log or write-ahead log, one
// format) entry by entry from its header on, calling fn, when not nil, with
// each good entry, and returns as firstBadVlogEntry does. An entry is:
// meta, user meta, uvarint key length, value length and expiry, key,
// value, then a big-endian CRC-32C of all that.
func walkLogEntries(data []byte, fn func(meta byte, key, value []byte)) (bad, end int) {
	off := vlogHeaderLen
	for off < len(data) {
		e, ok := logEntryAt(data, off)
		if !ok {
			return off, e.end
		}
		if fn != nil {
			fn(data[off], e.key, e.value)
		}
		off = e.end
	}
	return len(data), len(data)
}

// logEntry is one entry read by logEntryAt: its key and value, and where
// it ends.
type logEntry struct {
	key, value []byte
	end        int
}

// logEntryAt reads the entry at off. When the entry is bad, ok is false
// and end is where its header says it ends (off+maxEntryHeader when the
// header is unreadable).
func logEntryAt(data []byte, off int) (e logEntry, ok bool) {
	unreadable := logEntry{end: off + maxEntryHeader}
	p := off + 2
	if p > len(data) {
		return unreadable, false
	}
	var lens [3]uint64
	for i := range lens {
		v, n := binary.Uvarint(data[min(p, len(data)):])
		if n <= 0 {
			return unreadable, false
		}
		lens[i], p = v, p+n
	}
	klen, vlen := lens[0], lens[1]
	if klen == 0 || klen > 1<<16 || vlen > uint64(len(data)) {
		return unreadable, false
	}
	end := p + int(klen) + int(vlen) + crc32.Size
	if end > len(data) {
		return unreadable, false
	}
	e = logEntry{key: data[p : p+int(klen)], value: data[p+int(klen) : end-crc32.Size], end: end}
	if crc32.Checksum(data[off:end-crc32.Size], y.CastagnoliCrcTable) != binary.BigEndian.Uint32(data[end-crc32.Size:]) {
		return logEntry{end: end}, false
	}
	return e, true
}

// maxEntryHeader bounds an entry header: two bytes and three uvarints.
const maxEntryHeader = 2 + 3*binary.MaxVarintLen64

// damagedLog says whether a log file has a bad entry followed by data
// (not a torn tail), and where the bad entry is.
func damagedLog(data []byte) (bad int, damaged bool) {
	bad, end := firstBadVlogEntry(data)
	if bad >= len(data) || end >= len(data) {
		return bad, false
	}
	return bad, !allZero(data[end:])
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
