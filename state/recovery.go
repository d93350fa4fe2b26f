package state

import (
	"errors"

	"github.com/dgraph-io/badger/v4"
)

// recoverPending runs at Open, before anyone reads: it deletes the chunks
// of multi-part commits whose commit record was never written (the process
// died between parts) and the pending markers of published ones.
func (s *Store) recoverPending() error {
	var unpublished, markers [][]byte
	err := s.db.View(func(txn *badger.Txn) error {
		published := map[uint64]bool{}
		prefix := []byte(PrefixPending)
		opts := badger.DefaultIteratorOptions
		opts.Prefix = prefix
		opts.PrefetchValues = false
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			key := it.Item().KeyCopy(nil)
			group, rel, seq, ok := parsePendingKey(key)
			if !ok {
				continue
			}
			pub, seen := published[group]
			if !seen {
				_, err := txn.Get(groupKey(group))
				if err != nil && !errors.Is(err, badger.ErrKeyNotFound) {
					return err
				}
				pub = err == nil
				published[group] = pub
			}
			if !pub {
				unpublished = append(unpublished, chunkKey(rel, seq))
			}
			markers = append(markers, key)
		}
		return nil
	})
	if err != nil {
		return storageError("recover data directory "+s.dir, err)
	}
	if len(markers) == 0 {
		return nil
	}
	// Chunks first: a crash in between leaves markers, and the next Open
	// deletes (again) what they point to.
	if err := s.deleteKeys(unpublished); err != nil {
		return storageError("recover data directory "+s.dir, err)
	}
	if err := s.deleteKeys(markers); err != nil {
		return storageError("recover data directory "+s.dir, err)
	}
	return s.durable()
}

func (s *Store) deleteKeys(keys [][]byte) error {
	if len(keys) == 0 {
		return nil
	}
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	for _, k := range keys {
		if err := wb.Delete(k); err != nil {
			return err
		}
	}
	return wb.Flush()
}

// pendingMarkers lists the markers (and the chunk keys they name) of group.
func (s *Store) pendingMarkers(group uint64) (markers, chunks [][]byte, err error) {
	prefix := groupPendingPrefix(group)
	err = s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = prefix
		opts.PrefetchValues = false
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			key := it.Item().KeyCopy(nil)
			_, rel, seq, ok := parsePendingKey(key)
			if !ok {
				continue
			}
			markers = append(markers, key)
			chunks = append(chunks, chunkKey(rel, seq))
		}
		return nil
	})
	return markers, chunks, err
}

// abandonGroup deletes, best effort, what a failed multi-part commit wrote.
// Whatever it cannot delete is invisible anyway and goes at the next Open.
func (s *Store) abandonGroup(group uint64) {
	markers, chunks, err := s.pendingMarkers(group)
	if err != nil {
		return
	}
	if s.deleteKeys(chunks) == nil {
		_ = s.deleteKeys(markers)
	}
}

// forgetPendingMarkers removes the markers of a published group; the chunks
// stay visible through the group's commit record. Best effort: leftovers are
// removed at the next Open.
func (s *Store) forgetPendingMarkers(group uint64) {
	markers, _, err := s.pendingMarkers(group)
	if err == nil {
		_ = s.deleteKeys(markers)
	}
}
