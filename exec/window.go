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

// windowOp appends one column per window call to its input rows. While
// the input fits in work_mem it is held in one batch: the calls of each
// ordering partition the rows by hashing PartitionBy, order every
// partition by OrderBy (stably), and compute their functions; output rows
// are in window order when all calls share one ordering, in input order
// otherwise. Past work_mem the window goes through sorted
// stages instead (spill_window.go, window_stages.go), whose output is in
// the last stage's window order, as PostgreSQL's is.
//
// Aggregates over a frame reuse one accumulator while the frame only grows
// at its end (the default frame, ROWS UNBOUNDED PRECEDING, whole-partition
// frames), so running sums are incremental; other frames re-run a fresh
// accumulator per row. This relies on Accumulator.Finish leaving the state
// usable, as PostgreSQL's window aggregates rely on their final functions;
// an accumulator that is an expr.FinalAppender appends each row's result
// straight into the output builder instead of building a one-row array.
type windowOp struct {
	env    *Env
	plan   *planner.Window
	input  Operator
	schema *arrow.Schema
	done   bool
	out    queue
	spill  windowSpill // buffering within work_mem: spill_window.go
}

var _ Operator = (*windowOp)(nil)

func (w *windowOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := checkCancel(ctx, w.env); err != nil {
		return nil, err
	}
	if !w.done {
		w.done = true
		in, err := w.buffer(ctx)
		if err != nil {
			return nil, err
		}
		if in == nil { // past work_mem: sorted stages
			return w.spill.sorted.Next(ctx)
		}
		defer in.Release()
		rows, cols, err := computeCalls(ctx, w.env, w.plan.Calls, in, false)
		if err != nil {
			return nil, err
		}
		w.out.push(sliceBatches(array.NewRecordBatch(w.schema, append(append([]arrow.Array{}, rows.Columns()...), cols...), rows.NumRows()))...)
		if rows != in {
			rows.Release()
		}
	}
	if w.spill.sorted != nil {
		return w.spill.sorted.Next(ctx)
	}
	b := w.out.pop()
	if b == nil && w.spill.mem != nil {
		w.spill.mem.releaseAll() // the rows held in memory are all out
	}
	return b, nil
}

// windowPartition is one partition's rows in window order: positions
// [start, end) of the sorted order.
type windowPartition struct{ start, end int }

// computeCalls computes calls over rows held in one batch and returns the
// rows with one column per call. Calls of one ordering share its sort and
// peer groups. With one ordering the rows come back in window order (as
// PostgreSQL's do), so that neither the calls' arguments nor their results
// are gathered row by row; with several, in, in its order. sorted says
// the rows are in the calls' one window order already (a windowStageOp's
// complete partitions): they are not sorted again.
func computeCalls(ctx context.Context, env *Env, calls []planner.WindowCall, in arrow.RecordBatch, sorted bool) (arrow.RecordBatch, []arrow.Array, error) {
	cols := make([]arrow.Array, len(calls))
	stages := windowStages(calls)
	rows := in
	for _, stage := range stages {
		if err := checkCancel(ctx, env); err != nil {
			return nil, nil, err
		}
		ord, err := orderRows(ctx, env, &calls[stage.calls[0]], in, sorted)
		if err != nil {
			return nil, nil, err
		}
		if len(stages) == 1 && ord.order != nil {
			rows = takeBatch(env.exprCtx().Allocator(), in.Schema(), in, ord.order)
			ord.order = nil
		}
		for _, ci := range stage.calls {
			if err := checkCancel(ctx, env); err != nil {
				return nil, nil, err
			}
			if cols[ci], err = computeOrdered(env.exprCtx(), &calls[ci], rows, ord); err != nil {
				return nil, nil, err
			}
		}
	}
	return rows, cols, nil
}

// windowOrdering is the rows of a batch arranged in one window ordering:
// order lists the rows in window order (nil: they are in it), parts are
// the partitions and peerStart/peerEnd the peer group of each position,
// all as positions in window order.
type windowOrdering struct {
	order              []int32
	parts              []windowPartition
	peerStart, peerEnd []int32
}

// orderRows arranges the rows of in in call's window ordering: partitions
// by hashing PartitionBy (rows already sorted: by comparing neighbours),
// each sorted stably by OrderBy.
func orderRows(ctx context.Context, env *Env, call *planner.WindowCall, in arrow.RecordBatch, sorted bool) (*windowOrdering, error) {
	ectx := env.exprCtx()
	n := int(in.NumRows())
	var sorter rowSorter
	if err := sorter.load(ectx, call.OrderBy, in); err != nil {
		return nil, err
	}
	ord := &windowOrdering{peerStart: make([]int32, n), peerEnd: make([]int32, n)}
	// samePartition tells whether sorted positions k-1 and k are in one
	// partition.
	var samePartition func(k int) bool
	at := func(k int) int { return k }
	switch {
	case len(call.PartitionBy) == 0:
		samePartition = func(int) bool { return true }
	case sorted:
		var keys []colVec
		pk := make([]planner.SortKey, len(call.PartitionBy))
		for i, e := range call.PartitionBy {
			pk[i] = planner.SortKey{Expr: e}
		}
		if err := loadKeys(ectx, pk, in, &keys); err != nil {
			return nil, err
		}
		samePartition = func(k int) bool { return sameKeys(keys, k-1, keys, k) }
	}
	if !sorted {
		ord.order = make([]int32, n)
		for i := range ord.order {
			ord.order[i] = int32(i)
		}
		order := ord.order
		at = func(k int) int { return int(order[k]) }
		if len(call.PartitionBy) == 0 {
			if err := sorter.sort(ctx, env, order); err != nil {
				return nil, err
			}
		} else {
			keys, err := evalAll(ectx, call.PartitionBy, in)
			if err != nil {
				return nil, err
			}
			ts := make([]types.T, len(keys))
			for i, e := range call.PartitionBy {
				ts[i] = e.Type()
			}
			t := newGroupTable(ectx.Allocator(), ts, false)
			t.prepare(keys)
			part := make([]int32, n)
			for i := range part {
				g, _ := t.insert(i)
				part[i] = int32(g)
			}
			if err := sortStable(ctx, env, order, func(a, b int32) int {
				if pa, pb := part[a], part[b]; pa != pb {
					return int(pa - pb)
				}
				return sorter.compare(int(a), int(b))
			}); err != nil {
				return nil, err
			}
			samePartition = func(k int) bool { return part[order[k-1]] == part[order[k]] }
		}
	}
	for k := 0; k < n; {
		e := k + 1
		for e < n && samePartition(e) {
			e++
		}
		ord.parts = append(ord.parts, windowPartition{k, e})
		for s := k; s < e; {
			pe := s + 1
			for pe < e && sorter.compare(at(s), at(pe)) == 0 {
				pe++
			}
			for x := s; x < pe; x++ {
				ord.peerStart[x], ord.peerEnd[x] = int32(s), int32(pe)
			}
			s = pe
		}
		k = e
	}
	return ord, nil
}

// computeOrdered computes one call over the rows of in arranged by ord,
// and returns its results in the rows' order.
func computeOrdered(ectx *expr.Ctx, call *planner.WindowCall, in arrow.RecordBatch, ord *windowOrdering) (arrow.Array, error) {
	mem := ectx.Allocator()
	n := int(in.NumRows())
	// Arguments in window order.
	args := make([]arrow.Array, len(call.Args))
	for i, e := range call.Args {
		arr, err := e.Eval(ectx, in)
		if err != nil {
			return nil, err
		}
		if ord.order != nil {
			arr = takeArray(mem, arr, ord.order)
		}
		args[i] = arr
	}
	out := expr.NewBuilder(mem, call.T) // results by sorted position
	defer out.Release()
	out.Reserve(n)
	fr := &frameEval{call: call, peerStart: ord.peerStart, peerEnd: ord.peerEnd}
	if err := fr.prepareOffsets(ectx); err != nil {
		return nil, err
	}
	for _, p := range ord.parts {
		if err := computePartition(ectx, call, args, p, fr, out); err != nil {
			return nil, err
		}
	}
	res := out.NewArray()
	if ord.order == nil {
		return res, nil
	}
	defer res.Release()
	byRow := make([]int32, n) // the sorted position of each row
	for k, r := range ord.order {
		byRow[r] = int32(k)
	}
	return takeArray(mem, res, byRow), nil
}

func argInt(args []arrow.Array, i, k int, def int64) (int64, bool) {
	if len(args) <= i {
		return def, true
	}
	switch v := expr.DatumAt(args[i], k).(type) {
	case int64:
		return v, true
	case nil:
		return 0, false
	}
	return def, true
}

func computePartition(ectx *expr.Ctx, call *planner.WindowCall, args []arrow.Array, p windowPartition, fr *frameEval, out array.Builder) error {
	size := p.end - p.start
	switch call.Name {
	case "row_number":
		for k := p.start; k < p.end; k++ {
			appendInt(out, int64(k-p.start+1))
		}
	case "rank":
		for k := p.start; k < p.end; k++ {
			appendInt(out, int64(int(fr.peerStart[k])-p.start+1))
		}
	case "dense_rank":
		var rank int64
		for k := p.start; k < p.end; k++ {
			if int(fr.peerStart[k]) == k {
				rank++
			}
			appendInt(out, rank)
		}
	case "percent_rank":
		for k := p.start; k < p.end; k++ {
			if size == 1 {
				appendFloat(out, 0)
			} else {
				appendFloat(out, float64(int(fr.peerStart[k])-p.start)/float64(size-1))
			}
		}
	case "cume_dist":
		for k := p.start; k < p.end; k++ {
			appendFloat(out, float64(int(fr.peerEnd[k])-p.start)/float64(size))
		}
	case "ntile":
		buckets, ok := argInt(args, 0, p.start, 1)
		if !ok {
			for k := p.start; k < p.end; k++ {
				out.AppendNull()
			}
			return nil
		}
		if buckets <= 0 {
			return sqlerr.New("22014", "argument of ntile must be greater than zero")
		}
		per, extra := int64(size)/buckets, int64(size)%buckets
		bucket, left := int64(1), per
		if extra > 0 {
			left++
		}
		for k := p.start; k < p.end; k++ {
			if left == 0 {
				bucket++
				left = per
				if bucket <= extra {
					left++
				}
			}
			appendInt(out, bucket)
			left--
		}
	case "lag", "lead":
		if len(args) == 0 {
			return sqlerr.New(sqlerr.UndefinedFunction, "function %s() does not exist", call.Name)
		}
		for k := p.start; k < p.end; k++ {
			off, ok := argInt(args, 1, k, 1)
			if !ok {
				out.AppendNull()
				continue
			}
			if call.Name == "lag" {
				off = -off
			}
			t := int64(k) + off
			if t >= int64(p.start) && t < int64(p.end) {
				appendResult(out, args[0], int(t))
			} else if len(args) > 2 {
				appendResult(out, args[2], k)
			} else {
				out.AppendNull()
			}
		}
	case "first_value", "last_value", "nth_value":
		if len(args) == 0 {
			return sqlerr.New(sqlerr.UndefinedFunction, "function %s() does not exist", call.Name)
		}
		var segs []frameRange
		for k := p.start; k < p.end; k++ {
			segs = fr.segments(k, p, segs)
			at := -1
			switch call.Name {
			case "first_value":
				at = nthInSegments(segs, 1, false)
			case "last_value":
				at = nthInSegments(segs, 1, true)
			default:
				nth, ok := argInt(args, 1, k, 1)
				if !ok {
					break
				}
				if nth <= 0 {
					return sqlerr.New("22016", "argument of nth_value must be greater than zero")
				}
				if nth <= int64(p.end-p.start) {
					at = nthInSegments(segs, int(nth), false)
				}
			}
			if at >= 0 {
				appendResult(out, args[0], at)
			} else {
				out.AppendNull()
			}
		}
	default:
		return aggregateOverFrames(ectx, call, args, p, fr, out)
	}
	return nil
}

func aggregateOverFrames(ectx *expr.Ctx, call *planner.WindowCall, args []arrow.Array, p windowPartition, fr *frameEval, out array.Builder) error {
	if call.Agg == nil || call.Agg.Overload == nil || call.Agg.Overload.New == nil {
		return sqlerr.New(sqlerr.UndefinedFunction, "window function %s does not exist", call.Name)
	}
	if fr.frame.Exclude != planner.ExcludeNoOthers {
		return aggregateExcluding(ectx, call, args, p, fr, out)
	}
	var acc expr.Accumulator
	var fa expr.FinalAppender // acc's, when it has one: no per-row result array
	curS, curE := -1, -1
	var cur arrow.Array // without fa: the aggregate over [curS, curE), one row
	zeros := make([]uint32, p.end-p.start)
	sl := make([]arrow.Array, len(args))
	for k := p.start; k < p.end; k++ {
		if k%frameCancelRows == 0 && ectx.Canceled() {
			return errCanceled()
		}
		s, e := fr.bounds(k, p)
		if e < s {
			e = s
		}
		if acc == nil || s != curS || e != curE {
			from := curE
			if acc == nil || s != curS || e < curE {
				acc = call.Agg.Overload.New(call.Agg.ArgTypes, call.Agg.Ret)
				fa, _ = acc.(expr.FinalAppender)
				from = s
			}
			if e > from {
				for i, a := range args {
					sl[i] = array.NewSlice(a, int64(from), int64(e))
				}
				err := acc.Update(ectx, zeros[:e-from], sl)
				for _, a := range sl {
					a.Release()
				}
				if err != nil {
					return err
				}
			}
			curS, curE = s, e
			if fa == nil {
				res, err := acc.Finish(ectx, 1)
				if err != nil {
					return err
				}
				if cur != nil {
					cur.Release()
				}
				cur = res
			}
		}
		if fa != nil {
			if err := fa.AppendFinal(ectx, 0, out); err != nil {
				return err
			}
			continue
		}
		appendResult(out, cur, 0)
	}
	if cur != nil {
		cur.Release()
	}
	return nil
}

// appendAggregate appends acc's current result for its group 0 to out:
// through expr.FinalAppender when the accumulator has it, through a one-row
// Finish otherwise.
func appendAggregate(ectx *expr.Ctx, acc expr.Accumulator, out array.Builder) error {
	if fa, ok := acc.(expr.FinalAppender); ok {
		return fa.AppendFinal(ectx, 0, out)
	}
	res, err := acc.Finish(ectx, 1)
	if err != nil {
		return err
	}
	appendResult(out, res, 0)
	res.Release()
	return nil
}

// frameCancelRows is how often (in rows) a frame computation, whose rows
// can each cost a pass over a long frame, looks for a cancel.
const frameCancelRows = 64

// frameEval computes a call's frame bounds per sorted position.
type frameEval struct {
	call               *planner.WindowCall
	frame              planner.Frame
	peerStart, peerEnd []int32
	startOff, endOff   int64
}

func (f *frameEval) prepareOffsets(ectx *expr.Ctx) error {
	f.frame = f.call.Frame
	if f.frame.End.Kind == planner.UnboundedPreceding {
		// The zero Frame (an end of UNBOUNDED PRECEDING is not valid SQL)
		// stands for the default frame.
		f.frame = planner.Frame{Start: planner.FrameBound{Kind: planner.UnboundedPreceding}, End: planner.FrameBound{Kind: planner.CurrentRow}}
	}
	fr := f.frame
	var err error
	for _, b := range []struct {
		bound *planner.FrameBound
		dst   *int64
		what  string
	}{{&fr.Start, &f.startOff, "starting"}, {&fr.End, &f.endOff, "ending"}} {
		if b.bound.Kind != planner.OffsetPreceding && b.bound.Kind != planner.OffsetFollowing {
			continue
		}
		if !fr.Rows {
			return sqlerr.New(sqlerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported")
		}
		if b.bound.Offset == nil {
			return sqlerr.New(sqlerr.WindowingError, "frame %s offset is missing", b.what)
		}
		if *b.dst, err = constInt(ectx, b.bound.Offset, -1); err != nil {
			return err
		}
		if *b.dst < 0 {
			return sqlerr.New("22013", "frame %s offset must not be negative", b.what)
		}
	}
	return nil
}

// bounds returns the frame of sorted position k as [s, e).
func (f *frameEval) bounds(k int, p windowPartition) (int, int) {
	return f.boundsAt(k, p.start, p.end, int(f.peerStart[k]), int(f.peerEnd[k]))
}

// boundsAt returns the frame of row k of the partition [start, end) whose
// peer group is [ps, pe), as [s, e): the one computation of frame edges,
// for a partition in memory and for one read back from its spill file.
func (f *frameEval) boundsAt(k, start, end, ps, pe int) (int, int) {
	fr := f.frame
	clamp := func(x int) int { return max(start, min(end, x)) }
	var s, e int
	switch fr.Start.Kind {
	case planner.UnboundedPreceding:
		s = start
	case planner.OffsetPreceding:
		s = clamp(k - int(min(f.startOff, int64(end))))
	case planner.CurrentRow:
		s = k
		if !fr.Rows {
			s = ps
		}
	case planner.OffsetFollowing:
		s = clamp(k + int(min(f.startOff, int64(end))))
	case planner.UnboundedFollowing:
		s = end
	}
	switch fr.End.Kind {
	case planner.UnboundedPreceding:
		e = start
	case planner.OffsetPreceding:
		e = clamp(k - int(min(f.endOff, int64(end))) + 1)
	case planner.CurrentRow:
		e = k + 1
		if !fr.Rows {
			e = pe
		}
	case planner.OffsetFollowing:
		e = clamp(k + int(min(f.endOff, int64(end))) + 1)
	case planner.UnboundedFollowing:
		e = end
	}
	return s, e
}

func (w *windowOp) Close() {
	w.input.Close()
	w.spill.close()
}
