package state

// TrimTable deletes the n oldest committed chunks of relation rel (input
// retention). Chunks are deleted in order of their sequence numbers, so a
// table's chunks stay a contiguous log: position i after a trim of n is
// position i+n before it. The caller's record of that shift (key, val) is
// written in the same commit, so a crash can never separate the two.
func (s *Store) TrimTable(rel uint32, n int, key, val []byte) error {
	if n <= 0 {
		return nil
	}
	tc, err := s.loadedTable(rel) // read-locked
	if err != nil {
		return s.relationError(err)
	}
	if n > len(tc.seqs) {
		n = len(tc.seqs)
	}
	seqs := append([]uint64(nil), tc.seqs[:n]...)
	tc.mu.RUnlock()
	tx := s.Begin(true)
	defer tx.Discard()
	for _, seq := range seqs {
		if err := tx.Delete(chunkKey(rel, seq)); err != nil {
			return err
		}
	}
	if key != nil {
		if err := tx.Set(key, val); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.evictTable(rel)
	return nil
}

// ChunkCount is the number of committed chunks of rel.
func (s *Store) ChunkCount(rel uint32) (int, error) {
	tc, err := s.loadedTable(rel)
	if err != nil {
		return 0, s.relationError(err)
	}
	defer tc.mu.RUnlock()
	return len(tc.seqs), nil
}
