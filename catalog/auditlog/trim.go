package auditlog

import (
	"encoding/binary"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Trim deletes the events older than before (zero: no age limit) and the
// oldest past the newest keep (keep <= 0: no count limit), and returns how
// many it deleted. The count is on sequence numbers, which may skip after
// a restart, so at most keep events remain. Trim reads only up to the
// first event it keeps: its cost is what it deletes, not the log's size.
func (l *Log) Trim(before time.Time, keep int) (int, error) {
	last, err := l.lastSeq()
	if err != nil || last == 0 {
		return 0, err
	}
	var doomed []uint64
	tx := l.st.Begin(false)
	err = tx.IteratePrefix([]byte(prefix), func(k, v []byte) error {
		if len(k) != len(prefix)+8 {
			return nil
		}
		seq := binary.BigEndian.Uint64(k[len(prefix):])
		over := keep > 0 && seq+uint64(keep) <= last
		old := false
		if !over && !before.IsZero() {
			old = len(v) >= headerSize && eventTime(v).Before(before)
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
	if err := l.st.DeleteInBatches(len(doomed), func(i int) []byte { return key(doomed[i]) }); err != nil {
		return 0, err
	}
	return len(doomed), nil
}

// errStop ends an iteration early.
var errStop = sqlerr.New(sqlerr.InternalError, "stop")

// lastSeq is the sequence number of the newest event (0: none); the
// first call on a log nobody appended to reads it once.
func (l *Log) lastSeq() (uint64, error) {
	if n := l.last.Load(); n > 0 {
		return n, nil
	}
	tx := l.st.Begin(false)
	defer tx.Discard()
	var last uint64
	err := tx.IteratePrefix([]byte(prefix), func(k, _ []byte) error {
		if len(k) == len(prefix)+8 {
			last = binary.BigEndian.Uint64(k[len(prefix):])
		}
		return nil
	})
	if err == nil {
		l.noteSeq(last)
	}
	return last, err
}
