package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
)

// FETCH FIRST n ROWS WITH TIES: once n rows have passed, the rows that
// follow pass while they sort equal to the last of them (its input is
// sorted on the keys, so the ties are the rows right after it).
type limitTies struct {
	last    arrow.RecordBatch // the last row within the limit
	pending arrow.RecordBatch // rows of its batch after it
	done    bool
}

// reached records where the limit was reached: in[end-1] is the last row
// passed, in[end:] still to be checked for ties.
func (l *limitOp) reached(in arrow.RecordBatch, end int64) {
	if len(l.plan.Ties) == 0 {
		return
	}
	if end == 0 {
		l.ties.done = true
		return
	}
	l.ties.last = in.NewSlice(end-1, end)
	if end < in.NumRows() {
		l.ties.pending = in.NewSlice(end, in.NumRows())
	}
}

// nextTies returns the next rows tied with the last one, nil at the end.
func (l *limitOp) nextTies(ctx context.Context) (arrow.RecordBatch, error) {
	t := &l.ties
	if t.done || t.last == nil {
		return nil, nil
	}
	in := t.pending
	t.pending = nil
	if in == nil {
		var err error
		if in, err = l.input.Next(ctx); err != nil || in == nil {
			t.done = true
			return nil, err
		}
	}
	ectx := l.env.exprCtx()
	keys := make([]planner.SortKey, len(l.plan.Ties))
	arrs := make([]arrow.Array, len(l.plan.Ties))
	for k, e := range l.plan.Ties {
		keys[k] = planner.SortKey{Expr: e}
		a, err := e.Eval(ectx, t.last)
		if err != nil {
			return nil, err
		}
		b, err := e.Eval(ectx, in)
		if err != nil {
			return nil, err
		}
		if arrs[k], err = array.Concatenate([]arrow.Array{a, b}, ectx.Allocator()); err != nil {
			return nil, err
		}
	}
	var s rowSorter
	s.loadArrays(keys, arrs)
	n := in.NumRows()
	m := int64(0)
	for m < n && s.compare(0, int(m)+1) == 0 {
		m++
	}
	if m < n {
		t.done = true
	}
	if m == 0 {
		return nil, nil
	}
	return in.NewSlice(0, m), nil
}
