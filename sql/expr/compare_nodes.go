package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/types"
)

// DistinctFrom is a IS [NOT] DISTINCT FROM b: equality where NULL equals NULL
// and the result is never NULL.
type DistinctFrom struct {
	Left, Right Expr
	Eq          ScalarImpl
	Negate      bool // IS NOT DISTINCT FROM
}

func (d *DistinctFrom) Type() types.T { return types.Bool }
func (d *DistinctFrom) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	l, err := d.Left.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	r, err := d.Right.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	n := int(in.NumRows())
	eq, err := d.Eq(ctx, []arrow.Array{l, r}, n)
	if err != nil {
		return nil, err
	}
	ba := eq.(*array.Boolean)
	vals := make([]bool, n)
	for i := 0; i < n; i++ {
		var same bool
		switch {
		case l.IsNull(i) && r.IsNull(i):
			same = true
		case l.IsNull(i) || r.IsNull(i):
			same = false
		default:
			same = ba.Value(i)
		}
		vals[i] = same == d.Negate
	}
	return boolArray(ctx, vals, nil), nil
}
func (d *DistinctFrom) String() string {
	if d.Negate {
		return d.Left.String() + " IS NOT DISTINCT FROM " + d.Right.String()
	}
	return d.Left.String() + " IS DISTINCT FROM " + d.Right.String()
}

// ArrayCompare is x op ANY (array) / x op ALL (array).
type ArrayCompare struct {
	Left  Expr
	Array Expr
	Cmp   ScalarImpl // op over (Left type, element type)
	Op    string
	All   bool
}

func (a *ArrayCompare) Type() types.T { return types.Bool }
func (a *ArrayCompare) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	l, err := a.Left.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	arrs, err := a.Array.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	n := int(in.NumRows())
	list := arrs.(*array.List)
	vals := make([]bool, n)
	nulls := make([]bool, n)
	elems := list.ListValues()
	for i := 0; i < n; i++ {
		if list.IsNull(i) {
			nulls[i] = true
			continue
		}
		start, end := list.ValueOffsets(i)
		cnt := int(end - start)
		if cnt == 0 {
			vals[i] = a.All
			continue
		}
		// Compare row i's left value with each element.
		idx := make([]int, cnt)
		for j := range idx {
			idx[j] = i
		}
		lefts := TakeArray(l, idx)
		rights := array.NewSlice(elems, start, end)
		res, err := a.Cmp(ctx, []arrow.Array{lefts, rights}, cnt)
		if err != nil {
			return nil, err
		}
		rb := res.(*array.Boolean)
		sawNull := false
		decided := false
		for j := 0; j < cnt; j++ {
			if lefts.IsNull(j) || rights.IsNull(j) || rb.IsNull(j) {
				sawNull = true
				continue
			}
			if rb.Value(j) != a.All {
				vals[i] = !a.All
				decided = true
				break
			}
		}
		if !decided {
			if sawNull {
				nulls[i] = true
			} else {
				vals[i] = a.All
			}
		}
	}
	return boolArray(ctx, vals, nulls), nil
}
func (a *ArrayCompare) String() string {
	q := " ANY("
	if a.All {
		q = " ALL("
	}
	return a.Left.String() + " " + a.Op + q + a.Array.String() + ")"
}

// ArrayConstructor is ARRAY[e1, e2, ...].
type ArrayConstructor struct {
	Elems []Expr
	T     types.T
}

func (a *ArrayConstructor) Type() types.T { return a.T }
func (a *ArrayConstructor) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	cols := make([]arrow.Array, len(a.Elems))
	for i, e := range a.Elems {
		v, err := e.Eval(ctx, in)
		if err != nil {
			return nil, err
		}
		cols[i] = v
	}
	n := int(in.NumRows())
	b := NewBuilder(ctx.Allocator(), a.T).(*array.ListBuilder)
	defer b.Release()
	vb := b.ValueBuilder()
	for i := 0; i < n; i++ {
		b.Append(true)
		for _, c := range cols {
			AppendDatum(vb, DatumAt(c, i))
		}
	}
	return b.NewArray(), nil
}
func (a *ArrayConstructor) String() string { return "ARRAY[...]" }

// ArraySubscript is arr[i] (1-based; out of range gives NULL).
type ArraySubscript struct {
	Array, Index Expr
	T            types.T
}

func (a *ArraySubscript) Type() types.T { return a.T }
func (a *ArraySubscript) Eval(ctx *Ctx, in arrow.RecordBatch) (arrow.Array, error) {
	arrs, err := a.Array.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	idx, err := a.Index.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	list := arrs.(*array.List)
	ix := idx.(*array.Int32)
	n := int(in.NumRows())
	b := NewBuilder(ctx.Allocator(), a.T)
	defer b.Release()
	for i := 0; i < n; i++ {
		if list.IsNull(i) || ix.IsNull(i) {
			b.AppendNull()
			continue
		}
		start, end := list.ValueOffsets(i)
		k := int64(ix.Value(i)) - 1
		if k < 0 || start+k >= end {
			b.AppendNull()
			continue
		}
		appendValueAt(b, list.ListValues(), int(start+k))
	}
	return b.NewArray(), nil
}
func (a *ArraySubscript) String() string { return a.Array.String() + "[" + a.Index.String() + "]" }
