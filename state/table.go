package state

import (
	"errors"
	"sort"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dgraph-io/badger/v4"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// pendingChunk is a chunk appended in a transaction not yet committed.
type pendingChunk struct {
	rel   uint32
	seq   uint64
	rows  int64
	data  []byte            // header + IPC stream
	crc   uint32            // CRC-32C of the IPC stream
	batch arrow.RecordBatch // retained; goes into the cache after commit
}

// AppendChunks appends each batch as one chunk of relation rel when the
// transaction commits. The batches are encoded now (the caller may release
// them afterwards) and, after a successful commit, join the relation's
// cache without being decoded again.
func (t *Txn) AppendChunks(rel uint32, batches []arrow.RecordBatch) error {
	if t.done {
		return errTxnDone
	}
	if !t.update {
		return &sqlerr.Error{Code: sqlerr.ReadOnlyTransaction, Message: "cannot append to a table in a read-only transaction"}
	}
	for _, b := range batches {
		if b.NumRows() == 0 {
			continue
		}
		data, crc, err := encodeChunk(b)
		if err != nil {
			return err
		}
		seq, err := t.s.NextID("chunk")
		if err != nil {
			return err
		}
		b.Retain()
		t.chunks = append(t.chunks, pendingChunk{rel: rel, seq: seq, rows: b.NumRows(), data: data, crc: crc, batch: b})
	}
	return nil
}

// tableCache holds the decoded, committed chunks of one relation in
// sequence order. Chunks are immutable, so each is decoded at most once;
// committed appends are added without decoding.
type tableCache struct {
	mu      sync.RWMutex
	loaded  bool
	seqs    []uint64
	batches []arrow.RecordBatch
	rows    int64
	bytes   int64
}

func (s *Store) table(rel uint32) *tableCache {
	s.tablesMu.Lock()
	defer s.tablesMu.Unlock()
	tc, ok := s.tables[rel]
	if !ok {
		tc = &tableCache{}
		s.tables[rel] = tc
	}
	return tc
}

// ScanTable returns every committed chunk of rel in append order. The
// caller owns one reference to each batch (it may Release them, and need
// not). If schema is not nil, the stored batches must have its column
// types.
func (s *Store) ScanTable(rel uint32, schema *arrow.Schema) ([]arrow.RecordBatch, error) {
	return s.ScanTableFrom(rel, schema, 0)
}

// ScanTableFrom is ScanTable without the first `from` chunks (a streaming
// table reads only what follows its offset, so an epoch costs its new
// chunks, not the whole table). A `from` past the end returns nothing.
func (s *Store) ScanTableFrom(rel uint32, schema *arrow.Schema, from int) ([]arrow.RecordBatch, error) {
	tc, err := s.loadedTable(rel)
	if err != nil {
		return nil, s.relationError(err)
	}
	defer tc.mu.RUnlock()
	from = min(max(from, 0), len(tc.batches))
	out := make([]arrow.RecordBatch, len(tc.batches)-from)
	copy(out, tc.batches[from:])
	var checked *arrow.Schema // batches of one relation mostly share one schema
	var widened map[*arrow.Schema][]int
	for _, b := range out {
		if schema == nil || b.Schema() == checked || widened[b.Schema()] != nil {
			continue
		}
		if sameColumnTypes(schema, b.Schema()) {
			checked = b.Schema()
			continue
		}
		// A chunk written before the relation's columns changed by name
		// (a files source's schema evolution widened a streaming table):
		// read by name (table_byname.go).
		m, ok := columnsByName(schema, b.Schema())
		if !ok {
			return nil, &sqlerr.Error{Code: sqlerr.InternalError,
				Message: "stored data of " + fmtRel(rel) + " does not match its definition",
				Detail:  "stored: " + b.Schema().String() + "; expected: " + schema.String()}
		}
		if widened == nil {
			widened = map[*arrow.Schema][]int{}
		}
		widened[b.Schema()] = m
	}
	for i, b := range out {
		if m := widened[b.Schema()]; m != nil {
			out[i] = fitByName(schema, b, m)
			continue
		}
		b.Retain()
	}
	return out, nil
}

// TableStats returns the number of rows and encoded bytes of rel's
// committed chunks.
func (s *Store) TableStats(rel uint32) (rows, bytes int64, err error) {
	tc, err := s.loadedTable(rel)
	if err != nil {
		return 0, 0, s.relationError(err)
	}
	defer tc.mu.RUnlock()
	return tc.rows, tc.bytes, nil
}

func sameColumnTypes(want, got *arrow.Schema) bool {
	if want.NumFields() != got.NumFields() {
		return false
	}
	for i := 0; i < want.NumFields(); i++ {
		if !arrow.TypeEqual(want.Field(i).Type, got.Field(i).Type) {
			return false
		}
	}
	return true
}

// loadedTable returns rel's cache read-locked, loading it first if needed.
// The load holds the write lock from before its read snapshot until the
// cache is filled; publishChunks takes the same lock after its commit, so a
// commit is either in the snapshot or added after the load, never lost.
func (s *Store) loadedTable(rel uint32) (*tableCache, error) {
	for {
		tc := s.table(rel)
		tc.mu.RLock()
		if tc.loaded {
			return tc, nil
		}
		tc.mu.RUnlock()
		tc.mu.Lock()
		if !tc.loaded {
			if err := s.load(rel, tc); err != nil {
				tc.mu.Unlock()
				return nil, err
			}
		}
		tc.mu.Unlock()
		// Evicted (table dropped) between Unlock and RLock: start over.
	}
}

func (s *Store) load(rel uint32, tc *tableCache) error {
	err := s.readChunks(rel, func(seq uint64, b arrow.RecordBatch, size int) {
		tc.seqs = append(tc.seqs, seq)
		tc.batches = append(tc.batches, b)
		tc.rows += b.NumRows()
		tc.bytes += int64(size)
	})
	if err != nil {
		tc.release()
		return err
	}
	tc.loaded = true
	return nil
}

// ReadChunks decodes rel's committed chunks in append order without
// caching them: a streaming table's state snapshot is read once, at start,
// and kept nowhere else. The batches may have different schemas.
func (s *Store) ReadChunks(rel uint32) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	err := s.readChunks(rel, func(_ uint64, b arrow.RecordBatch, _ int) { out = append(out, b) })
	if err != nil {
		for _, b := range out {
			b.Release()
		}
		return nil, s.relationError(err)
	}
	return out, nil
}

// readChunks calls fn with every published chunk of rel, in order. Damage
// (a chunk or value-log entry failing its checksum, a chunk that does not
// decode, the relation's keys in a damaged table file) is a *corruption.
func (s *Store) readChunks(rel uint32, fn func(seq uint64, b arrow.RecordBatch, size int)) error {
	prefix := tablePrefix(rel)
	if c := s.damageIn(rel, prefix, prefixEnd(prefix)); c != nil {
		return c
	}
	err := s.db.View(func(txn *badger.Txn) error {
		groups := map[uint64]bool{}
		opts := badger.DefaultIteratorOptions
		opts.Prefix = prefix
		opts.PrefetchValues = false
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			item := it.Item()
			_, seq, ok := parseChunkKey(item.Key())
			if !ok {
				continue
			}
			var damage error // a chunk's own damage, told apart from Badger's errors
			err := item.Value(func(v []byte) error {
				// The checksum first: a damaged commit group must not make
				// the chunk look unpublished and be skipped.
				if !s.opts.noVerify {
					if err := checkChunk(v); err != nil {
						damage = err
						return err
					}
				}
				h, _ := parseChunkHeader(v)
				if h.group != 0 {
					published, seen := groups[h.group]
					if !seen {
						if c := s.damageAt(rel, groupKey(h.group)); c != nil {
							return c
						}
						gk := groupKey(h.group)
						_, err := txn.Get(gk)
						if err != nil && !errors.Is(err, badger.ErrKeyNotFound) {
							return err
						}
						if err != nil { // "not found" may be a damaged block
							if c := s.recheckRange(rel, gk, append(gk, 0)); c != nil {
								return c
							}
						}
						published = err == nil
						groups[h.group] = published
					}
					if !published {
						return nil
					}
				}
				b, err := decodeCheckedChunk(v)
				if err != nil {
					damage = err
					return err
				}
				fn(seq, b, len(v))
				return nil
			})
			if damage != nil {
				if file := s.logger.vlogFailure(item.Key()); file != "" {
					// Badger failed to read the value and handed over nothing.
					return newCorruption(rel, "data checksum mismatch in value log", item.Key(), file)
				}
				return newCorruption(rel, damage.Error(), item.Key(), "")
			}
			var c *corruption
			if errors.As(err, &c) {
				return c
			}
			if err != nil {
				if c := badgerCorruption(rel, item.Key(), err); c != nil {
					return c
				}
				return err
			}
		}
		// An iteration that met a damaged block ended early, silently.
		if c := s.recheckRange(rel, prefix, prefixEnd(prefix)); c != nil {
			return c
		}
		return nil
	})
	if err != nil {
		var c *corruption
		if errors.As(err, &c) {
			return c
		}
		return storageError("read "+fmtRel(rel), err)
	}
	return nil
}

func (tc *tableCache) release() {
	for _, b := range tc.batches {
		b.Release()
	}
	tc.seqs, tc.batches, tc.rows, tc.bytes, tc.loaded = nil, nil, 0, 0, false
}

// publishChunks adds committed chunks to the caches that are loaded; an
// unloaded cache will read them from the store. It takes over the chunks'
// batch references.
func (s *Store) publishChunks(chunks []pendingChunk) {
	for i := range chunks {
		c := &chunks[i]
		tc := s.table(c.rel)
		tc.mu.Lock()
		if tc.loaded {
			tc.insert(c)
		} else {
			c.batch.Release()
		}
		c.batch = nil
		tc.mu.Unlock()
	}
}

func (tc *tableCache) insert(c *pendingChunk) {
	i := sort.Search(len(tc.seqs), func(i int) bool { return tc.seqs[i] >= c.seq })
	if i < len(tc.seqs) && tc.seqs[i] == c.seq {
		c.batch.Release() // already read from the store by a load
		return
	}
	tc.seqs = append(tc.seqs, 0)
	copy(tc.seqs[i+1:], tc.seqs[i:])
	tc.seqs[i] = c.seq
	tc.batches = append(tc.batches, nil)
	copy(tc.batches[i+1:], tc.batches[i:])
	tc.batches[i] = c.batch
	tc.rows += c.rows
	tc.bytes += int64(len(c.data))
}

func (s *Store) evictTable(rel uint32) {
	s.tablesMu.Lock()
	tc, ok := s.tables[rel]
	delete(s.tables, rel)
	s.tablesMu.Unlock()
	if ok {
		tc.mu.Lock()
		tc.release()
		tc.mu.Unlock()
	}
}
