package state

import (
	"encoding/binary"
	"errors"

	"github.com/dgraph-io/badger/v4"
)

// idLease is how many IDs one durable write reserves. A crash loses the rest
// of the lease: IDs stay unique and increasing but may have gaps.
const idLease = 128

// counter is the in-memory state of one durable counter: IDs in
// [next, leaseEnd) may be handed out without writing.
type counter struct {
	next, leaseEnd uint64
}

// NextID returns the next value of the durable, strictly increasing counter
// name. A fresh counter starts at 1 (see SetIDFloor). Values are never
// handed out twice, even across crashes; they may skip.
func (s *Store) NextID(name string) (uint64, error) {
	s.seqMu.Lock()
	defer s.seqMu.Unlock()
	c, err := s.counterLocked(name)
	if err != nil {
		return 0, err
	}
	if c.next >= c.leaseEnd {
		if err := s.leaseLocked(name, c, c.next+idLease); err != nil {
			return 0, err
		}
	}
	id := c.next
	c.next++
	return id, nil
}

// SetIDFloor makes the counter name return values >= floor from now on
// (e.g. OIDs start at 16384). It never moves a counter backwards.
func (s *Store) SetIDFloor(name string, floor uint64) error {
	s.seqMu.Lock()
	defer s.seqMu.Unlock()
	c, err := s.counterLocked(name)
	if err != nil {
		return err
	}
	if c.next >= floor {
		return nil
	}
	c.next = floor
	if c.leaseEnd < floor {
		return s.leaseLocked(name, c, floor+idLease)
	}
	return nil
}

func (s *Store) counterLocked(name string) (*counter, error) {
	if c, ok := s.counters[name]; ok {
		return c, nil
	}
	c := &counter{next: 1, leaseEnd: 1}
	if d := s.damageAt(0, sequenceKey(name)); d != nil {
		// A counter read as missing would hand out its IDs again.
		return nil, s.relationError(d)
	}
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(sequenceKey(name))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error {
			if len(v) == 8 {
				// Everything below the persisted lease end may have been
				// handed out before a crash.
				c.next = binary.BigEndian.Uint64(v)
				c.leaseEnd = c.next
			}
			return nil
		})
	})
	if err != nil {
		if d := badgerCorruption(0, sequenceKey(name), err); d != nil {
			return nil, s.relationError(d)
		}
		return nil, storageError("read counter "+name, err)
	}
	s.counters[name] = c
	return c, nil
}

// leaseLocked durably records end as the counter's lease end before any ID
// below it is handed out.
func (s *Store) leaseLocked(name string, c *counter, end uint64) error {
	err := s.db.Update(func(txn *badger.Txn) error {
		return txn.Set(sequenceKey(name), binary.BigEndian.AppendUint64(nil, end))
	})
	if err == nil {
		err = s.durable()
	}
	if err != nil {
		return storageError("advance counter "+name, err)
	}
	c.leaseEnd = end
	return nil
}
