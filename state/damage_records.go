package state

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/dgraph-io/badger/v4"
)

// Damage found in a table file at Open is also written to the store, as
// d/<file>/<first key> records. Badger's compaction may later rewrite the
// damaged file, and its iterator ends silently at the bad block, so the new
// file lacks the keys after it and checks clean: without the record, the
// next start would serve the table short. With it, the key range stays
// damaged (XX001) until the tables in it are dropped: DropTable deletes the
// records that lie wholly inside the dropped table's keys.

// damageRecordKey is the key of the record of d.
func damageRecordKey(d damagedFile) []byte {
	k := append([]byte(PrefixDamage), d.file...)
	k = append(k, '/')
	return append(k, d.first...)
}

// encodeDamage is: u32 BE length + first key, a flag (1: last key follows),
// u32 BE length + last key, then the reason.
func encodeDamage(d damagedFile) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, uint32(len(d.first)))
	b = append(b, d.first...)
	if d.last == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.BigEndian.AppendUint32(b, uint32(len(d.last)))
		b = append(b, d.last...)
	}
	return append(b, d.reason...)
}

var errDamageRecord = errors.New("unreadable damage record")

func decodeDamage(file string, v []byte) (damagedFile, error) {
	d := damagedFile{file: file}
	field := func() ([]byte, bool) {
		if len(v) < 4 || int(binary.BigEndian.Uint32(v)) > len(v)-4 {
			return nil, false
		}
		n := int(binary.BigEndian.Uint32(v))
		f := append([]byte{}, v[4:4+n]...)
		v = v[4+n:]
		return f, true
	}
	var ok bool
	if d.first, ok = field(); !ok || len(v) < 1 {
		return d, errDamageRecord
	}
	hasLast := v[0] == 1
	v = v[1:]
	if hasLast {
		if d.last, ok = field(); !ok {
			return d, errDamageRecord
		}
	}
	d.reason = string(v)
	return d, nil
}

// loadDamageRecords returns the recorded damage.
func (s *Store) loadDamageRecords() ([]damagedFile, error) {
	var out []damagedFile
	err := s.db.View(func(txn *badger.Txn) error {
		prefix := []byte(PrefixDamage)
		opts := badger.DefaultIteratorOptions
		opts.Prefix = prefix
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			key := it.Item().Key()[len(prefix):]
			slash := bytes.IndexByte(key, '/')
			if slash < 0 {
				continue
			}
			file := string(key[:slash])
			err := it.Item().Value(func(v []byte) error {
				d, err := decodeDamage(file, v)
				if err != nil {
					// A record we cannot read still says the file was
					// damaged: any key may be affected.
					d = damagedFile{file: file, reason: "recorded damage (record unreadable)"}
				}
				out = append(out, d)
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// recordDamage writes records for found that are not in known.
func (s *Store) recordDamage(found, known []damagedFile) error {
	have := map[string]bool{}
	for _, d := range known {
		have[string(damageRecordKey(d))] = true
	}
	return s.db.Update(func(txn *badger.Txn) error {
		for _, d := range found {
			if k := damageRecordKey(d); !have[string(k)] {
				if err := txn.Set(k, encodeDamage(d)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// dropDamageRecords deletes, in tx, the records lying wholly inside the
// keys of rel, and returns the damage that remains once tx commits.
func (t *Txn) dropDamageRecords(rel uint32) ([]damagedFile, error) {
	lo := tablePrefix(rel)
	hi := prefixEnd(lo)
	var kept []damagedFile
	for _, d := range t.s.damagedNow() {
		inside := d.first != nil && d.last != nil &&
			bytes.Compare(d.first, lo) >= 0 && bytes.Compare(d.last, hi) < 0
		if !inside {
			kept = append(kept, d)
			continue
		}
		if err := t.Delete(damageRecordKey(d)); err != nil {
			return nil, err
		}
	}
	return kept, nil
}
