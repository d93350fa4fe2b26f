package state

import (
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// corruption is damage found while reading: a chunk whose checksum fails
// or that does not decode, a value-log entry whose CRC fails, or a key
// range in a damaged table file. It names the relation by OID; the public
// read functions turn it into XX001 naming the table (see relationError),
// after their locks are released.
type corruption struct {
	rel    uint32 // 0: not a table's data (catalog, counters, …)
	reason string // e.g. "data checksum mismatch"
	key    []byte
	file   string // the damaged file, when known
}

func (c *corruption) Error() string {
	if c.rel == 0 {
		return "could not read the data directory: " + c.reason
	}
	return "could not read " + fmtRel(c.rel) + ": " + c.reason
}

// where says which file and key, for the server log and the error detail.
func (c *corruption) where() string {
	var b strings.Builder
	if c.file != "" {
		b.WriteString("file " + c.file)
	}
	if c.key != nil {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "key %x", c.key)
	}
	return b.String()
}

// newCorruption logs the damage once, where it is found, and returns it.
func newCorruption(rel uint32, reason string, key []byte, file string) *corruption {
	c := &corruption{rel: rel, reason: reason, key: append([]byte(nil), key...), file: file}
	slog.Error("DATA CORRUPTION: "+c.Error()+"; run `weir verify` on the data directory", "where", c.where())
	return c
}

// NameRelations tells the store how to name a relation in the errors it
// reports (the catalog knows names; this layer only OIDs). name returns ""
// for an unknown OID. It is called only on error paths, without store
// locks held, and never for the catalog's own reads.
func (s *Store) NameRelations(name func(oid uint32) string) {
	s.namer.Store(&name)
}

// relationError turns a corruption into the client's XX001, naming the
// table: `could not read table "t": data checksum mismatch`.
func (s *Store) relationError(err error) error {
	var c *corruption
	if !errors.As(err, &c) {
		return err
	}
	what := fmtRel(c.rel)
	base, isState := c.rel&^(1<<31), c.rel&(1<<31) != 0
	// Not for rel 0 (catalog reads): the catalog may hold its own lock
	// while it reads, and the namer takes it.
	if p := s.namer.Load(); p != nil && c.rel != 0 {
		if n := (*p)(base); n != "" {
			what = "table " + quoteIdent(n)
			if isState {
				what = "the state of streaming table " + quoteIdent(n)
			}
		}
	}
	if c.rel == 0 {
		what = "the data directory"
	}
	return &sqlerr.Error{Code: sqlerr.DataCorrupted,
		Message: "could not read " + what + ": " + c.reason,
		Detail:  "Damage found in " + c.where() + ".",
		Hint:    "Run `weir verify --data DIR` on the stopped server's data directory, and restore the table from a backup."}
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// vlogFid finds the value-log file number in a Badger read error
// ("value corrupted for vp: {Len:… Offset:… Fid:7}").
var vlogFid = regexp.MustCompile(`Fid:(\d+)`)

// badgerCorruption recognises Badger's errors for damaged data: a failed
// block or entry checksum, or a value pointer past the end of its file
// (the file was cut short). Badger flattens its errors into text.
func badgerCorruption(rel uint32, key []byte, err error) *corruption {
	msg := err.Error()
	lower := strings.ToLower(msg)
	switch {
	case strings.Contains(lower, "checksum mismatch"),
		strings.Contains(lower, "invalid read"),
		strings.Contains(lower, "invalid value pointer offset"),
		strings.Contains(lower, "invalid checksum length"),
		strings.Contains(lower, "unexpected eof"),
		strings.Contains(lower, "end of file"):
	default:
		return nil
	}
	file := ""
	if m := vlogFid.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			file = fmt.Sprintf("%06d.vlog", n)
		}
	}
	reason := "data checksum mismatch"
	if !strings.Contains(lower, "checksum") {
		reason = "value log entry is missing"
	}
	return newCorruption(rel, reason, key, file)
}

// lostValue reports an empty value that is empty because Badger failed to
// read it from the value log (it logs the failure and returns nothing; see
// warningLogger) as XX001.
func (s *Store) lostValue(key, v []byte) error {
	if len(v) != 0 {
		return nil
	}
	if file := s.logger.vlogFailure(key); file != "" {
		return s.relationError(newCorruption(0, "data checksum mismatch in value log", key, file))
	}
	return nil
}
