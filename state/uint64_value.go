package state

import "encoding/binary"

// ReadUint64 reads a big-endian uint64 stored under key, as the epoch
// and retention records keep their counts; 0 when the key is missing (or
// holds something else, which those records never do).
func (s *Store) ReadUint64(key []byte) (int64, error) {
	tx := s.Begin(false)
	defer tx.Discard()
	v, err := tx.Get(key)
	if err == ErrNotFound {
		return 0, nil
	}
	if err != nil || len(v) != 8 {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}
