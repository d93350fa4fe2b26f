package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// joinOp joins its left input (streamed) with its right input (built into
// memory first). With equi keys candidates come from a hash table over the
// right keys (a hash join; NULL keys never match); without them every right
// row is a candidate (a nested-loop join). Candidate pairs are checked
// against the residual Cond in chunks of at most BatchSize pairs, so the
// output of one left batch never exceeds BatchSize rows per batch.
//
// Unmatched left rows (LEFT, FULL, ANTI) are emitted when their left batch
// is done; unmatched right rows (RIGHT, FULL) after the whole left input.
//
// A left batch is probed a chunk at a time, one chunk per call of Next, so
// that a join with a huge output (a cross join) streams in bounded memory.
// The right side's rows count against work_mem; past it a hash join turns
// into a grace hash join: both sides are written to spill partitions by
// their keys' hash and each pair of partitions is joined by a child joinOp
// (which may partition again on the next bits of the hash). A NULL key
// never matches, so such rows go to partition 0, where they come out
// unmatched as the join kind wants. A nested-loop join cannot partition:
// past work_mem its right side goes to a spill file, joined to blocks of
// left rows one scan per block (blockNestedLoop).
type joinOp struct {
	env          *Env
	plan         *planner.Join
	left, right  Operator
	schema       *arrow.Schema // output
	pairSchema   *arrow.Schema // left columns then right columns, for Cond
	leftSchema   *arrow.Schema
	rightSchema  *arrow.Schema
	built        bool
	leftDone     bool
	build        arrow.RecordBatch // all right rows
	table        *groupTable       // over right keys, hash join only
	firstRow     []int32           // per group: first build row
	nextRow      []int32           // per build row: next row of its group, -1 at the end
	buildMatched []bool
	probe        *groupTable // shares the key types; loads left keys per batch
	out          queue
	mem          *memAccount
	level        int // grace-join recursion depth
	// noRepartition: the parent's partitioning put (nearly) every right
	// row in this partition (one key, or colliding hashes), so
	// partitioning again would only rewrite the same rows; the build stays
	// in memory, against the server's budget.
	noRepartition bool

	cur *probeCursor // the left batch being probed

	// Grace hash join: the partition pairs still to join, and the one
	// being joined.
	graced   bool
	children []*joinOp
	child    *joinOp

	cond *condPairs // how Cond is checked, made on first use

	// A nested-loop join whose right side passed work_mem: the right
	// side is on disk and the left is joined to it a block at a time.
	blocked *blockNestedLoop
}

// probeCursor is the position in the candidate pairs of one left batch.
type probeCursor struct {
	in          arrow.RecordBatch
	n           int
	rowGroup    []int32 // hash join: group of each left row, -1 = none
	leftMatched []bool
	i           int   // left row
	r           int32 // its next candidate right row, -1 = none
	li, ri      []int32
}

var _ Operator = (*joinOp)(nil)

func newJoinOp(env *Env, plan *planner.Join, left, right Operator) *joinOp {
	lcols, rcols := plan.Left.Columns(), plan.Right.Columns()
	all := append(append([]planner.Column{}, lcols...), rcols...)
	j := &joinOp{
		env: env, plan: plan, left: left, right: right,
		schema:      planner.Schema(plan.Columns()),
		pairSchema:  planner.Schema(all),
		leftSchema:  planner.Schema(lcols),
		rightSchema: planner.Schema(rcols),
	}
	return j
}

func (j *joinOp) hashed() bool { return len(j.plan.LeftKeys) > 0 }

func (j *joinOp) buildSide(ctx context.Context) error {
	ectx := j.env.exprCtx()
	name := "NestedLoop join"
	if j.hashed() {
		name = "HashJoin"
		if len(j.plan.LeftKeys) != len(j.plan.RightKeys) {
			return sqlerr.New(sqlerr.InternalError, "join has %d left keys and %d right keys", len(j.plan.LeftKeys), len(j.plan.RightKeys))
		}
	}
	j.mem = newMemAccount(j.env, name)
	held := heldBatches{mem: j.mem}
	defer held.release()
	for {
		b, err := nextChecked(ctx, j.env, j.right)
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		if err := held.hold(b, batchBytes(b)); err != nil {
			return err
		}
		if j.hashed() && j.level < maxSpillLevel && !j.noRepartition && j.mem.overWorkMem() {
			return j.partitionBothSides(ctx, held.batches)
		}
		if !j.hashed() && j.mem.overWorkMem() {
			return j.spillInner(ctx, held.batches)
		}
	}
	all, err := concatBatches(ectx.Allocator(), j.rightSchema, held.batches)
	if err != nil {
		return err
	}
	j.build = all
	n := int(all.NumRows())
	k := j.plan.Kind
	if k == planner.RightJoin || k == planner.FullJoin {
		j.buildMatched = make([]bool, n)
	}
	if !j.hashed() {
		return nil
	}
	ts := j.keyTypes()
	j.table = newGroupTable(ectx.Allocator(), ts, false)
	keys, err := evalAll(ectx, j.plan.RightKeys, all)
	if err != nil {
		return err
	}
	j.table.prepare(keys)
	j.nextRow = make([]int32, n)
	// Insert in reverse so that each group's chain lists rows in input order.
	for i := n - 1; i >= 0; i-- {
		if i%(64*BatchSize) == 0 {
			if err := checkCancel(ctx, j.env); err != nil {
				return err
			}
		}
		j.nextRow[i] = -1
		if j.table.rowHasNull(i) {
			continue
		}
		g, isNew := j.table.insert(i)
		if isNew {
			j.firstRow = append(j.firstRow, int32(i))
		} else {
			j.nextRow[i] = j.firstRow[g]
			j.firstRow[g] = int32(i)
		}
	}
	j.probe = j.table
	return j.mem.grow(j.table.bytes() + int64(n)*5 + int64(len(j.firstRow))*4)
}

func (j *joinOp) keyTypes() []types.T {
	ts := make([]types.T, len(j.plan.RightKeys))
	for i, e := range j.plan.RightKeys {
		ts[i] = e.Type()
	}
	return ts
}

// partitionBothSides turns the join into a grace hash join: the right rows
// read so far and the rest of both inputs go to spill partitions, and a
// child join per partition pair makes the output.
func (j *joinOp) partitionBothSides(ctx context.Context, buffered []arrow.RecordBatch) error {
	j.graced = true
	rightParts := &partitionWriters{env: j.env, what: "join-right", schema: j.rightSchema, level: j.level}
	leftParts := &partitionWriters{env: j.env, what: "join-left", schema: j.leftSchema, level: j.level}
	defer rightParts.abandon()
	defer leftParts.abandon()
	table := newGroupTable(j.env.exprCtx().Allocator(), j.keyTypes(), false)
	var sel []int32
	write := func(p *partitionWriters, keyExprs []expr.Expr, schema *arrow.Schema, b arrow.RecordBatch) error {
		keys, err := evalAll(j.env.exprCtx(), keyExprs, b)
		if err != nil {
			return err
		}
		table.prepare(keys)
		sel = sel[:0]
		for i := range table.rowHash {
			if table.rowHasNull(i) {
				table.rowHash[i] = 0 // never matches: partition 0
			}
			sel = append(sel, int32(i))
		}
		return p.add(withSchema(schema, b), table.rowHash, sel)
	}
	for _, b := range buffered {
		if err := write(rightParts, j.plan.RightKeys, j.rightSchema, b); err != nil {
			return err
		}
	}
	j.mem.releaseAll()
	for side, in := range []Operator{j.right, j.left} {
		parts, keyExprs, schema := rightParts, j.plan.RightKeys, j.rightSchema
		if side == 1 {
			parts, keyExprs, schema = leftParts, j.plan.LeftKeys, j.leftSchema
		}
		for {
			b, err := nextChecked(ctx, j.env, in)
			if err != nil {
				return err
			}
			if b == nil {
				break
			}
			if err := write(parts, keyExprs, schema, b); err != nil {
				return err
			}
		}
	}
	rights, err := rightParts.finishByIndex()
	if err != nil {
		return err
	}
	lefts, err := leftParts.finishByIndex()
	if err != nil {
		for _, f := range rights {
			if f != nil {
				f.remove()
			}
		}
		return err
	}
	var rightRows int64
	for _, r := range rights {
		if r != nil {
			rightRows += r.rows
		}
	}
	kind := j.plan.Kind
	keepLeftOnly := kind == planner.LeftJoin || kind == planner.FullJoin || kind == planner.AntiJoin
	keepRightOnly := kind == planner.RightJoin || kind == planner.FullJoin
	for k := range rights {
		l, r := lefts[k], rights[k]
		if (l == nil && (r == nil || !keepRightOnly)) || (r == nil && !keepLeftOnly) {
			if l != nil {
				l.remove()
			}
			if r != nil {
				r.remove()
			}
			continue
		}
		var left, right Operator = emptyOp{}, emptyOp{}
		if l != nil {
			left = &spillScanOp{env: j.env, file: l}
		}
		if r != nil {
			right = &spillScanOp{env: j.env, file: r}
		}
		child := newJoinOp(j.env, j.plan, left, right)
		child.level = j.level + 1
		child.noRepartition = r != nil && r.rows*10 >= rightRows*9
		j.children = append(j.children, child)
	}
	return nil
}

// emptyOp is an input without rows (an empty spill partition).
type emptyOp struct{}

func (emptyOp) Next(context.Context) (arrow.RecordBatch, error) { return nil, nil }
func (emptyOp) Close()                                          {}

// startProbe sets up the probing of one left batch.
func (j *joinOp) startProbe(in arrow.RecordBatch) error {
	ectx := j.env.exprCtx()
	n := int(in.NumRows())
	c := &probeCursor{in: in, n: n, leftMatched: make([]bool, n), r: -1}
	if j.hashed() {
		keys, err := evalAll(ectx, j.plan.LeftKeys, in)
		if err != nil {
			return err
		}
		c.rowGroup = make([]int32, n)
		if j.table.n > 0 {
			j.probe.prepare(keys)
		}
		for i := 0; i < n; i++ {
			c.rowGroup[i] = -1
			if j.table.n > 0 && !j.probe.rowHasNull(i) {
				c.rowGroup[i] = int32(j.probe.find(i))
			}
		}
	}
	if n > 0 {
		c.r = j.startRow(c, 0)
	}
	j.cur = c
	return nil
}

// startRow is the first candidate right row of left row i, -1 if none.
func (j *joinOp) startRow(c *probeCursor, i int) int32 {
	if c.rowGroup != nil {
		if g := c.rowGroup[i]; g >= 0 {
			return j.firstRow[g]
		}
		return -1
	}
	if j.build.NumRows() == 0 {
		return -1
	}
	return 0
}

// nextCand is the candidate after right row r.
func (j *joinOp) nextCand(c *probeCursor, r int32) int32 {
	if c.rowGroup != nil {
		return j.nextRow[r]
	}
	if int64(r)+1 < j.build.NumRows() {
		return r + 1
	}
	return -1
}

// stepProbe checks the next chunk of at most BatchSize candidate pairs of
// the current left batch and queues its output; when the batch is done it
// queues the left rows its match status decides and clears j.cur.
func (j *joinOp) stepProbe() error {
	ectx := j.env.exprCtx()
	mem := ectx.Allocator()
	c := j.cur
	kind := j.plan.Kind
	semi := kind == planner.SemiJoin || kind == planner.AntiJoin
	c.li, c.ri = c.li[:0], c.ri[:0]
	for c.i < c.n && len(c.li) < BatchSize {
		if c.r < 0 || (semi && c.leftMatched[c.i]) {
			c.i++
			if c.i < c.n {
				c.r = j.startRow(c, c.i)
			}
			continue
		}
		c.li = append(c.li, int32(c.i))
		c.ri = append(c.ri, c.r)
		c.r = j.nextCand(c, c.r)
	}
	if len(c.li) > 0 {
		keep, out, err := j.matchPairs(c.in, j.build, c.li, c.ri, semi)
		if err != nil {
			return err
		}
		for _, p := range keep {
			c.leftMatched[c.li[p]] = true
			if j.buildMatched != nil {
				j.buildMatched[c.ri[p]] = true
			}
		}
		if out != nil {
			j.out.push(out)
		}
		if c.i < c.n {
			return nil
		}
	}
	j.cur = nil
	// Left rows decided by their match status.
	var rows []int32
	switch kind {
	case planner.SemiJoin:
		for i, m := range c.leftMatched {
			if m {
				rows = append(rows, int32(i))
			}
		}
	case planner.AntiJoin, planner.LeftJoin, planner.FullJoin:
		for i, m := range c.leftMatched {
			if !m {
				rows = append(rows, int32(i))
			}
		}
	default:
		return nil
	}
	for s := 0; s < len(rows); s += BatchSize {
		idx := rows[s:min(s+BatchSize, len(rows))]
		if semi {
			j.out.push(takeBatch(mem, j.schema, c.in, idx))
			continue
		}
		none := make([]int32, len(idx))
		for k := range none {
			none[k] = -1
		}
		j.out.push(j.pairBatch(c.in, idx, none))
	}
	return nil
}

// pairBatch builds left rows li next to right rows ri (-1 = NULLs).
func (j *joinOp) pairBatch(in arrow.RecordBatch, li, ri []int32) arrow.RecordBatch {
	return j.pairOf(in, j.build, li, ri)
}

// pairOf builds rows li of left next to rows ri of right: li nil gives
// NULL left columns, right nil NULL right columns (as does a -1 in ri).
func (j *joinOp) pairOf(left, right arrow.RecordBatch, li, ri []int32) arrow.RecordBatch {
	mem := j.env.exprCtx().Allocator()
	n := len(ri)
	if li != nil {
		n = len(li)
	}
	cols := make([]arrow.Array, 0, j.pairSchema.NumFields())
	for c := 0; c < j.leftSchema.NumFields(); c++ {
		if li == nil {
			cols = append(cols, array.MakeArrayOfNull(mem, j.leftSchema.Field(c).Type, n))
		} else {
			cols = append(cols, takeArray(mem, left.Column(c), li))
		}
	}
	for c := 0; c < j.rightSchema.NumFields(); c++ {
		if right == nil {
			cols = append(cols, array.MakeArrayOfNull(mem, j.rightSchema.Field(c).Type, n))
		} else {
			cols = append(cols, takeArray(mem, right.Column(c), ri))
		}
	}
	return array.NewRecordBatch(j.pairSchema, cols, int64(n))
}

// unmatchedRight queues the right rows no left row matched, with NULL left
// columns.
func (j *joinOp) unmatchedRight() {
	var rows []int32
	for r, m := range j.buildMatched {
		if !m {
			rows = append(rows, int32(r))
		}
	}
	empty := array.NewRecordBatch(j.leftSchema, emptyColumns(j.env, j.leftSchema), 0)
	for s := 0; s < len(rows); s += BatchSize {
		idx := rows[s:min(s+BatchSize, len(rows))]
		j.out.push(j.pairBatch(empty, nil, idx))
	}
}

func emptyColumns(env *Env, schema *arrow.Schema) []arrow.Array {
	cols := make([]arrow.Array, schema.NumFields())
	for c := range cols {
		cols[c] = emptyArray(schema.Field(c).Type)
	}
	return cols
}

func (j *joinOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !j.built {
		j.built = true
		if err := j.buildSide(ctx); err != nil {
			return nil, err
		}
	}
	if j.graced {
		return j.nextFromPartitions(ctx)
	}
	if j.blocked != nil {
		return j.blocked.next(ctx)
	}
	for {
		if b := j.out.pop(); b != nil {
			return b, nil
		}
		if err := checkCancel(ctx, j.env); err != nil {
			return nil, err
		}
		if j.cur != nil {
			if err := j.stepProbe(); err != nil {
				return nil, err
			}
			continue
		}
		if j.leftDone {
			return nil, nil
		}
		in, err := j.left.Next(ctx)
		if err != nil {
			return nil, err
		}
		if in == nil {
			j.leftDone = true
			if j.buildMatched != nil {
				j.unmatchedRight()
			}
			continue
		}
		if err := j.startProbe(in); err != nil {
			return nil, err
		}
	}
}

// nextFromPartitions runs the partition pairs' joins one after the other.
func (j *joinOp) nextFromPartitions(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if j.child != nil {
			b, err := j.child.Next(ctx)
			if err != nil || b != nil {
				return b, err
			}
			j.child.Close()
			j.child = nil
		}
		if len(j.children) == 0 {
			return nil, nil
		}
		j.child = j.children[0]
		j.children = j.children[1:]
	}
}

func (j *joinOp) Close() {
	j.left.Close()
	j.right.Close()
	if j.build != nil {
		j.build.Release()
		j.build = nil
	}
	if j.child != nil {
		j.child.Close()
		j.child = nil
	}
	for _, c := range j.children {
		c.Close()
	}
	if j.blocked != nil {
		j.blocked.close()
		j.blocked = nil
	}
	if j.cond != nil {
		for _, a := range j.cond.nulls {
			if a != nil {
				a.Release()
			}
		}
		j.cond = nil
	}
	j.children = nil
	if j.mem != nil {
		j.mem.releaseAll()
	}
}
