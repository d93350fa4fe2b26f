package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
)

// blockNestedLoop is a nested-loop join (no equality keys) whose right
// side did not fit in work_mem. The right side is written once to a spill
// file; the left side is then read in blocks of about work_mem, and for
// each block the spilled right side is scanned once, every right batch
// paired with every left row of the block. Left rows are decided (kept by
// a semi join, padded with NULLs by a LEFT or FULL join, kept by an anti
// join) when the scan of their block ends; right rows no left row matched
// (RIGHT, FULL) come out after the last block, in one more scan. Memory is
// one left block, one right batch and a bit per right row.
//
// Pairs are checked in chunks of at most BatchSize, one chunk per step,
// so output streams and a cancel is seen between chunks.
type blockNestedLoop struct {
	j     *joinOp
	inner *spillFile // the right side, read once per block; removed by close
	mem   *memAccount

	// rightMatched has a bit per right row (RIGHT, FULL).
	rightMatched []uint64

	block        []arrow.RecordBatch // left rows of the current block
	blockMatched [][]bool
	blockBytes   int64
	leftDone     bool

	rd        *spillReader // the scan of the inner side for this block
	rb        arrow.RecordBatch
	rbase     int64 // right row number of rb's first row
	li, lr, r int   // next pair: block batch li, its row lr, rb's row r
	finalScan bool  // scanning for unmatched right rows
	done      bool

	lidx, ridx []int32
}

// spillInner switches the join to a block nested loop: the right rows
// held so far and the rest of the right input go to a spill file.
func (j *joinOp) spillInner(ctx context.Context, held []arrow.RecordBatch) error {
	w, err := newSpillWriter(j.env.Memory, "nestloop-inner", j.rightSchema)
	if err != nil {
		return err
	}
	for _, b := range held {
		if err := w.write(withSchema(j.rightSchema, b)); err != nil {
			w.abandon()
			return err
		}
	}
	j.mem.releaseAll()
	for {
		b, err := nextChecked(ctx, j.env, j.right)
		if err == nil && b != nil {
			err = w.write(withSchema(j.rightSchema, b))
		}
		if err != nil {
			w.abandon()
			return err
		}
		if b == nil {
			break
		}
	}
	f, err := w.finish()
	if err != nil {
		return err
	}
	bnl := &blockNestedLoop{j: j, inner: f, mem: newMemAccount(j.env, "NestedLoop join")}
	if k := j.plan.Kind; k == planner.RightJoin || k == planner.FullJoin {
		bnl.rightMatched = make([]uint64, (f.rows+63)/64)
		if err := bnl.mem.grow(int64(len(bnl.rightMatched)) * 8); err != nil {
			bnl.close()
			return err
		}
	}
	j.blocked = bnl
	return nil
}

func (b *blockNestedLoop) next(ctx context.Context) (arrow.RecordBatch, error) {
	j := b.j
	for {
		if out := j.out.pop(); out != nil {
			return out, nil
		}
		if err := checkCancel(ctx, j.env); err != nil {
			return nil, err
		}
		if b.done {
			return nil, nil
		}
		if err := b.step(ctx); err != nil {
			return nil, err
		}
	}
}

// step does one unit of work: reads a block, advances the inner scan by a
// batch, or checks one chunk of pairs.
func (b *blockNestedLoop) step(ctx context.Context) error {
	j := b.j
	if b.rd == nil {
		if !b.finalScan && len(b.block) == 0 {
			if err := b.readBlock(ctx); err != nil {
				return err
			}
			if len(b.block) == 0 {
				if b.rightMatched == nil {
					b.done = true
					return nil
				}
				b.finalScan = true
			}
		}
		rd, err := openSpillAgain(b.inner, j.env.exprCtx().Allocator())
		if err != nil {
			return err
		}
		b.rd, b.rbase = rd, 0
	}
	if b.rb == nil {
		rb, err := b.rd.next()
		if err != nil {
			return err
		}
		if rb == nil {
			b.rd.close()
			b.rd = nil
			if b.finalScan {
				b.done = true
				return nil
			}
			b.finishBlock()
			return nil
		}
		rb.Retain()
		b.rb, b.li, b.lr, b.r = rb, 0, 0, 0
		if b.finalScan {
			b.unmatchedRight()
			b.releaseRight()
		}
		return nil
	}
	if b.li >= len(b.block) {
		b.releaseRight()
		return nil
	}
	return b.checkChunk()
}

// readBlock reads left batches until they pass work_mem (at least one).
func (b *blockNestedLoop) readBlock(ctx context.Context) error {
	j := b.j
	for !b.leftDone {
		in, err := nextChecked(ctx, j.env, j.left)
		if err != nil {
			return err
		}
		if in == nil {
			b.leftDone = true
			break
		}
		if in.NumRows() == 0 {
			continue
		}
		in.Retain()
		n := batchBytes(in) + in.NumRows()
		b.block = append(b.block, in)
		b.blockMatched = append(b.blockMatched, make([]bool, in.NumRows()))
		b.blockBytes += n
		if err := b.mem.grow(n); err != nil {
			return err
		}
		if b.blockBytes > j.env.Memory.WorkMem() {
			break
		}
	}
	return nil
}

// checkChunk pairs left rows of the block with rows of the current right
// batch, at most BatchSize pairs, and queues what matches.
func (b *blockNestedLoop) checkChunk() error {
	j := b.j
	kind := j.plan.Kind
	semi := kind == planner.SemiJoin || kind == planner.AntiJoin
	nr := int(b.rb.NumRows())
	lb := b.block[b.li]
	matched := b.blockMatched[b.li]
	b.lidx, b.ridx = b.lidx[:0], b.ridx[:0]
	for len(b.lidx) < BatchSize && b.li < len(b.block) {
		if b.lr >= int(lb.NumRows()) {
			b.li, b.lr, b.r = b.li+1, 0, 0
			break // the next left batch starts a chunk of its own
		}
		if semi && matched[b.lr] {
			b.lr, b.r = b.lr+1, 0
			continue
		}
		take := min(nr-b.r, BatchSize-len(b.lidx))
		for k := 0; k < take; k++ {
			b.lidx = append(b.lidx, int32(b.lr))
			b.ridx = append(b.ridx, int32(b.r+k))
		}
		b.r += take
		if b.r >= nr {
			b.lr, b.r = b.lr+1, 0
		}
	}
	if len(b.lidx) == 0 {
		return nil
	}
	keep, out, err := j.matchPairs(lb, b.rb, b.lidx, b.ridx, semi)
	if err != nil {
		return err
	}
	for _, p := range keep {
		matched[b.lidx[p]] = true
		if b.rightMatched != nil {
			r := b.rbase + int64(b.ridx[p])
			b.rightMatched[r/64] |= 1 << (r % 64)
		}
	}
	if out != nil {
		j.out.push(out)
	}
	return nil
}

// releaseRight moves the inner scan past the current right batch.
func (b *blockNestedLoop) releaseRight() {
	if b.rb != nil {
		b.rbase += b.rb.NumRows()
		b.rb.Release()
		b.rb = nil
	}
}

// finishBlock queues the block's left rows that their match status
// decides and releases the block.
func (b *blockNestedLoop) finishBlock() {
	j := b.j
	mem := j.env.exprCtx().Allocator()
	kind := j.plan.Kind
	want := false // the matched or the unmatched rows
	switch kind {
	case planner.SemiJoin:
		want = true
	case planner.AntiJoin, planner.LeftJoin, planner.FullJoin:
	default:
		b.releaseBlock()
		return
	}
	var rows []int32
	for bi, in := range b.block {
		rows = rows[:0]
		for i, m := range b.blockMatched[bi] {
			if m == want {
				rows = append(rows, int32(i))
			}
		}
		for s := 0; s < len(rows); s += BatchSize {
			idx := rows[s:min(s+BatchSize, len(rows))]
			if kind == planner.SemiJoin || kind == planner.AntiJoin {
				j.out.push(takeBatch(mem, j.schema, in, idx))
				continue
			}
			none := make([]int32, len(idx))
			for k := range none {
				none[k] = -1
			}
			j.out.push(withSchema(j.schema, j.pairOf(in, nil, idx, none)))
		}
	}
	b.releaseBlock()
}

// unmatchedRight queues the rows of the current right batch that no left
// row matched, with NULL left columns.
func (b *blockNestedLoop) unmatchedRight() {
	j := b.j
	var rows []int32
	for i := 0; i < int(b.rb.NumRows()); i++ {
		r := b.rbase + int64(i)
		if b.rightMatched[r/64]&(1<<(r%64)) == 0 {
			rows = append(rows, int32(i))
		}
	}
	if len(rows) == 0 {
		return
	}
	empty := array.NewRecordBatch(j.leftSchema, emptyColumns(j.env, j.leftSchema), 0)
	j.out.push(withSchema(j.schema, j.pairOf(empty, b.rb, nil, rows)))
}

func (b *blockNestedLoop) releaseBlock() {
	for _, in := range b.block {
		in.Release()
	}
	b.block, b.blockMatched = b.block[:0], b.blockMatched[:0]
	b.mem.shrink(b.blockBytes)
	b.blockBytes = 0
}

// close releases what the join holds and removes the inner side's file.
func (b *blockNestedLoop) close() {
	if b.rd != nil {
		b.rd.close()
		b.rd = nil
	}
	if b.rb != nil {
		b.rb.Release()
		b.rb = nil
	}
	b.releaseBlock()
	b.inner.remove()
	b.mem.releaseAll()
}
