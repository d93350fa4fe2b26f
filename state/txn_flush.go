package state

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dgraph-io/badger/v4"
)

// Streaming a large append into a transaction: a COPY of gigabytes must
// not hold its whole input until Commit. FlushChunks writes what was
// appended so far as parts of the transaction's multi-part commit group
// (the same parts, markers and final record Commit uses for an oversized
// transaction) and lets the memory go. Nothing becomes visible before the
// group's record, which Commit writes last; Discard, a failed Commit or a
// crash (Open) removes the parts.

// PendingChunkBytes is the encoded size of the chunks appended and not yet
// flushed: what the transaction holds in memory for them (besides the
// batches themselves).
func (t *Txn) PendingChunkBytes() int64 {
	var n int64
	for _, c := range t.chunks {
		n += int64(len(c.data))
	}
	return n
}

// FlushChunks writes the pending chunks to the store as parts of the
// transaction's commit group and releases them. The rows stay invisible
// until Commit; the relations' caches are reloaded after it.
func (t *Txn) FlushChunks() error {
	if t.done {
		return errTxnDone
	}
	if len(t.chunks) == 0 {
		return nil
	}
	if err := t.s.checkSpace(t.PendingChunkBytes()); err != nil {
		return err
	}
	if err := t.writeParts(); err != nil {
		return err
	}
	for _, c := range t.chunks {
		t.noteFlushed(c.rel)
	}
	t.releaseChunks()
	return nil
}

func (t *Txn) noteFlushed(rel uint32) {
	for _, r := range t.flushed {
		if r == rel {
			return
		}
	}
	t.flushed = append(t.flushed, rel)
}

// OwnChunks returns the rows rel has gained in this transaction, flushed
// or not, in append order: what a statement later in the same transaction
// block reads besides the committed rows. Flushed chunks are read back
// from the store.
func (t *Txn) OwnChunks(rel uint32) ([]arrow.RecordBatch, error) {
	if t.done {
		return nil, errTxnDone
	}
	var out []arrow.RecordBatch
	if t.group != 0 {
		prefix := binary.BigEndian.AppendUint32(groupPendingPrefix(t.group), rel)
		err := t.s.db.View(func(txn *badger.Txn) error {
			opts := badger.DefaultIteratorOptions
			opts.Prefix = prefix
			opts.PrefetchValues = false
			it := txn.NewIterator(opts)
			defer it.Close()
			for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
				_, r, seq, ok := parsePendingKey(it.Item().Key())
				if !ok || r != rel {
					continue
				}
				item, err := txn.Get(chunkKey(rel, seq))
				if err != nil {
					return err
				}
				if err := item.Value(func(v []byte) error {
					b, err := decodeChunk(v)
					if err == nil {
						out = append(out, b)
					}
					return err
				}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, storageError("read "+fmtRel(rel), err)
		}
	}
	for _, c := range t.chunks {
		if c.rel == rel {
			c.batch.Retain()
			out = append(out, c.batch)
		}
	}
	return out, nil
}
