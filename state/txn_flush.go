package state

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
