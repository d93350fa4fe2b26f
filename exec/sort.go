package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
)

// rowSorter orders rows of one batch by several keys, each ASC or DESC
// with NULLS FIRST or LAST. Keys are loaded once into typed vectors, so a
// comparison is a switch and a slice read per key, with no allocation.
type rowSorter struct {
	vecs []colVec
	keys []planner.SortKey
}

// load evaluates the sort keys over in.
func (s *rowSorter) load(ctx *expr.Ctx, keys []planner.SortKey, in arrow.RecordBatch) error {
	s.keys = keys
	s.vecs = make([]colVec, len(keys))
	for k, key := range keys {
		arr, err := key.Expr.Eval(ctx, in)
		if err != nil {
			return err
		}
		s.vecs[k].load(arr, key.Expr.Type(), true)
	}
	return nil
}

// loadArrays uses already evaluated key columns.
func (s *rowSorter) loadArrays(keys []planner.SortKey, arrs []arrow.Array) {
	s.keys = keys
	s.vecs = make([]colVec, len(keys))
	for k, key := range keys {
		s.vecs[k].load(arrs[k], key.Expr.Type(), true)
	}
}

// compare orders rows i and j.
func (s *rowSorter) compare(i, j int) int { return s.compareFrom(0, i, j) }

// ascendingRows tells whether idx lists row positions in ascending order
// (then ties by position are ties by row).
func ascendingRows(idx []int32) bool {
	for k := 1; k < len(idx); k++ {
		if idx[k] <= idx[k-1] {
			return false
		}
	}
	return true
}

// intSortKey is one row of a sort on a single integer key.
type intSortKey struct {
	v   int64
	row int32
}

// sort orders idx (row positions, ascending) stably; it stops with 57014 when the
// statement is cancelled.
func (s *rowSorter) sort(ctx context.Context, env *Env, idx []int32) error {
	if len(s.vecs) == 1 && s.vecs[0].kind == kindInt && s.vecs[0].nulls == nil {
		// The common single integer key: sort (value, row) pairs, which
		// sit together in memory, instead of rows that point at values
		// scattered over the column. ^v orders descending. A radix sort
		// (stable, so ties stay in idx's order, which is ascending) takes
		// a fraction of a comparison sort's time.
		vals, desc := s.vecs[0].ints, s.keys[0].Desc
		pairs := make([]intSortKey, len(idx))
		ascending := true
		for k, r := range idx {
			v := vals[r]
			if desc {
				v = ^v
			}
			pairs[k] = intSortKey{v: v, row: r}
			ascending = ascending && (k == 0 || r > idx[k-1])
		}
		var err error
		if ascending {
			err = radixSortIntKeys(ctx, env, pairs)
		} else {
			// Ties go by row position, whatever idx's order.
			err = sortTotal(ctx, env, pairs, func(a, b intSortKey) int {
				if a.v != b.v {
					if a.v < b.v {
						return -1
					}
					return 1
				}
				return int(a.row - b.row)
			})
		}
		for k := range pairs {
			idx[k] = pairs[k].row
		}
		return err
	}
	if s.abbreviable() && ascendingRows(idx) {
		return s.sortAbbreviated(ctx, env, idx)
	}
	return sortStable(ctx, env, idx, func(a, b int32) int { return s.compare(int(a), int(b)) })
}

// sortOp sorts its input stably and emits it in batches. It buffers its
// input while it fits in work_mem; past that it sorts what it holds into a
// run on disk and starts over, and at the end merges the runs (an external
// merge sort, as PostgreSQL's tuplesort does). The work is a
// spillingSorter's, which other operators use for their own sorted input.
type sortOp struct {
	env    *Env
	plan   *planner.Sort
	input  Operator
	schema *arrow.Schema
	done   bool
	sorter *spillingSorter
}

var _ Operator = (*sortOp)(nil)

func (s *sortOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := checkCancel(ctx, s.env); err != nil {
		return nil, err
	}
	if !s.done {
		s.done = true
		s.sorter = newSpillingSorter(s.env, "Sort", s.plan.Keys, s.schema)
		for {
			b, err := nextChecked(ctx, s.env, s.input)
			if err != nil {
				return nil, err
			}
			if b == nil {
				break
			}
			if err := s.sorter.add(ctx, b); err != nil {
				return nil, err
			}
		}
		if err := s.sorter.finish(ctx); err != nil {
			return nil, err
		}
	}
	return s.sorter.next(ctx)
}

func (s *sortOp) Close() {
	s.input.Close()
	if s.sorter != nil {
		s.sorter.close()
	}
}

// spillingSorter sorts the batches given to add, stably by keys
// (expressions over schema), within work_mem: while the rows fit they are
// held, past it what is held becomes a sorted run on disk. After finish,
// next returns the rows in order: from memory, or merged from the runs.
type spillingSorter struct {
	env    *Env
	keys   []planner.SortKey
	schema *arrow.Schema
	mem    *memAccount
	held   heldBatches
	runs   []*spillFile
	layout *sortRunLayout

	all   arrow.RecordBatch // in memory: the rows, and their order
	order []int32
	pos   int
	merge *runMerger // spilled: the merge of the runs
}

// newSpillingSorter makes a sorter; op names it in errors (53200).
func newSpillingSorter(env *Env, op string, keys []planner.SortKey, schema *arrow.Schema) *spillingSorter {
	s := &spillingSorter{env: env, keys: keys, schema: schema, mem: newMemAccount(env, op)}
	s.held.mem = s.mem
	return s
}

// add takes a batch of rows (retained while held).
func (s *spillingSorter) add(ctx context.Context, b arrow.RecordBatch) error {
	if b.NumRows() == 0 {
		return nil
	}
	if err := s.held.hold(b, batchBytes(b)); err != nil {
		return err
	}
	if s.mem.overWorkMem() {
		return s.spillHeld(ctx)
	}
	return nil
}

// spilled tells whether rows went to disk.
func (s *spillingSorter) spilled() bool { return len(s.runs) > 0 }

func (s *spillingSorter) spillHeld(ctx context.Context) error {
	run, err := s.writeRun(ctx, s.held.batches)
	if err != nil {
		return err
	}
	s.runs = append(s.runs, run)
	s.held.release()
	s.held.batches = nil
	s.mem.releaseAll()
	return nil
}

// finish sorts what is held, or writes it as the last run and starts the
// merge.
func (s *spillingSorter) finish(ctx context.Context) error {
	if len(s.runs) == 0 {
		all, err := concatBatches(s.env.exprCtx().Allocator(), s.schema, s.held.batches)
		if err != nil {
			return err
		}
		s.held.release()
		s.held.batches = nil
		s.all = all
		order, err := s.sortBatch(ctx, all)
		if err != nil {
			return err
		}
		s.order = order
		return nil
	}
	if len(s.held.batches) > 0 {
		if err := s.spillHeld(ctx); err != nil {
			return err
		}
	}
	runs := s.runs
	s.runs = nil
	m, err := newRunMergerLayout(ctx, s.env, s.keys, s.schema, s.runLayout(), runs, s.mem)
	if err != nil {
		for _, r := range runs {
			r.remove()
		}
		return err
	}
	s.merge = m
	return nil
}

// next returns the next batch of sorted rows, nil at the end.
func (s *spillingSorter) next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.merge != nil {
		return s.merge.next(ctx)
	}
	if s.pos >= len(s.order) {
		return nil, nil
	}
	end := min(s.pos+BatchSize, len(s.order))
	out := takeBatch(s.env.exprCtx().Allocator(), s.schema, s.all, s.order[s.pos:end])
	s.pos = end
	return out, nil
}

// close releases what the sorter holds and removes its runs.
func (s *spillingSorter) close() {
	s.held.release()
	s.held.batches = nil
	for _, r := range s.runs {
		r.remove()
	}
	s.runs = nil
	if s.all != nil {
		s.all.Release()
		s.all = nil
	}
	if s.merge != nil {
		s.merge.close()
		s.merge = nil
	}
	s.mem.releaseAll()
}

// sortBatch returns the rows of all in sort order.
func (s *spillingSorter) sortBatch(ctx context.Context, all arrow.RecordBatch) ([]int32, error) {
	var sorter rowSorter
	if err := sorter.load(s.env.exprCtx(), s.keys, all); err != nil {
		return nil, err
	}
	// The rows are counted as they were held; add the order and each
	// key's typed vector (8 or 16 bytes a row).
	if err := s.mem.grow(int64(all.NumRows()) * int64(4+16*len(s.keys))); err != nil {
		return nil, err
	}
	order := make([]int32, all.NumRows())
	for i := range order {
		order[i] = int32(i)
	}
	return order, sorter.sort(ctx, s.env, order)
}

// writeRun sorts the buffered batches and writes them to a run file, with
// the evaluated sort keys as extra columns (unless a key is one of the
// columns) so that merging compares the very values the run was sorted by.
func (s *spillingSorter) writeRun(ctx context.Context, buffered []arrow.RecordBatch) (*spillFile, error) {
	mem := s.env.exprCtx().Allocator()
	all, err := concatBatches(mem, s.schema, buffered)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	keys, err := evalAll(s.env.exprCtx(), sortKeyExprs(s.keys), all)
	if err != nil {
		return nil, err
	}
	var sorter rowSorter
	sorter.loadArrays(s.keys, keys)
	order := make([]int32, all.NumRows())
	for i := range order {
		order[i] = int32(i)
	}
	if err := sorter.sort(ctx, s.env, order); err != nil {
		return nil, err
	}
	layout := s.runLayout()
	runSchema := layout.schema
	cols := append([]arrow.Array{}, all.Columns()...)
	for _, k := range layout.extraKeys(len(cols)) {
		cols = append(cols, keys[k])
	}
	withKeys := array.NewRecordBatch(runSchema, cols, all.NumRows())
	defer withKeys.Release()
	w, err := newSpillWriter(s.env.Memory, "sort-run", runSchema)
	if err != nil {
		return nil, err
	}
	for st := 0; st < len(order); st += BatchSize {
		if err := checkCancel(ctx, s.env); err != nil {
			w.abandon()
			return nil, err
		}
		b := gatherBatch(mem, runSchema, withKeys, order[st:min(st+BatchSize, len(order))])
		err := w.write(b)
		b.Release()
		if err != nil {
			w.abandon()
			return nil, err
		}
	}
	return w.finish()
}

// runLayout is the layout of the sorter's runs: key columns that are
// input columns are not stored twice.
func (s *spillingSorter) runLayout() sortRunLayout {
	if s.layout == nil {
		l := runLayoutOf(s.schema, s.keys, true)
		s.layout = &l
	}
	return *s.layout
}

func sortKeyExprs(keys []planner.SortKey) []expr.Expr {
	out := make([]expr.Expr, len(keys))
	for i, k := range keys {
		out[i] = k.Expr
	}
	return out
}

// drain reads all of an operator's output into one batch.
func drain(ctx context.Context, env *Env, in Operator, schema *arrow.Schema) (arrow.RecordBatch, error) {
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for {
		if err := checkCancel(ctx, env); err != nil {
			return nil, err
		}
		b, err := in.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		b.Retain()
		batches = append(batches, b)
	}
	return concatBatches(env.exprCtx().Allocator(), schema, batches)
}
