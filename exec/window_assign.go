package exec

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
)

// windowAssignOp assigns event-time windows (planner.WindowAssign).
// Tumbling and hopping windows are computed as batches pass (a tumbling
// window passes its input's columns through: passThrough);
// sessions need every row of a partition, so they are computed once the
// input is exhausted.
type windowAssignOp struct {
	env    *Env
	plan   *planner.WindowAssign
	input  Operator
	schema *arrow.Schema
	done   bool
}

var _ Operator = (*windowAssignOp)(nil)

// TumbleStart is the start of the tumbling window of size that contains t
// (microseconds; windows aligned to the Unix epoch, floor for negatives).
func TumbleStart(t, size int64) int64 {
	s := t - t%size
	if t%size < 0 {
		s -= size
	}
	return s
}

func (w *windowAssignOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if w.plan.Kind == planner.SessionWindow {
		if w.done {
			return nil, nil
		}
		w.done = true
		return w.sessions(ctx)
	}
	for {
		in, err := w.input.Next(ctx)
		if err != nil || in == nil {
			return nil, err
		}
		out, err := w.assign(in)
		if err != nil {
			return nil, err
		}
		if out.NumRows() > 0 {
			return out, nil
		}
	}
}

// assign handles tumbling and hopping windows for one batch.
func (w *windowAssignOp) assign(in arrow.RecordBatch) (arrow.RecordBatch, error) {
	ectx := w.env.exprCtx()
	tarr, err := w.plan.Time.Eval(ectx, in)
	if err != nil {
		return nil, err
	}
	ts := tarr.(*array.Timestamp)
	if w.oneWindowPerRow() && ts.NullN() == 0 {
		return w.passThrough(in, ts), nil
	}
	n := int(in.NumRows())
	perRow := 1
	if w.plan.Kind == planner.HoppingWindow {
		perRow = int((w.plan.Size + w.plan.Slide - 1) / w.plan.Slide)
	}
	idx := make([]int, 0, n*perRow)
	starts := make([]int64, 0, n*perRow)
	off := w.plan.Offset
	for i, v := range ts.TimestampValues() {
		if ts.IsNull(i) {
			continue // a row without event time belongs to no window
		}
		t := int64(v)
		if w.plan.Kind == planner.TumblingWindow {
			idx = append(idx, i)
			starts = append(starts, TumbleStart(t-off, w.plan.Size)+off)
			continue
		}
		last := TumbleStart(t-off, w.plan.Slide) + off
		for s := last - w.plan.Size + w.plan.Slide; s <= last; s += w.plan.Slide {
			idx = append(idx, i)
			starts = append(starts, s)
		}
	}
	return w.emit(in, idx, starts, nil), nil
}

// oneWindowPerRow is whether every row with an event time lands in
// exactly one window, so that the output is the input, in order, with
// the window columns appended: a tumbling window, or a hopping one whose
// slide is its size.
func (w *windowAssignOp) oneWindowPerRow() bool {
	switch w.plan.Kind {
	case planner.TumblingWindow:
		return true
	case planner.HoppingWindow:
		return w.plan.Slide == w.plan.Size
	}
	return false
}

// passThrough is in with each row's window appended, for windows that
// keep every row once and in order (oneWindowPerRow) over an event time
// without NULLs: the input columns are shared, not copied, and only
// window_start and window_end are computed, in one loop over the times.
func (w *windowAssignOp) passThrough(in arrow.RecordBatch, ts *array.Timestamp) arrow.RecordBatch {
	size, off := w.plan.Size, w.plan.Offset
	times := ts.TimestampValues()
	starts := make([]int64, len(times))
	ends := make([]int64, len(times))
	for i, v := range times {
		s := TumbleStart(int64(v)-off, size) + off
		starts[i], ends[i] = s, s+size
	}
	cols := make([]arrow.Array, 0, in.NumCols()+2)
	cols = append(cols, in.Columns()...)
	cols = append(cols, w.timeArray(starts), w.timeArray(ends))
	return array.NewRecordBatch(w.schema, cols, in.NumRows())
}

// timeArray is vals as an array of the event time's type, over vals'
// memory (no NULLs).
func (w *windowAssignOp) timeArray(vals []int64) arrow.Array {
	data := array.NewData(w.plan.Time.Type().Arrow(), len(vals),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(vals))}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// emit builds output rows: input row idx[k] with window starts[k] (and
// ends[k], or start + size when ends is nil). The input columns are
// gathered by expr.TakeArray; a row is repeated once per window.
func (w *windowAssignOp) emit(in arrow.RecordBatch, idx []int, starts, ends []int64) arrow.RecordBatch {
	cols := make([]arrow.Array, 0, in.NumCols()+2)
	for c := 0; c < int(in.NumCols()); c++ {
		cols = append(cols, expr.TakeArray(in.Column(c), idx))
	}
	if ends == nil {
		ends = make([]int64, len(starts))
		for k, s := range starts {
			ends[k] = s + w.plan.Size
		}
	}
	cols = append(cols, w.timeArray(starts), w.timeArray(ends))
	return array.NewRecordBatch(w.schema, cols, int64(len(idx)))
}

// sessions reads the whole input, groups rows by partition, orders each
// partition by event time and cuts it into sessions.
func (w *windowAssignOp) sessions(ctx context.Context) (arrow.RecordBatch, error) {
	var parts []arrow.RecordBatch
	for {
		b, err := w.input.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		b.Retain()
		parts = append(parts, b)
	}
	all, err := concatBatches(w.env.exprCtx().Allocator(), planner.Schema(w.plan.Input.Columns()), parts)
	if err != nil {
		return nil, err
	}
	ectx := w.env.exprCtx()
	tarr, err := w.plan.Time.Eval(ectx, all)
	if err != nil {
		return nil, err
	}
	keys := make([]arrow.Array, len(w.plan.PartitionBy))
	for i, e := range w.plan.PartitionBy {
		if keys[i], err = e.Eval(ectx, all); err != nil {
			return nil, err
		}
	}
	ts := tarr.(*array.Timestamp)
	byKey := map[string][]int{}
	var order []string
	var sb strings.Builder
	for i := 0; i < int(all.NumRows()); i++ {
		if ts.IsNull(i) {
			continue
		}
		sb.Reset()
		for _, k := range keys {
			fmt.Fprintf(&sb, "%#v\x00", expr.DatumAt(k, i))
		}
		key := sb.String()
		if _, ok := byKey[key]; !ok {
			order = append(order, key)
		}
		byKey[key] = append(byKey[key], i)
	}
	var idx []int
	var starts, ends []int64
	for _, key := range order {
		rows := byKey[key]
		sort.SliceStable(rows, func(a, b int) bool { return ts.Value(rows[a]) < ts.Value(rows[b]) })
		first := 0
		for j := 1; j <= len(rows); j++ {
			if j < len(rows) && int64(ts.Value(rows[j]))-int64(ts.Value(rows[j-1])) < w.plan.Gap {
				continue
			}
			s, e := int64(ts.Value(rows[first])), int64(ts.Value(rows[j-1]))+w.plan.Gap
			for _, r := range rows[first:j] {
				idx = append(idx, r)
				starts = append(starts, s)
				ends = append(ends, e)
			}
			first = j
		}
	}
	return w.emit(all, idx, starts, ends), nil
}

func (w *windowAssignOp) Close() { w.input.Close() }
