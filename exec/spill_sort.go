package exec

import (
	"container/heap"
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
)

// mergeFanIn is how many runs one merge pass reads at once: as many
// batches as work_mem holds, between 8 and 64. Each open run holds one
// batch in memory; with more runs than this, groups of runs are first
// merged into longer runs (a multi-pass merge), so the memory of the merge
// stays bounded whatever the input's size.
func mergeFanIn(q *QueryMemory, runs []*spillFile) int {
	var bytes, batches int64
	for _, r := range runs {
		bytes += r.bytes
		batches += r.batches
	}
	if q == nil || batches == 0 || bytes == 0 {
		return 64
	}
	return int(max(8, min(64, q.WorkMem()/(bytes/batches+1))))
}

// runMerger merges sorted runs (written by sortOp.writeRun: the rows'
// columns, then their sort keys) into one sorted stream. Ties go to the
// earlier run, which holds the earlier input rows, so the merge is stable
// like the in-memory sort.
type runMerger struct {
	env     *Env
	keys    []planner.SortKey
	schema  *arrow.Schema // output: the rows' columns without the keys
	runSch  *arrow.Schema
	mem     *memAccount
	cursors runHeap
	open    []*runCursor
}

// runCursor is the read position in one run.
type runCursor struct {
	rd    *spillReader
	seq   int // the run's place in input order
	b     arrow.RecordBatch
	row   int
	keys  []colVec
	bytes int64
}

func newRunMerger(ctx context.Context, env *Env, keys []planner.SortKey, schema *arrow.Schema, runs []*spillFile, mem *memAccount) (*runMerger, error) {
	m := &runMerger{env: env, keys: keys, schema: schema, runSch: sortRunSchema(schema, keys), mem: mem}
	fanIn := mergeFanIn(env.Memory, runs)
	for len(runs) > fanIn {
		// One pass: each group of fanIn consecutive runs becomes one run,
		// in order, so ties still go to earlier input.
		var next []*spillFile
		for st := 0; st < len(runs); st += fanIn {
			group := runs[st:min(st+fanIn, len(runs))]
			if len(group) == 1 {
				next = append(next, group[0])
				continue
			}
			merged, err := m.mergeToRun(ctx, group)
			if err != nil {
				for _, r := range runs[st+len(group):] {
					r.remove()
				}
				for _, r := range next {
					r.remove()
				}
				return nil, err
			}
			next = append(next, merged)
		}
		runs = next
	}
	if err := m.openRuns(runs); err != nil {
		m.close()
		return nil, err
	}
	return m, nil
}

func (m *runMerger) openRuns(runs []*spillFile) error {
	m.cursors.items = m.cursors.items[:0]
	m.open = m.open[:0]
	for seq, r := range runs {
		rd, err := openSpill(r, m.env.exprCtx().Allocator())
		if err != nil {
			for _, r := range runs[seq:] {
				r.remove()
			}
			return err
		}
		c := &runCursor{rd: rd, seq: seq, keys: make([]colVec, len(m.keys))}
		m.open = append(m.open, c)
		ok, err := m.advanceBatch(c)
		if err != nil {
			return err
		}
		if ok {
			m.cursors.items = append(m.cursors.items, c)
		}
	}
	m.cursors.m = m
	heap.Init(&m.cursors)
	return nil
}

// advanceBatch loads the cursor's next batch; false at the run's end.
func (m *runMerger) advanceBatch(c *runCursor) (bool, error) {
	if c.b != nil {
		c.b.Release()
		c.b = nil
		m.mem.shrink(c.bytes)
		c.bytes = 0
	}
	b, err := c.rd.next()
	if err != nil || b == nil {
		return false, err
	}
	b.Retain()
	c.b, c.row = b, 0
	c.bytes = batchBytes(b)
	if err := m.mem.grow(c.bytes); err != nil {
		return false, err
	}
	nData := m.schema.NumFields()
	for k, key := range m.keys {
		c.keys[k].load(b.Column(nData+k), key.Expr.Type(), true)
	}
	return true, nil
}

// less orders the current rows of two cursors, ties by run.
func (m *runMerger) less(x, y *runCursor) bool {
	for k, key := range m.keys {
		v, w := &x.keys[k], &y.keys[k]
		xn, yn := v.isNull(x.row), w.isNull(y.row)
		if xn || yn {
			if xn && yn {
				continue
			}
			return xn == key.NullsFirst
		}
		if c := v.compare(x.row, w, y.row); c != 0 {
			if key.Desc {
				return c > 0
			}
			return c < 0
		}
	}
	return x.seq < y.seq
}

// fill appends up to BatchSize merged rows to builders (one per column of
// cols' width) and returns how many it appended.
func (m *runMerger) fill(ctx context.Context, builders []array.Builder) (int, error) {
	n := 0
	for n < BatchSize && len(m.cursors.items) > 0 {
		c := m.cursors.items[0]
		for col, b := range builders {
			appendValue(b, c.b.Column(col), c.row)
		}
		n++
		c.row++
		if c.row >= int(c.b.NumRows()) {
			if err := checkCancel(ctx, m.env); err != nil {
				return n, err
			}
			ok, err := m.advanceBatch(c)
			if err != nil {
				return n, err
			}
			if !ok {
				heap.Pop(&m.cursors)
				continue
			}
		}
		heap.Fix(&m.cursors, 0)
	}
	return n, nil
}

// next returns the next batch of merged rows, nil at the end.
func (m *runMerger) next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := checkCancel(ctx, m.env); err != nil {
		return nil, err
	}
	if len(m.cursors.items) == 0 {
		m.close()
		return nil, nil
	}
	builders := newBuilders(m.env, m.schema)
	n, err := m.fill(ctx, builders)
	if err != nil {
		releaseBuilders(builders)
		return nil, err
	}
	return finishBuilders(m.schema, builders, n), nil
}

// mergeToRun merges runs into one new run file.
func (m *runMerger) mergeToRun(ctx context.Context, runs []*spillFile) (*spillFile, error) {
	if err := m.openRuns(runs); err != nil {
		m.close()
		return nil, err
	}
	defer m.close()
	w, err := newSpillWriter(m.env.Memory, "sort-run", m.runSch)
	if err != nil {
		return nil, err
	}
	for len(m.cursors.items) > 0 {
		builders := newBuilders(m.env, m.runSch)
		n, err := m.fill(ctx, builders)
		if err != nil {
			releaseBuilders(builders)
			w.abandon()
			return nil, err
		}
		b := finishBuilders(m.runSch, builders, n)
		err = w.write(b)
		b.Release()
		if err != nil {
			w.abandon()
			return nil, err
		}
	}
	return w.finish()
}

// close releases the open runs and removes their files.
func (m *runMerger) close() {
	for _, c := range m.open {
		if c.b != nil {
			c.b.Release()
			c.b = nil
			m.mem.shrink(c.bytes)
		}
		c.rd.close()
	}
	m.open = nil
	m.cursors.items = nil
}

func newBuilders(env *Env, schema *arrow.Schema) []array.Builder {
	mem := env.exprCtx().Allocator()
	bs := make([]array.Builder, schema.NumFields())
	for i, f := range schema.Fields() {
		bs[i] = array.NewBuilder(mem, f.Type)
		bs[i].Reserve(BatchSize)
	}
	return bs
}

func releaseBuilders(bs []array.Builder) {
	for _, b := range bs {
		b.Release()
	}
}

func finishBuilders(schema *arrow.Schema, bs []array.Builder, n int) arrow.RecordBatch {
	cols := make([]arrow.Array, len(bs))
	for i, b := range bs {
		cols[i] = b.NewArray()
		b.Release()
	}
	return array.NewRecordBatch(schema, cols, int64(n))
}

// runHeap orders open cursors by their current rows.
type runHeap struct {
	m     *runMerger
	items []*runCursor
}

func (h *runHeap) Len() int           { return len(h.items) }
func (h *runHeap) Less(i, j int) bool { return h.m.less(h.items[i], h.items[j]) }
func (h *runHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *runHeap) Push(x any)         { h.items = append(h.items, x.(*runCursor)) }
func (h *runHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
