package state

import (
	"errors"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dgraph-io/badger/v4"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Txn is one transaction on the store. A read-only Txn (Begin(false)) sees
// a consistent snapshot; an update Txn buffers all its writes and makes them
// visible and durable together at Commit. Not safe for concurrent use.
//
// Writes made with Set and Delete go into one Badger transaction and are
// limited by its size (15% of the memtable, ErrTxnTooBig → 54000). Table
// chunks appended with AppendChunks are not limited: Commit splits them into
// parts when needed (see Commit).
type Txn struct {
	s      *Store
	btx    *badger.Txn
	update bool
	done   bool

	// writes is the log of Set/Delete, replayed into a fresh Badger
	// transaction when chunks overflowed the first one.
	writes []write
	chunks []pendingChunk
	// dropped relations: their caches are evicted after commit.
	dropped []uint32
	// group is the multi-part commit group once FlushChunks has written
	// parts (0 before); flushed are the relations those parts belong to.
	group   uint64
	flushed []uint32
	parts   int // parts written so far
	// damageAfter is the store's damage list once the commit deleted the
	// damage records of dropped relations (nil: unchanged).
	damageAfter *[]damagedFile
}

type write struct {
	key, val []byte
	del      bool
}

// Begin starts a transaction; update says whether it may write.
func (s *Store) Begin(update bool) *Txn {
	return &Txn{s: s, btx: s.db.NewTransaction(update), update: update}
}

var errTxnDone = &sqlerr.Error{Code: sqlerr.InternalError, Message: "state transaction already finished"}

// ErrNotFound is returned by Get for a missing key.
var ErrNotFound = errors.New("state: key not found")

// Get returns a copy of the value of key, or ErrNotFound. It sees the
// transaction's own writes.
func (t *Txn) Get(key []byte) ([]byte, error) {
	if t.done {
		return nil, errTxnDone
	}
	if c := t.s.damageAt(0, key); c != nil {
		return nil, t.s.relationError(c)
	}
	item, err := t.btx.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		// A Get whose key is in a damaged block says "not found".
		if c := t.s.recheckRange(0, key, append(append([]byte(nil), key...), 0)); c != nil {
			return nil, t.s.relationError(c)
		}
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, t.s.readError(key, err)
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return nil, t.s.readError(key, err)
	}
	if err := t.s.lostValue(key, v); err != nil {
		return nil, err
	}
	return v, nil
}

// Set writes key = val at commit. key and val must not be modified
// afterwards.
func (t *Txn) Set(key, val []byte) error {
	if t.done {
		return errTxnDone
	}
	if err := t.btx.Set(key, val); err != nil {
		return storageError("write", err)
	}
	t.writes = append(t.writes, write{key: key, val: val})
	return nil
}

// Delete removes key at commit.
func (t *Txn) Delete(key []byte) error {
	if t.done {
		return errTxnDone
	}
	if err := t.btx.Delete(key); err != nil {
		return storageError("write", err)
	}
	t.writes = append(t.writes, write{key: key, del: true})
	return nil
}

// IteratePrefix calls fn for every key with the prefix, in key order, until
// fn returns an error. key and val are valid only during the call.
func (t *Txn) IteratePrefix(prefix []byte, fn func(key, val []byte) error) error {
	if t.done {
		return errTxnDone
	}
	if c := t.s.damageIn(0, prefix, prefixEnd(prefix)); c != nil {
		return t.s.relationError(c)
	}
	opts := badger.DefaultIteratorOptions
	opts.Prefix = prefix
	it := t.btx.NewIterator(opts)
	defer it.Close()
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		item := it.Item()
		var fnErr error
		err := item.Value(func(v []byte) error {
			if err := t.s.lostValue(item.Key(), v); err != nil {
				return err
			}
			fnErr = fn(item.Key(), v)
			return nil
		})
		var se *sqlerr.Error
		if errors.As(err, &se) {
			return se
		}
		if err != nil {
			return t.s.readError(item.Key(), err)
		}
		if fnErr != nil {
			return fnErr
		}
	}
	// An iteration that met a damaged block ended early, silently.
	if c := t.s.recheckRange(0, prefix, prefixEnd(prefix)); c != nil {
		return t.s.relationError(c)
	}
	return nil
}

// Discard abandons the transaction. It is a no-op after Commit, so it can
// be deferred.
func (t *Txn) Discard() {
	if t.done {
		return
	}
	t.done = true
	t.btx.Discard()
	t.releaseChunks()
	if t.group != 0 {
		t.s.abandonGroup(t.group) // parts written by FlushChunks
	}
}

func (t *Txn) releaseChunks() {
	for i := range t.chunks {
		if t.chunks[i].batch != nil {
			t.chunks[i].batch.Release()
			t.chunks[i].batch = nil
		}
	}
	t.chunks = nil
}

// Commit makes all writes of the transaction visible and durable at once.
//
// When the appended chunks fit one Badger transaction they are committed
// with the other writes in it. Otherwise (more than Options.PartBytes or
// PartChunks, or Badger reports ErrTxnTooBig) the commit has several parts:
// the chunks are written in part transactions, each chunk carrying the
// number of the commit group in its header and a pending marker p/<group>/…;
// then one last transaction writes the commit record g/<group> together with
// the ordinary writes. Readers show a chunk of a group only if the group's
// record exists, and Open deletes the chunks of groups without a record, so
// a crash between parts leaves nothing visible.
func (t *Txn) Commit() error {
	if t.done {
		return errTxnDone
	}
	t.done = true
	if !t.update {
		t.btx.Discard()
		t.releaseChunks()
		return nil
	}
	start := time.Now()
	err := t.commit()
	if err != nil {
		t.releaseChunks()
		if t.group != 0 {
			t.s.abandonGroup(t.group)
		}
		return err
	}
	t.s.observeCommit(start) // observer.go
	// The flushed parts are in the store only: a loaded cache of their
	// relation is dropped (the next read loads it with them) before the
	// last chunks are published, so no reader sees half of the commit.
	for _, rel := range t.flushed {
		t.s.evictTable(rel)
	}
	t.s.publishChunks(t.chunks)
	t.chunks = nil
	for _, rel := range t.dropped {
		t.s.evictTable(rel)
	}
	if t.damageAfter != nil {
		t.s.damagedMu.Lock()
		if len(*t.damageAfter) == 0 {
			t.s.damaged.Store(nil)
		} else {
			t.s.damaged.Store(t.damageAfter)
		}
		t.s.damagedMu.Unlock()
	}
	return nil
}

func (t *Txn) commit() error {
	var bytes int64
	for _, c := range t.chunks {
		bytes += int64(len(c.data))
	}
	for _, w := range t.writes {
		bytes += int64(len(w.key) + len(w.val))
	}
	if err := t.s.checkSpace(bytes); err != nil {
		t.btx.Discard()
		return err
	}
	if t.group != 0 {
		// FlushChunks already wrote parts: the rest follows as parts of
		// the same group, then its record.
		return t.commitInParts()
	}
	if bytes <= t.s.opts.PartBytes && len(t.chunks) <= t.s.opts.PartChunks {
		err := t.setChunks(t.btx, t.chunks, 0)
		if err == nil {
			if err = t.btx.Commit(); err != nil {
				return storageError("commit", err)
			}
			return t.s.durable()
		}
		if !errors.Is(err, badger.ErrTxnTooBig) {
			t.btx.Discard()
			return storageError("commit", err)
		}
		// The chunks did not fit after all: start over with the ordinary
		// writes alone, and commit the chunks in parts.
		t.btx.Discard()
		t.btx = t.s.db.NewTransaction(true)
		for _, w := range t.writes {
			if w.del {
				err = t.btx.Delete(w.key)
			} else {
				err = t.btx.Set(w.key, w.val)
			}
			if err != nil {
				t.btx.Discard()
				return storageError("commit", err)
			}
		}
	}
	return t.commitInParts()
}

// setChunks writes chunks into btx stamped with group (0 = not part of a
// multi-part commit).
func (t *Txn) setChunks(btx *badger.Txn, chunks []pendingChunk, group uint64) error {
	for i := range chunks {
		c := &chunks[i]
		putChunkHeader(c.data, group, c.rows, c.crc)
		if err := btx.Set(chunkKey(c.rel, c.seq), c.data); err != nil {
			return err
		}
		if group != 0 {
			if err := btx.Set(pendingKey(group, c.rel, c.seq), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeParts writes all pending chunks as parts of the transaction's
// commit group, starting the group if needed. On error the caller abandons
// the group.
func (t *Txn) writeParts() error {
	s := t.s
	if t.group == 0 {
		group, err := s.NextID("commit group")
		if err != nil {
			return err
		}
		t.group = group
	}
	written := 0 // chunks already committed in parts
	for written < len(t.chunks) {
		if s.opts.failAfterParts > 0 && t.parts == s.opts.failAfterParts {
			t.group = 0 // a crash: the parts stay for Open to remove
			return &sqlerr.Error{Code: sqlerr.IOError, Message: "simulated crash between commit parts"}
		}
		end, bytes := written, int64(0)
		for end < len(t.chunks) && end-written < s.opts.PartChunks &&
			(end == written || bytes+int64(len(t.chunks[end].data)) <= s.opts.PartBytes) {
			bytes += int64(len(t.chunks[end].data))
			end++
		}
		n, err := t.writePart(t.group, t.chunks[written:end])
		if err != nil {
			return err
		}
		written += n
		t.parts++
	}
	return nil
}

func (t *Txn) commitInParts() error {
	s := t.s
	if err := t.writeParts(); err != nil {
		t.btx.Discard()
		return err
	}
	group := t.group
	// The parts must be durable before the record that publishes them.
	if err := s.durable(); err != nil {
		t.btx.Discard()
		s.abandonGroup(group)
		return err
	}
	if err := t.btx.Set(groupKey(group), nil); err != nil {
		t.btx.Discard()
		s.abandonGroup(group)
		return storageError("commit", err)
	}
	if err := t.btx.Commit(); err != nil {
		s.abandonGroup(group)
		return storageError("commit", err)
	}
	t.group = 0 // committed: nothing to abandon whatever follows
	if err := s.durable(); err != nil {
		return err
	}
	s.forgetPendingMarkers(group)
	return nil
}

// writePart commits a prefix of chunks (all of them unless Badger's
// transaction limit cuts the part short) and returns how many it wrote.
func (t *Txn) writePart(group uint64, chunks []pendingChunk) (int, error) {
	ptx := t.s.db.NewTransaction(true)
	defer ptx.Discard()
	n := 0
	for i := range chunks {
		err := t.setChunks(ptx, chunks[i:i+1], group)
		if errors.Is(err, badger.ErrTxnTooBig) && n > 0 {
			break
		}
		if err != nil {
			return 0, storageError("commit", err)
		}
		n++
	}
	if err := ptx.Commit(); err != nil {
		return 0, storageError("commit", err)
	}
	return n, nil
}

// DropTable deletes every chunk of rel when tx commits, and then forgets
// the relation's cached batches.
func (t *Txn) DropTable(rel uint32) error {
	if t.done {
		return errTxnDone
	}
	kept := t.chunks[:0]
	for _, c := range t.chunks {
		if c.rel == rel {
			c.batch.Release()
			continue
		}
		kept = append(kept, c)
	}
	t.chunks = kept
	prefix := tablePrefix(rel)
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = prefix
	it := t.btx.NewIterator(opts)
	var keys [][]byte
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		keys = append(keys, it.Item().KeyCopy(nil))
	}
	it.Close()
	for _, k := range keys {
		if err := t.Delete(k); err != nil {
			return err
		}
	}
	t.dropped = append(t.dropped, rel)
	if t.s.damaged.Load() != nil {
		kept, err := t.dropDamageRecords(rel)
		if err != nil {
			return err
		}
		t.damageAfter = &kept
	}
	return nil
}

// DropTable is Txn.DropTable in the form the catalog calls it.
func DropTable(tx *Txn, rel uint32) error { return tx.DropTable(rel) }

// AppendChunks is tx.AppendChunks(rel, batches).
func AppendChunks(tx *Txn, rel uint32, batches []arrow.RecordBatch) error {
	return tx.AppendChunks(rel, batches)
}
