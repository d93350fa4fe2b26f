package auditlog

import "encoding/binary"

// Read returns every event, oldest first, as of one read transaction.
func (l *Log) Read() ([]Event, error) {
	tx := l.st.Begin(false)
	defer tx.Discard()
	var out []Event
	err := tx.IteratePrefix([]byte(prefix), func(k, v []byte) error {
		var ev Event
		if len(k) != len(prefix)+8 || decode(v, &ev) != nil {
			return errUnreadable
		}
		ev.Seq = binary.BigEndian.Uint64(k[len(prefix):])
		out = append(out, ev)
		return nil
	})
	return out, err
}
