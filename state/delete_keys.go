package state

// DeleteInBatches deletes the keys key(0) … key(n-1) in transactions of
// at most 10,000 deletes each, so that a large deletion (the first trim
// of a long log) never exceeds what one Badger transaction holds. What
// committed before an error stays deleted; the rest is left.
func (s *Store) DeleteInBatches(n int, key func(i int) []byte) error {
	const batch = 10000
	for from := 0; from < n; from += batch {
		tx := s.Begin(true)
		for i := from; i < min(n, from+batch); i++ {
			if err := tx.Delete(key(i)); err != nil {
				tx.Discard()
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}
