package auditlog

import (
	"encoding/binary"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// An event is stored in a binary form, not JSON: a read of audit_log
// decodes every event of the log (100000 by default), and JSON's string
// and time parsing made that seconds where this takes a fraction. Trim
// reads an event's time at a fixed offset without decoding the rest.
//
//	byte 0       format (1)
//	bytes 1-8    time, µs since 1970 (int64 BE)
//	byte 9       success (0 or 1)
//	then         Kind, Role, SessionUser, Client, Object, Statement, Detail:
//	             each a uvarint length and that many bytes

const (
	formatV1   = 1
	headerSize = 10
)

// encode is ev's stored form (Seq is the key's, not the value's).
func encode(ev *Event) []byte {
	fields := [...]string{ev.Kind, ev.Role, ev.SessionUser, ev.Client, ev.Object, ev.Statement, ev.Detail}
	n := headerSize
	for _, f := range fields {
		n += binary.MaxVarintLen64 + len(f)
	}
	b := make([]byte, headerSize, n)
	b[0] = formatV1
	binary.BigEndian.PutUint64(b[1:9], uint64(ev.Time.UnixMicro()))
	if ev.Success {
		b[9] = 1
	}
	for _, f := range fields {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	return b
}

// decode reads an event's stored form into ev.
func decode(b []byte, ev *Event) error {
	if len(b) < headerSize || b[0] != formatV1 {
		return errUnreadable
	}
	ev.Time = eventTime(b)
	ev.Success = b[9] == 1
	b = b[headerSize:]
	for _, f := range [...]*string{&ev.Kind, &ev.Role, &ev.SessionUser, &ev.Client, &ev.Object, &ev.Statement, &ev.Detail} {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return errUnreadable
		}
		*f = string(b[k : k+int(n)])
		b = b[k+int(n):]
	}
	return nil
}

// eventTime is the time of a stored event (decode checked its form, or
// the caller did: len(b) >= headerSize).
func eventTime(b []byte) time.Time {
	return time.UnixMicro(int64(binary.BigEndian.Uint64(b[1:9])))
}

var errUnreadable = sqlerr.New(sqlerr.DataCorrupted, "unreadable audit log entry")
