package exec

import (
	"bufio"
	"context"
	"os"
	"sort"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// partitionStore holds one window partition larger than work_mem: its
// rows in window order, written once to a spill file under the query's
// spill directory (the Arrow IPC file format, whose footer indexes the
// chunks so that any chunk can be read again), then read back chunk by
// chunk through a small cache. It is PostgreSQL's tuplestore of the
// current partition: the frame computation moves several read positions
// (the current row, a frame's head and tail, lag and lead) through it,
// mostly forward, and the cache keeps the chunks those positions are in.
//
// The rows are the stage's input columns, then each call's evaluated
// arguments (evaluated once, as the rows were written: volatile arguments
// are read once per row as in PostgreSQL), then the peer group number of
// the row (0, 1, ... in window order).
//
// Contract: append until finish, then chunk; close removes the file and
// gives back the memory, whatever state the store is in.
type partitionStore struct {
	ctx    context.Context
	env    *Env
	schema *arrow.Schema
	mem    *memAccount // the cached chunks

	f   *os.File
	buf *bufio.Writer
	w   *ipc.FileWriter
	rd  *ipc.FileReader

	starts    []int64 // first row of each chunk
	rows      int64
	lastGroup int64 // peer group number of the last row
	cache     []storedChunk
}

// storedChunk is one chunk read back: rows [start, start+rows of b).
type storedChunk struct {
	start int64
	b     arrow.RecordBatch
	bytes int64
}

// partitionCacheChunks is how many chunks a store keeps read: the current
// row's, a frame's head and tail, lag's and lead's, and the one a peer
// group's end is looked for in, with room to spare. Reading a chunk again
// costs a read of the file, not a recomputation.
const partitionCacheChunks = 8

// partitionStoresMade counts the partitions that went to disk (tests).
var partitionStoresMade atomic.Int64

func newPartitionStore(ctx context.Context, env *Env, schema *arrow.Schema, mem *memAccount) (*partitionStore, error) {
	f, err := env.Memory.newSpillFile("window-partition")
	if err != nil {
		return nil, err
	}
	partitionStoresMade.Add(1)
	buf := bufio.NewWriterSize(f, 256<<10)
	w, err := ipc.NewFileWriter(buf, ipc.WithSchema(schema), ipc.WithAllocator(env.exprCtx().Allocator()))
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, spillIOError(err)
	}
	return &partitionStore{ctx: ctx, env: env, schema: schema, mem: mem, f: f, buf: buf, w: w, lastGroup: -1}, nil
}

// append writes rows (of the store's schema) at the end of the partition.
func (p *partitionStore) append(b arrow.RecordBatch) error {
	if b.NumRows() == 0 {
		return nil
	}
	if err := p.w.Write(b); err != nil {
		return spillIOError(err)
	}
	p.starts = append(p.starts, p.rows)
	p.rows += b.NumRows()
	return nil
}

// finish ends writing; the chunks can be read from now on.
func (p *partitionStore) finish() error {
	err := p.w.Close()
	p.w = nil
	if err == nil {
		err = p.buf.Flush()
	}
	if err == nil {
		p.rd, err = ipc.NewFileReader(p.f, ipc.WithAllocator(p.env.exprCtx().Allocator()))
	}
	if err != nil {
		return spillIOError(err)
	}
	return nil
}

// chunk returns the chunk holding row r and the row number of its first
// row. The batch is valid until the next call of chunk (it may be dropped
// from the cache then); a caller that needs it longer retains it.
func (p *partitionStore) chunk(r int64) (arrow.RecordBatch, int64, error) {
	for i := len(p.cache) - 1; i >= 0; i-- {
		c := p.cache[i]
		if r >= c.start && r < c.start+c.b.NumRows() {
			if i != len(p.cache)-1 { // most recently used last
				copy(p.cache[i:], p.cache[i+1:])
				p.cache[len(p.cache)-1] = c
			}
			return c.b, c.start, nil
		}
	}
	if err := checkCancel(p.ctx, p.env); err != nil {
		return nil, 0, err
	}
	idx := sort.Search(len(p.starts), func(i int) bool { return p.starts[i] > r }) - 1
	b, err := p.rd.RecordBatchAt(idx)
	if err != nil {
		return nil, 0, spillIOError(err)
	}
	c := storedChunk{start: p.starts[idx], b: b, bytes: batchBytes(b)}
	if len(p.cache) == partitionCacheChunks {
		old := p.cache[0]
		copy(p.cache, p.cache[1:])
		p.cache = p.cache[:len(p.cache)-1]
		old.b.Release()
		p.mem.shrink(old.bytes)
	}
	p.cache = append(p.cache, c)
	if err := p.mem.grow(c.bytes); err != nil {
		return nil, 0, err
	}
	return c.b, c.start, nil
}

// close drops the cached chunks and removes the file.
func (p *partitionStore) close() {
	for _, c := range p.cache {
		c.b.Release()
		p.mem.shrink(c.bytes)
	}
	p.cache = nil
	if p.w != nil {
		p.w.Close()
		p.w = nil
	}
	if p.rd != nil {
		p.rd.Close()
		p.rd = nil
	}
	if p.f != nil {
		p.f.Close()
		os.Remove(p.f.Name())
		p.f = nil
	}
}
