package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// spillFanOut is how many partitions one spill pass writes; the
// partition of a row is 4 bits of its key's hash, different bits at each
// level of recursion.
const (
	spillFanOut     = 16
	maxSpillLevel   = 14
	spillLevelShift = 4
)

// spillPartition picks the partition of a hash at a recursion level: the
// high bits, as the table's slots use the low ones.
func spillPartition(h uint64, level int) int {
	return int(h>>(64-spillLevelShift*(level+1))) & (spillFanOut - 1)
}

// partitionWriters writes rows to spillFanOut spill files by hash.
type partitionWriters struct {
	env    *Env
	what   string
	schema *arrow.Schema
	level  int
	ws     [spillFanOut]*spillWriter
	idx    [spillFanOut][]int32
}

// add writes the rows sel of in (by their hashes) to their partitions.
func (p *partitionWriters) add(in arrow.RecordBatch, hashes []uint64, sel []int32) error {
	for i := range p.idx {
		p.idx[i] = p.idx[i][:0]
	}
	for _, r := range sel {
		k := spillPartition(hashes[r], p.level)
		p.idx[k] = append(p.idx[k], r)
	}
	mem := p.env.exprCtx().Allocator()
	for k, rows := range p.idx {
		if len(rows) == 0 {
			continue
		}
		if p.ws[k] == nil {
			w, err := newSpillWriter(p.env.Memory, p.what, p.schema)
			if err != nil {
				return err
			}
			p.ws[k] = w
		}
		b := takeBatch(mem, p.schema, in, rows)
		err := p.ws[k].write(b)
		b.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// finish closes the partitions that got rows and returns them.
func (p *partitionWriters) finish() ([]*spillFile, error) {
	byIndex, err := p.finishByIndex()
	if err != nil {
		return nil, err
	}
	var out []*spillFile
	for _, f := range byIndex {
		if f != nil {
			out = append(out, f)
		}
	}
	return out, nil
}

// finishByIndex closes the partitions and returns them by partition
// number, nil where no row went.
func (p *partitionWriters) finishByIndex() ([spillFanOut]*spillFile, error) {
	var out [spillFanOut]*spillFile
	var firstErr error
	for k, w := range p.ws {
		if w == nil {
			continue
		}
		p.ws[k] = nil
		if firstErr != nil {
			w.abandon()
			continue
		}
		f, err := w.finish()
		if err != nil {
			firstErr = err
			continue
		}
		out[k] = f
	}
	if firstErr != nil {
		for _, f := range out {
			if f != nil {
				f.remove()
			}
		}
		return [spillFanOut]*spillFile{}, firstErr
	}
	return out, nil
}

// abandon removes the partitions (on error).
func (p *partitionWriters) abandon() {
	for k, w := range p.ws {
		if w != nil {
			w.abandon()
			p.ws[k] = nil
		}
	}
}
