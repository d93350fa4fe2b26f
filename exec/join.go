package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
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
	all, err := drain(ctx, j.env, j.right, j.rightSchema)
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
	if len(j.plan.LeftKeys) != len(j.plan.RightKeys) {
		return sqlerr.New(sqlerr.InternalError, "join has %d left keys and %d right keys", len(j.plan.LeftKeys), len(j.plan.RightKeys))
	}
	ts := make([]types.T, len(j.plan.RightKeys))
	for i, e := range j.plan.RightKeys {
		ts[i] = e.Type()
	}
	j.table = newGroupTable(ectx.Allocator(), ts, false)
	keys, err := evalAll(ectx, j.plan.RightKeys, all)
	if err != nil {
		return err
	}
	j.table.prepare(keys)
	j.nextRow = make([]int32, n)
	// Insert in reverse so that each group's chain lists rows in input order.
	for i := n - 1; i >= 0; i-- {
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
	return nil
}

// probeBatch joins one left batch and queues the output.
func (j *joinOp) probeBatch(ctx context.Context, in arrow.RecordBatch) error {
	ectx := j.env.exprCtx()
	mem := ectx.Allocator()
	n := int(in.NumRows())
	kind := j.plan.Kind
	var rowGroup []int32 // hash join: group of each left row, -1 = none
	if j.hashed() {
		keys, err := evalAll(ectx, j.plan.LeftKeys, in)
		if err != nil {
			return err
		}
		rowGroup = make([]int32, n)
		if j.table.n > 0 {
			j.probe.prepare(keys)
		}
		for i := 0; i < n; i++ {
			rowGroup[i] = -1
			if j.table.n > 0 && !j.probe.rowHasNull(i) {
				rowGroup[i] = int32(j.probe.find(i))
			}
		}
	}
	leftMatched := make([]bool, n)
	buildN := int32(j.build.NumRows())
	var li, ri []int32
	// Cursor over candidate pairs: left row i, right row r (next candidate).
	i, r := 0, int32(-1)
	startRow := func(i int) int32 {
		if rowGroup != nil {
			if g := rowGroup[i]; g >= 0 {
				return j.firstRow[g]
			}
			return -1
		}
		if buildN == 0 {
			return -1
		}
		return 0
	}
	nextCand := func(r int32) int32 {
		if rowGroup != nil {
			return j.nextRow[r]
		}
		if r+1 < buildN {
			return r + 1
		}
		return -1
	}
	semi := kind == planner.SemiJoin || kind == planner.AntiJoin
	if n > 0 {
		r = startRow(0)
	}
	for i < n {
		li, ri = li[:0], ri[:0]
		for i < n && len(li) < BatchSize {
			if r < 0 || (semi && leftMatched[i]) {
				i++
				if i < n {
					r = startRow(i)
				}
				continue
			}
			li = append(li, int32(i))
			ri = append(ri, r)
			r = nextCand(r)
		}
		if len(li) == 0 {
			break
		}
		if err := checkCancel(ctx, j.env); err != nil {
			return err
		}
		pair := j.pairBatch(in, li, ri)
		keep := li[:0:0]
		if j.plan.Cond != nil {
			arr, err := j.plan.Cond.Eval(ectx, pair)
			if err != nil {
				return err
			}
			pred, ok := arr.(*array.Boolean)
			if !ok {
				return sqlerr.New(sqlerr.DatatypeMismatch, "argument of JOIN/ON must be type boolean")
			}
			keep = selectTrue(pred, keep)
		} else {
			for p := range li {
				keep = append(keep, int32(p))
			}
		}
		for _, p := range keep {
			leftMatched[li[p]] = true
			if j.buildMatched != nil {
				j.buildMatched[ri[p]] = true
			}
		}
		if !semi && len(keep) > 0 {
			if len(keep) == len(li) {
				j.out.push(withSchema(j.schema, pair))
			} else {
				j.out.push(takeBatch(mem, j.schema, pair, keep))
			}
		}
	}
	// Left rows decided by their match status.
	var rows []int32
	switch kind {
	case planner.SemiJoin:
		for i, m := range leftMatched {
			if m {
				rows = append(rows, int32(i))
			}
		}
	case planner.AntiJoin, planner.LeftJoin, planner.FullJoin:
		for i, m := range leftMatched {
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
			j.out.push(takeBatch(mem, j.schema, in, idx))
			continue
		}
		none := make([]int32, len(idx))
		for k := range none {
			none[k] = -1
		}
		j.out.push(j.pairBatch(in, idx, none))
	}
	return nil
}

// pairBatch builds left rows li next to right rows ri (-1 = NULLs).
func (j *joinOp) pairBatch(in arrow.RecordBatch, li, ri []int32) arrow.RecordBatch {
	mem := j.env.exprCtx().Allocator()
	cols := make([]arrow.Array, 0, j.pairSchema.NumFields())
	for c := 0; c < int(in.NumCols()); c++ {
		if li == nil {
			cols = append(cols, array.MakeArrayOfNull(mem, in.Column(c).DataType(), len(ri)))
		} else {
			cols = append(cols, takeArray(mem, in.Column(c), li))
		}
	}
	for c := 0; c < int(j.build.NumCols()); c++ {
		cols = append(cols, takeArray(mem, j.build.Column(c), ri))
	}
	return array.NewRecordBatch(j.pairSchema, cols, int64(len(ri)))
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
		cols[c] = array.MakeArrayOfNull(env.exprCtx().Allocator(), schema.Field(c).Type, 0)
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
	for {
		if b := j.out.pop(); b != nil {
			return b, nil
		}
		if j.leftDone {
			return nil, nil
		}
		if err := checkCancel(ctx, j.env); err != nil {
			return nil, err
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
		if err := j.probeBatch(ctx, in); err != nil {
			return nil, err
		}
	}
}

func (j *joinOp) Close() {
	j.left.Close()
	j.right.Close()
	if j.build != nil {
		j.build.Release()
		j.build = nil
	}
}
