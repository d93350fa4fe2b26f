package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
)

// windowStageOp computes the window calls that share one window ordering
// (the same PARTITION BY and ORDER BY) over its input, which is already
// sorted into that order: PostgreSQL's WindowAgg over a Sort. It reads
// window partitions one after another. Complete partitions are gathered
// until they pass work_mem and then computed together in memory, by the
// same code as a window whose whole input fits (computeCalls, told the
// rows are in order already). A partition
// that alone passes work_mem is written to a partitionStore as it is read
// and computed from there chunk by chunk (spilledPartition), so the stage
// holds about work_mem plus a few batches whatever its input.
//
// Output: the input columns, then one column per call, in window order.
type windowStageOp struct {
	env      *Env
	calls    []planner.WindowCall
	input    Operator
	inSchema *arrow.Schema
	schema   *arrow.Schema
	mem      *memAccount

	partBy, orderBy []planner.SortKey
	// The partition keys of the previous batch read (retained), to find
	// whether the next batch starts a new partition.
	prev     arrow.RecordBatch
	prevKeys []colVec
	keys     []colVec

	// pending are the rows read and not yet computed, in window order;
	// the last partition among them (from row openStart) may go on in the
	// next batch.
	pending      []arrow.RecordBatch
	pendingBytes []int64
	pendingRows  int64
	openStart    int64

	// store is the partition being written (writing) or read back (read).
	store      *partitionStore
	writing    bool
	writeOrder []colVec // order keys of the last row written, for peer groups
	writePrev  arrow.RecordBatch
	writeGroup int64
	read       *spilledPartition

	out       queue
	outBytes  []int64
	inputDone bool
}

var _ Operator = (*windowStageOp)(nil)

func newWindowStageOp(env *Env, calls []planner.WindowCall, input Operator, inSchema, schema *arrow.Schema) *windowStageOp {
	st := &windowStageOp{env: env, calls: calls, input: input, inSchema: inSchema, schema: schema,
		mem: newMemAccount(env, "WindowAgg")}
	for _, e := range calls[0].PartitionBy {
		st.partBy = append(st.partBy, planner.SortKey{Expr: e})
	}
	st.orderBy = calls[0].OrderBy
	return st
}

// rowBytes is what computing the calls in memory adds to rows rows.
func (st *windowStageOp) rowBytes(rows int64) int64 {
	return rows * perRowWindowBytes * int64(len(st.calls))
}

func (st *windowStageOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if err := checkCancel(ctx, st.env); err != nil {
			return nil, err
		}
		if len(st.outBytes) > 0 { // the batch returned last is the caller's now
			st.mem.shrink(st.outBytes[0])
			st.outBytes = st.outBytes[1:]
		}
		if b := st.out.pop(); b != nil {
			return b, nil
		}
		if st.read != nil {
			b, err := st.read.next()
			if err != nil || b != nil {
				return b, err
			}
			st.read = nil
			st.store.close()
			st.store = nil
		}
		if st.inputDone {
			if st.pendingRows == 0 {
				return nil, nil
			}
			if err := st.computePending(ctx, st.pendingRows); err != nil {
				return nil, err
			}
			continue
		}
		b, err := nextChecked(ctx, st.env, st.input)
		if err != nil {
			return nil, err
		}
		if b == nil {
			st.inputDone = true
			if st.writing {
				if err := st.startReading(ctx); err != nil {
					return nil, err
				}
			}
			continue
		}
		if err := st.take(ctx, b); err != nil {
			return nil, err
		}
	}
}

// take adds one input batch: to the pending rows, or to the partition
// being written and, from the next partition on, to the pending rows.
func (st *windowStageOp) take(ctx context.Context, b arrow.RecordBatch) error {
	starts, err := st.partitionStarts(b)
	if err != nil {
		return err
	}
	n := b.NumRows()
	if st.writing {
		if len(starts) == 0 {
			return st.write(b)
		}
		first := starts[0]
		if first > 0 {
			head := b.NewSlice(0, first)
			err := st.write(head)
			head.Release()
			if err != nil {
				return err
			}
		}
		if err := st.startReading(ctx); err != nil {
			return err
		}
		rest := b.NewSlice(first, n)
		defer rest.Release()
		return st.hold(rest, starts[len(starts)-1]-first, shareOf(batchBytes(b), n-first, n))
	}
	last := int64(-1)
	if len(starts) > 0 {
		last = starts[len(starts)-1]
	}
	if err := st.hold(b, last, batchBytes(b)); err != nil {
		return err
	}
	if !st.mem.overWorkMem() {
		return nil
	}
	if st.openStart > 0 {
		if err := st.computePending(ctx, st.openStart); err != nil {
			return err
		}
	}
	if st.mem.overWorkMem() && st.pendingSize() > st.mem.q.workMem {
		// The open partition alone is past work_mem: it goes to disk.
		return st.spillOpen(ctx)
	}
	return nil
}

// pendingSize is what the pending rows take (without the output queued).
func (st *windowStageOp) pendingSize() int64 {
	var n int64
	for _, b := range st.pendingBytes {
		n += b
	}
	return n
}

// hold adds b to the pending rows; a partition starts at its row
// lastStart (-1: none does). bytes is what b's rows take: a slice counts
// its share of the buffers it points into.
func (st *windowStageOp) hold(b arrow.RecordBatch, lastStart, bytes int64) error {
	b.Retain()
	bytes += st.rowBytes(b.NumRows())
	st.pending = append(st.pending, b)
	st.pendingBytes = append(st.pendingBytes, bytes)
	if lastStart >= 0 {
		st.openStart = st.pendingRows + lastStart
	}
	st.pendingRows += b.NumRows()
	return st.mem.grow(bytes)
}

// shareOf is the part of bytes that rows of total rows take.
func shareOf(bytes, rows, total int64) int64 {
	if total == 0 {
		return 0
	}
	return bytes * rows / total
}

// partitionStarts returns the rows of b where a new partition starts (row
// 0 when b's first row is not in the partition of the previous batch's
// last row).
func (st *windowStageOp) partitionStarts(b arrow.RecordBatch) ([]int64, error) {
	if len(st.partBy) == 0 {
		return nil, nil
	}
	if err := loadKeys(st.env.exprCtx(), st.partBy, b, &st.keys); err != nil {
		return nil, err
	}
	var starts []int64
	if st.prev != nil && !sameKeys(st.prevKeys, int(st.prev.NumRows())-1, st.keys, 0) {
		starts = append(starts, 0)
	}
	for i := 1; i < int(b.NumRows()); i++ {
		if !sameKeys(st.keys, i-1, st.keys, i) {
			starts = append(starts, int64(i))
		}
	}
	b.Retain()
	if st.prev != nil {
		st.prev.Release()
	}
	st.prev = b
	st.prevKeys, st.keys = st.keys, st.prevKeys
	return starts, nil
}

// loadKeys evaluates keys over b into vecs.
func loadKeys(ectx *expr.Ctx, keys []planner.SortKey, b arrow.RecordBatch, vecs *[]colVec) error {
	if len(*vecs) != len(keys) {
		*vecs = make([]colVec, len(keys))
	}
	for k, key := range keys {
		arr, err := key.Expr.Eval(ectx, b)
		if err != nil {
			return err
		}
		(*vecs)[k].load(arr, key.Expr.Type(), true)
	}
	return nil
}

// sameKeys tells whether row i of a and row j of b have equal keys, NULL
// equal to NULL (the rows are in one partition, or are peers).
func sameKeys(a []colVec, i int, b []colVec, j int) bool {
	for k := range a {
		an, bn := a[k].isNull(i), b[k].isNull(j)
		if an || bn {
			if an && bn {
				continue
			}
			return false
		}
		if a[k].compare(i, &b[k], j) != 0 {
			return false
		}
	}
	return true
}

// computePending computes the first rows pending rows, whole partitions,
// in memory and queues them for output.
func (st *windowStageOp) computePending(ctx context.Context, rows int64) error {
	var batches []arrow.RecordBatch
	var got, held int64 // rows and bytes taken from pending
	for got < rows {
		b, bytes := st.pending[0], st.pendingBytes[0]
		n := b.NumRows()
		if got+n <= rows {
			batches = append(batches, b)
			held += bytes
			st.pending, st.pendingBytes = st.pending[1:], st.pendingBytes[1:]
			got += n
			continue
		}
		cut := rows - got
		batches = append(batches, b.NewSlice(0, cut))
		st.pending[0] = b.NewSlice(cut, n)
		b.Release()
		st.pendingBytes[0] = shareOf(bytes, n-cut, n)
		held += bytes - st.pendingBytes[0]
		got = rows
	}
	st.pendingRows -= rows
	st.openStart = max(0, st.openStart-rows)
	// The rows stay counted while they are computed (what computing adds
	// per row was counted with them), then the output is counted instead.
	defer st.mem.shrink(held)
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	all, err := concatBatches(st.env.exprCtx().Allocator(), st.inSchema, batches)
	if err != nil {
		return err
	}
	defer all.Release()
	_, cols, err := computeCalls(ctx, st.env, st.calls, all, true)
	if err != nil {
		return err
	}
	for _, b := range sliceBatches(array.NewRecordBatch(st.schema, append(append([]arrow.Array{}, all.Columns()...), cols...), all.NumRows())) {
		bytes := batchBytes(b)
		if err := st.mem.grow(bytes); err != nil {
			b.Release()
			return err
		}
		st.out.push(b)
		st.outBytes = append(st.outBytes, bytes)
	}
	return nil
}

// storeSchema is a partitionStore's schema for this stage: the input
// columns, each call's arguments, the peer group number.
func (st *windowStageOp) storeSchema() *arrow.Schema {
	fields := append([]arrow.Field{}, st.inSchema.Fields()...)
	for c, call := range st.calls {
		for a, e := range call.Args {
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("window_arg_%d_%d", c, a), Type: e.Type().Arrow(), Nullable: true})
		}
	}
	fields = append(fields, arrow.Field{Name: "window_peer_group", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	return arrow.NewSchema(fields, nil)
}

// spillOpen moves the pending rows, all of the open partition, into a new
// partitionStore; the partition's further rows go there as they come.
func (st *windowStageOp) spillOpen(ctx context.Context) error {
	s, err := newPartitionStore(ctx, st.env, st.storeSchema(), st.mem)
	if err != nil {
		return err
	}
	st.store, st.writing, st.writeGroup = s, true, -1
	pending := st.pending
	st.mem.shrink(st.pendingSize())
	st.pending, st.pendingBytes, st.pendingRows, st.openStart = nil, nil, 0, 0
	defer func() {
		for _, b := range pending {
			if b != nil {
				b.Release()
			}
		}
	}()
	for i, b := range pending {
		if err := st.write(b); err != nil {
			return err
		}
		b.Release()
		pending[i] = nil
	}
	return nil
}

// write appends rows of the open partition to the store, with the calls'
// arguments and the rows' peer groups.
func (st *windowStageOp) write(b arrow.RecordBatch) error {
	if err := checkCancel(st.store.ctx, st.env); err != nil {
		return err
	}
	ectx := st.env.exprCtx()
	n := int(b.NumRows())
	cols := append([]arrow.Array{}, b.Columns()...)
	var owned []arrow.Array
	defer func() {
		for _, a := range owned {
			a.Release()
		}
	}()
	for _, call := range st.calls {
		for _, e := range call.Args {
			arr, err := e.Eval(ectx, b)
			if err != nil {
				return err
			}
			cols = append(cols, arr)
		}
	}
	var keys []colVec
	if len(st.orderBy) > 0 {
		if err := loadKeys(ectx, st.orderBy, b, &keys); err != nil {
			return err
		}
	}
	gb := array.NewInt64Builder(ectx.Allocator())
	gb.Reserve(n)
	g := st.writeGroup
	for i := 0; i < n; i++ {
		switch {
		case g < 0:
			g = 0
		case len(keys) == 0:
		case i == 0:
			if !sameKeys(st.writeOrder, int(st.writePrev.NumRows())-1, keys, 0) {
				g++
			}
		case !sameKeys(keys, i-1, keys, i):
			g++
		}
		gb.UnsafeAppend(g)
	}
	st.writeGroup = g
	groups := gb.NewArray()
	gb.Release()
	owned = append(owned, groups)
	cols = append(cols, groups)
	rec := array.NewRecordBatch(st.store.schema, cols, int64(n))
	defer rec.Release()
	if err := st.store.append(rec); err != nil {
		return err
	}
	st.store.lastGroup = g
	if len(keys) > 0 {
		b.Retain()
		if st.writePrev != nil {
			st.writePrev.Release()
		}
		st.writePrev = b
		st.writeOrder = keys
	}
	return nil
}

// startReading ends writing the open partition and starts computing it.
func (st *windowStageOp) startReading(ctx context.Context) error {
	st.writing = false
	if st.writePrev != nil {
		st.writePrev.Release()
		st.writePrev, st.writeOrder = nil, nil
	}
	if err := st.store.finish(); err != nil {
		return err
	}
	r, err := newSpilledPartition(st, st.store)
	if err != nil {
		return err
	}
	st.read = r
	return nil
}

func (st *windowStageOp) Close() {
	st.input.Close()
	for _, b := range st.pending {
		b.Release()
	}
	st.pending = nil
	for b := st.out.pop(); b != nil; b = st.out.pop() {
		b.Release()
	}
	if st.prev != nil {
		st.prev.Release()
		st.prev = nil
	}
	if st.writePrev != nil {
		st.writePrev.Release()
		st.writePrev = nil
	}
	if st.store != nil {
		st.store.close()
		st.store = nil
	}
	st.read = nil
	st.mem.releaseAll()
}
