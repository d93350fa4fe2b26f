package auditlog

import (
	"encoding/binary"
	"encoding/json"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Read returns every event, oldest first, as of one read transaction.
func (l *Log) Read() ([]Event, error) {
	tx := l.st.Begin(false)
	defer tx.Discard()
	var out []Event
	err := tx.IteratePrefix([]byte(prefix), func(k, v []byte) error {
		var ev Event
		if len(k) != len(prefix)+8 || json.Unmarshal(v, &ev) != nil {
			return sqlerr.New(sqlerr.DataCorrupted, "unreadable audit log entry")
		}
		ev.Seq = binary.BigEndian.Uint64(k[len(prefix):])
		out = append(out, ev)
		return nil
	})
	return out, err
}
