package exec

import (
	"context"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
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

// sortRunLayout is where a run's columns are: the sorted rows' columns
// first, then the evaluated sort keys that are not simply one of those
// columns. keyCols[k] is the run column holding key k.
type sortRunLayout struct {
	schema  *arrow.Schema
	keyCols []int
}

// sortRunSchema is the layout newRunMerger reads: the sorted rows'
// columns, then every key.
func sortRunSchema(schema *arrow.Schema, keys []planner.SortKey) *arrow.Schema {
	return runLayoutOf(schema, keys, false).schema
}

// runLayoutOf lays out runs of schema's rows sorted by keys. With share, a
// key that is a plain column reference reads that column instead of a
// copy of it (the common ORDER BY col): runs are smaller to write and read.
func runLayoutOf(schema *arrow.Schema, keys []planner.SortKey, share bool) sortRunLayout {
	fields := append([]arrow.Field{}, schema.Fields()...)
	l := sortRunLayout{keyCols: make([]int, len(keys))}
	for i, k := range keys {
		if ref, ok := k.Expr.(*expr.ColumnRef); share && ok && ref.Index >= 0 && ref.Index < schema.NumFields() &&
			arrow.TypeEqual(schema.Field(ref.Index).Type, k.Expr.Type().Arrow()) {
			l.keyCols[i] = ref.Index
			continue
		}
		l.keyCols[i] = len(fields)
		fields = append(fields, arrow.Field{Name: "sort_key_" + strconv.Itoa(i), Type: k.Expr.Type().Arrow(), Nullable: true})
	}
	l.schema = arrow.NewSchema(fields, nil)
	return l
}

// extraKeys lists the keys the layout stores as columns of their own.
func (l sortRunLayout) extraKeys(nData int) []int {
	var ks []int
	for k, c := range l.keyCols {
		if c >= nData {
			ks = append(ks, k)
		}
	}
	return ks
}

// runMerger merges sorted runs (written by sortOp.writeRun in a
// sortRunLayout) into one sorted stream. Ties go to the earlier run, which
// holds the earlier input rows, so the merge is stable like the in-memory
// sort. The runs' current rows are ordered by a loser tree (one comparison
// per level for each row out); a single integer key, the common case, is
// compared as int64s without going through the general comparison. Output
// rows are gathered a column at a time from the runs' batches.
type runMerger struct {
	env    *Env
	keys   []planner.SortKey
	schema *arrow.Schema // output: the rows' columns without the keys
	layout sortRunLayout
	mem    *memAccount
	open   []*runCursor
	tree   loserTree
	// intKey: one integer key; desc: it sorts descending.
	intKey, desc bool

	// Per output batch: the batches rows come from, and for each row its
	// batch and position there. Batches a cursor has moved past stay in
	// retired until the output that uses them is built.
	refs    []arrow.RecordBatch
	from    []int32
	rows    []int32
	retired []retiredBatch
}

type retiredBatch struct {
	b     arrow.RecordBatch
	bytes int64
}

// runCursor is the read position in one run.
type runCursor struct {
	rd    *spillReader
	seq   int // the run's place in input order
	b     arrow.RecordBatch
	row   int
	n     int
	keys  []colVec
	bytes int64
	ref   int32 // index of b in the merger's refs, -1 = not yet there
	done  bool
	head  intHead // single integer key: the current row's key, normalized
}

// intHead is a single integer key's value as one comparison: class
// orders NULLS FIRST (0) before values (1) before NULLS LAST (2) before
// an exhausted run (3); key is the value with its sign bit flipped
// (inverted for DESC), so unsigned order is the sort order.
type intHead struct {
	class uint8
	key   uint64
}

// newRunMerger merges runs in sortRunSchema's layout.
func newRunMerger(ctx context.Context, env *Env, keys []planner.SortKey, schema *arrow.Schema, runs []*spillFile, mem *memAccount) (*runMerger, error) {
	return newRunMergerLayout(ctx, env, keys, schema, runLayoutOf(schema, keys, false), runs, mem)
}

// newRunMergerLayout merges runs written in layout.
func newRunMergerLayout(ctx context.Context, env *Env, keys []planner.SortKey, schema *arrow.Schema, layout sortRunLayout, runs []*spillFile, mem *memAccount) (*runMerger, error) {
	m := &runMerger{env: env, keys: keys, schema: schema, layout: layout, mem: mem}
	if len(keys) == 1 && kindOf(keys[0].Expr.Type(), true) == kindInt {
		m.intKey, m.desc = true, keys[0].Desc
	}
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
	m.open = m.open[:0]
	for seq, r := range runs {
		rd, err := openSpill(r, m.env.exprCtx().Allocator())
		if err != nil {
			for _, r := range runs[seq:] {
				r.remove()
			}
			return err
		}
		c := &runCursor{rd: rd, seq: seq, keys: make([]colVec, len(m.keys)), ref: -1}
		m.open = append(m.open, c)
		ok, err := m.advanceBatch(c)
		if err != nil {
			return err
		}
		c.done = !ok
		if m.intKey {
			m.setHead(c)
		}
	}
	m.tree.init(len(m.open), m.beats)
	return nil
}

// advanceBatch loads the cursor's next batch; false at the run's end. The
// batch it leaves is retired, not released: rows of it may be waiting in
// the output being gathered.
func (m *runMerger) advanceBatch(c *runCursor) (bool, error) {
	if c.b != nil {
		if c.ref >= 0 {
			m.retired = append(m.retired, retiredBatch{c.b, c.bytes})
		} else {
			c.b.Release()
			m.mem.shrink(c.bytes)
		}
		c.b, c.bytes, c.ref = nil, 0, -1
	}
	b, err := c.rd.next()
	if err != nil || b == nil {
		return false, err
	}
	b.Retain()
	c.b, c.row, c.n = b, 0, int(b.NumRows())
	c.bytes = batchBytes(b)
	if err := m.mem.grow(c.bytes); err != nil {
		return false, err
	}
	for k, key := range m.keys {
		c.keys[k].load(b.Column(m.layout.keyCols[k]), key.Expr.Type(), true)
	}
	return true, nil
}

// setHead computes the cursor's intHead (single integer key).
func (m *runMerger) setHead(c *runCursor) {
	switch {
	case c.done:
		c.head = intHead{class: 3}
	case c.keys[0].isNull(c.row):
		c.head = intHead{class: 2}
		if m.keys[0].NullsFirst {
			c.head.class = 0
		}
	default:
		k := uint64(c.keys[0].ints[c.row]) ^ (1 << 63)
		if m.desc {
			k = ^k
		}
		c.head = intHead{class: 1, key: k}
	}
}

// intBeats is beats for a single integer key, over the cursors' heads;
// ties go to the earlier run (cursor i is run i).
func (m *runMerger) intBeats(xi, yi int) bool {
	x, y := &m.open[xi].head, &m.open[yi].head
	if x.class != y.class {
		return x.class < y.class
	}
	if x.key != y.key {
		return x.key < y.key
	}
	return xi < yi
}

// replayInt is loserTree.replay with intBeats inlined.
func (m *runMerger) replayInt(w int) {
	t := &m.tree
	for node := (w + t.k) / 2; node >= 1; node /= 2 {
		if o := t.nodes[node]; m.intBeats(o, w) {
			t.nodes[node], w = w, o
		}
	}
	t.nodes[0] = w
}

// beats tells whether cursor x's current row goes out before y's; an
// exhausted cursor never does.
func (m *runMerger) beats(xi, yi int) bool {
	if m.intKey {
		return m.intBeats(xi, yi)
	}
	x, y := m.open[xi], m.open[yi]
	if x.done || y.done {
		return !x.done
	}
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

// fillBatch takes up to BatchSize merged rows and builds them as a batch
// of schema (the first schema.NumFields() columns of the runs); nil when
// the runs are exhausted.
func (m *runMerger) fillBatch(ctx context.Context, schema *arrow.Schema) (arrow.RecordBatch, error) {
	m.refs, m.from, m.rows = m.refs[:0], m.from[:0], m.rows[:0]
	defer m.releaseRefs()
	for len(m.rows) < BatchSize && len(m.open) > 0 {
		w := m.tree.winner()
		c := m.open[w]
		if c.done {
			break
		}
		if c.ref < 0 {
			c.ref = int32(len(m.refs))
			m.refs = append(m.refs, c.b)
		}
		m.from = append(m.from, c.ref)
		m.rows = append(m.rows, int32(c.row))
		c.row++
		if c.row >= c.n {
			if err := checkCancel(ctx, m.env); err != nil {
				return nil, err
			}
			ok, err := m.advanceBatch(c)
			if err != nil {
				return nil, err
			}
			c.done = !ok
		}
		if m.intKey {
			m.setHead(c)
			m.replayInt(w)
		} else {
			m.tree.replay(w, m.beats)
		}
	}
	if len(m.rows) == 0 {
		return nil, nil
	}
	mem := m.env.exprCtx().Allocator()
	cols := make([]arrow.Array, schema.NumFields())
	arrs := make([]arrow.Array, len(m.refs))
	for col := range cols {
		for i, b := range m.refs {
			arrs[i] = b.Column(col)
		}
		cols[col] = gatherArrays(mem, schema.Field(col).Type, arrs, m.from, m.rows)
	}
	return array.NewRecordBatch(schema, cols, int64(len(m.rows))), nil
}

// releaseRefs forgets the output's source batches and releases those no
// cursor reads any more.
func (m *runMerger) releaseRefs() {
	for _, c := range m.open {
		c.ref = -1
	}
	for _, r := range m.retired {
		r.b.Release()
		m.mem.shrink(r.bytes)
	}
	m.retired = m.retired[:0]
	clear(m.refs)
	m.refs = m.refs[:0]
}

// next returns the next batch of merged rows, nil at the end.
func (m *runMerger) next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := checkCancel(ctx, m.env); err != nil {
		return nil, err
	}
	b, err := m.fillBatch(ctx, m.schema)
	if b == nil && err == nil {
		m.close()
	}
	return b, err
}

// mergeToRun merges runs into one new run file.
func (m *runMerger) mergeToRun(ctx context.Context, runs []*spillFile) (*spillFile, error) {
	if err := m.openRuns(runs); err != nil {
		m.close()
		return nil, err
	}
	defer m.close()
	w, err := newSpillWriter(m.env.Memory, "sort-run", m.layout.schema)
	if err != nil {
		return nil, err
	}
	for {
		b, err := m.fillBatch(ctx, m.layout.schema)
		if err != nil {
			w.abandon()
			return nil, err
		}
		if b == nil {
			return w.finish()
		}
		err = w.write(b)
		b.Release()
		if err != nil {
			w.abandon()
			return nil, err
		}
	}
}

// close releases the open runs and removes their files.
func (m *runMerger) close() {
	m.releaseRefs()
	for _, c := range m.open {
		if c.b != nil {
			c.b.Release()
			c.b = nil
			m.mem.shrink(c.bytes)
		}
		c.rd.close()
	}
	m.open = nil
}

// loserTree picks the least of k entries: each inner node holds the loser
// of the match played there, node 0 the overall winner. After the winner
// changes, replay plays it up its path against the losers stored there:
// log2(k) comparisons per row, about half of a binary heap's.
type loserTree struct {
	k     int
	nodes []int
}

// init builds the tree over entries 0..k-1; beats(a, b) orders entries.
func (t *loserTree) init(k int, beats func(a, b int) bool) {
	t.k = k
	t.nodes = make([]int, max(k, 1))
	if k == 0 {
		return
	}
	t.nodes[0] = t.build(1, beats)
}

// build plays the matches below node and returns their winner. Entry i
// is the leaf k+i; inner nodes are 1..k-1.
func (t *loserTree) build(node int, beats func(a, b int) bool) int {
	if node >= t.k {
		return node - t.k
	}
	a, b := t.build(2*node, beats), t.build(2*node+1, beats)
	if beats(a, b) {
		t.nodes[node] = b
		return a
	}
	t.nodes[node] = a
	return b
}

func (t *loserTree) winner() int { return t.nodes[0] }

// replay restores the tree after entry w (the winner) changed.
func (t *loserTree) replay(w int, beats func(a, b int) bool) {
	for node := (w + t.k) / 2; node >= 1; node /= 2 {
		if beats(t.nodes[node], w) {
			t.nodes[node], w = w, t.nodes[node]
		}
	}
	t.nodes[0] = w
}
