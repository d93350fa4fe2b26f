package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
)

// A frame with EXCLUDE CURRENT ROW / GROUP / TIES is its [s, e) range
// minus the current row, its peer group, or the peers but the row: up to
// three ranges in window order. Only aggregates and first_value,
// last_value and nth_value see the exclusion, as in PostgreSQL.

type frameRange struct{ s, e int }

// segments returns the frame of sorted position k after exclusion.
func (f *frameEval) segments(k int, p windowPartition, buf []frameRange) []frameRange {
	return f.segmentsAt(k, p.start, p.end, int(f.peerStart[k]), int(f.peerEnd[k]), buf)
}

// segmentsAt is segments for row k of the partition [start, end) whose
// peer group is [ps, pe).
func (f *frameEval) segmentsAt(k, start, end, ps, pe int, buf []frameRange) []frameRange {
	s, e := f.boundsAt(k, start, end, ps, pe)
	buf = buf[:0]
	add := func(a, b int) {
		a, b = max(a, s), min(b, e)
		if a < b {
			buf = append(buf, frameRange{a, b})
		}
	}
	switch f.frame.Exclude {
	case planner.ExcludeCurrentRow:
		add(s, k)
		add(k+1, e)
	case planner.ExcludeGroup:
		add(s, ps)
		add(pe, e)
	case planner.ExcludeTies:
		add(s, ps)
		add(k, k+1)
		add(pe, e)
	default:
		add(s, e)
	}
	return buf
}

// nthInSegments is the position of the n-th (1-based) row of the frame,
// from its end when fromEnd, or -1.
func nthInSegments(segs []frameRange, n int, fromEnd bool) int {
	if fromEnd {
		for i := len(segs) - 1; i >= 0; i-- {
			if l := segs[i].e - segs[i].s; n <= l {
				return segs[i].e - n
			} else {
				n -= l
			}
		}
		return -1
	}
	for _, sg := range segs {
		if l := sg.e - sg.s; n <= l {
			return sg.s + n - 1
		} else {
			n -= l
		}
	}
	return -1
}

// aggregateExcluding computes an aggregate over each row's frame with its
// exclusion, a fresh accumulator per row.
func aggregateExcluding(ectx *expr.Ctx, call *planner.WindowCall, args []arrow.Array, p windowPartition, fr *frameEval, out array.Builder) error {
	zeros := make([]uint32, p.end-p.start)
	var segs []frameRange
	sl := make([]arrow.Array, len(args))
	for k := p.start; k < p.end; k++ {
		if k%frameCancelRows == 0 && ectx.Canceled() {
			return errCanceled()
		}
		acc := call.Agg.Overload.New(call.Agg.ArgTypes, call.Agg.Ret)
		segs = fr.segments(k, p, segs)
		for _, sg := range segs {
			for i, a := range args {
				sl[i] = array.NewSlice(a, int64(sg.s), int64(sg.e))
			}
			err := acc.Update(ectx, zeros[:sg.e-sg.s], sl)
			for _, a := range sl {
				a.Release()
			}
			if err != nil {
				return err
			}
		}
		if err := appendAggregate(ectx, acc, out); err != nil {
			return err
		}
	}
	return nil
}
