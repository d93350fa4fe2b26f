package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// condColumns lists the input columns e reads; false when e holds a node
// this walk does not know (the caller then supplies every column).
func condColumns(e expr.Expr, used map[int]bool) bool {
	all := func(es []expr.Expr) bool {
		for _, x := range es {
			if x != nil && !condColumns(x, used) {
				return false
			}
		}
		return true
	}
	switch x := e.(type) {
	case *expr.ColumnRef:
		used[x.Index] = true
		return true
	case *expr.Const, *expr.Param:
		return true
	case *expr.FuncCall:
		return all(x.Args)
	case *expr.Cast:
		return condColumns(x.Arg, used)
	case *expr.BoolOp:
		return all(x.Args)
	case *expr.Not:
		return condColumns(x.Arg, used)
	case *expr.IsNull:
		return condColumns(x.Arg, used)
	case *expr.BoolTest:
		return condColumns(x.Arg, used)
	case *expr.Case:
		return all(x.Whens) && all(x.Thens) && all([]expr.Expr{x.Else})
	case *expr.InList:
		return condColumns(x.Arg, used) && all(x.List)
	case *expr.Coalesce:
		return all(x.Args)
	case *expr.DistinctFrom:
		return condColumns(x.Left, used) && condColumns(x.Right, used)
	}
	return false
}

// condPairs is how a nested loop checks candidate pairs: the condition is
// evaluated over a batch that gathers only the columns it reads (the
// others are NULL columns, which it does not look at), and only the pairs
// that pass are gathered whole. A condition such as a.x < b.y over wide
// rows thus costs two gathered columns per candidate, not all of them.
type condPairs struct {
	used  []bool        // per pair column: read by the condition
	nulls []arrow.Array // per unread pair column: BatchSize NULLs
}

func (j *joinOp) condPairsOf() *condPairs {
	if j.cond != nil {
		return j.cond
	}
	n := j.pairSchema.NumFields()
	c := &condPairs{used: make([]bool, n), nulls: make([]arrow.Array, n)}
	used := map[int]bool{}
	if !condColumns(j.plan.Cond, used) {
		for i := range c.used {
			c.used[i] = true
		}
	}
	mem := j.env.exprCtx().Allocator()
	for i := range c.used {
		if used[i] {
			c.used[i] = true
		}
		if !c.used[i] {
			c.nulls[i] = array.MakeArrayOfNull(mem, j.pairSchema.Field(i).Type, BatchSize)
		}
	}
	j.cond = c
	return c
}

// matchPairs checks pairs (left row li[p], right row ri[p]) against the
// join's condition and returns the positions p that pass, and unless
// noOutput the output batch of those pairs (nil when none pass).
func (j *joinOp) matchPairs(left, right arrow.RecordBatch, li, ri []int32, noOutput bool) ([]int32, arrow.RecordBatch, error) {
	keep := make([]int32, 0, len(li))
	if j.plan.Cond == nil {
		for p := range li {
			keep = append(keep, int32(p))
		}
		if noOutput {
			return keep, nil, nil
		}
		return keep, withSchema(j.schema, j.pairOf(left, right, li, ri)), nil
	}
	c := j.condPairsOf()
	ectx := j.env.exprCtx()
	mem := ectx.Allocator()
	n := len(li)
	nLeft := j.leftSchema.NumFields()
	cols := make([]arrow.Array, len(c.used))
	for i := range cols {
		switch {
		case !c.used[i]:
			cols[i] = array.NewSlice(c.nulls[i], 0, int64(n))
		case i < nLeft:
			cols[i] = takeArray(mem, left.Column(i), li)
		default:
			cols[i] = takeArray(mem, right.Column(i-nLeft), ri)
		}
	}
	pair := array.NewRecordBatch(j.pairSchema, cols, int64(n))
	for _, col := range cols {
		col.Release()
	}
	arr, err := j.plan.Cond.Eval(ectx, pair)
	pair.Release()
	if err != nil {
		return nil, nil, err
	}
	pred, ok := arr.(*array.Boolean)
	if !ok {
		return nil, nil, sqlerr.New(sqlerr.DatatypeMismatch, "argument of JOIN/ON must be type boolean")
	}
	keep = selectTrue(pred, keep)
	if noOutput || len(keep) == 0 {
		return keep, nil, nil
	}
	kl, kr := make([]int32, len(keep)), make([]int32, len(keep))
	for k, p := range keep {
		kl[k], kr[k] = li[p], ri[p]
	}
	return keep, withSchema(j.schema, j.pairOf(left, right, kl, kr)), nil
}
