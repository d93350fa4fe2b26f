package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// spilledPartition computes a stage's calls over one partition held in a
// partitionStore, a chunk of output rows at a time, with the results of
// each call built into Arrow columns; nothing per row is held for the
// whole partition. The current row moves forward through the store; what
// a call needs of other rows it reads through the store's cache at the
// positions it needs (frame head and tail, lag and lead, the end of the
// current peer group), which move forward with the current row for the
// frames PostgreSQL moves its pointers for.
//
// The frame edges are those of the in-memory computation (frameEval), and
// aggregates reuse their accumulator exactly where the in-memory code does
// (while the frame's start stays and its end grows), so the two give the
// same answers at the same cost per row.
type spilledPartition struct {
	st      *windowStageOp
	store   *partitionStore
	n       int64 // rows in the partition
	nextRow int64 // first row not yet output
	nIn     int   // the stage's input columns
	groupAt int   // the peer group column
	calls   []spilledCall
	zeros   []uint32

	// The peer group of the current row: its number and [start, end);
	// end is found when first needed (-1 until then).
	group, groupStart, groupEnd int64
}

// spilledCall is one call's state as the current row moves.
type spilledCall struct {
	call  *planner.WindowCall
	argAt int // the store column of its first argument
	fr    frameEval
	segs  []frameRange

	acc        expr.Accumulator
	curS, curE int64
	fa         expr.FinalAppender // acc's, when it has one
	cur        arrow.Array        // without fa: the aggregate over [curS, curE), one row

	ntileNull                bool
	per, extra, bucket, left int64
}

func newSpilledPartition(st *windowStageOp, store *partitionStore) (*spilledPartition, error) {
	sp := &spilledPartition{st: st, store: store, n: store.rows, nIn: st.inSchema.NumFields(),
		groupAt: store.schema.NumFields() - 1, group: -1, zeros: make([]uint32, BatchSize)}
	at := sp.nIn
	ectx := st.env.exprCtx()
	for i := range st.calls {
		c := spilledCall{call: &st.calls[i], argAt: at, curS: -1, curE: -1}
		at += len(st.calls[i].Args)
		c.fr.call = c.call
		if err := c.fr.prepareOffsets(ectx); err != nil {
			return nil, err
		}
		if err := sp.startCall(&c); err != nil {
			return nil, err
		}
		sp.calls = append(sp.calls, c)
	}
	return sp, nil
}

// startCall checks a call's arguments and sets up what it keeps over the
// partition.
func (sp *spilledPartition) startCall(c *spilledCall) error {
	call := c.call
	switch call.Name {
	case "row_number", "rank", "dense_rank", "percent_rank", "cume_dist":
	case "ntile":
		if len(call.Args) == 0 {
			return sqlerr.New(sqlerr.UndefinedFunction, "function ntile() does not exist")
		}
		// The bucket count is the first row's, as in the in-memory code.
		b, start, err := sp.store.chunk(0)
		if err != nil {
			return err
		}
		buckets, ok := intArg(b.Column(c.argAt), int(0-start), 1)
		if !ok {
			c.ntileNull = true
			return nil
		}
		if buckets <= 0 {
			return sqlerr.New("22014", "argument of ntile must be greater than zero")
		}
		c.per, c.extra = sp.n/buckets, sp.n%buckets
		c.bucket, c.left = 1, c.per
		if c.extra > 0 {
			c.left++
		}
	case "lag", "lead", "first_value", "last_value", "nth_value":
		if len(call.Args) == 0 {
			return sqlerr.New(sqlerr.UndefinedFunction, "function %s() does not exist", call.Name)
		}
	default:
		if call.Agg == nil || call.Agg.Overload == nil || call.Agg.Overload.New == nil {
			return sqlerr.New(sqlerr.UndefinedFunction, "window function %s does not exist", call.Name)
		}
	}
	return nil
}

// intArg reads an integer argument at row i (def when the call has no such
// argument); false when it is NULL.
func intArg(arr arrow.Array, i int, def int64) (int64, bool) {
	if arr == nil {
		return def, true
	}
	if arr.IsNull(i) {
		return 0, false
	}
	switch a := arr.(type) {
	case *array.Int32:
		return int64(a.Value(i)), true
	case *array.Int64:
		return a.Value(i), true
	}
	if v, ok := expr.DatumAt(arr, i).(int64); ok {
		return v, true
	}
	return def, true
}

// next computes the rows of the next chunk; nil when the partition is out.
func (sp *spilledPartition) next() (arrow.RecordBatch, error) {
	if sp.nextRow >= sp.n {
		return nil, nil
	}
	b, start, err := sp.store.chunk(sp.nextRow)
	if err != nil {
		return nil, err
	}
	b.Retain() // other chunks are read while this one is computed
	defer b.Release()
	rows := int(b.NumRows())
	mem := sp.st.env.exprCtx().Allocator()
	builders := make([]array.Builder, len(sp.calls))
	defer func() {
		for _, bl := range builders {
			bl.Release()
		}
	}()
	for i := range sp.calls {
		builders[i] = expr.NewBuilder(mem, sp.calls[i].call.T)
		builders[i].Reserve(rows)
	}
	groups := b.Column(sp.groupAt).(*array.Int64).Int64Values()
	for i := 0; i < rows; i++ {
		if i%frameCancelRows == 0 {
			if err := checkCancel(sp.store.ctx, sp.st.env); err != nil {
				return nil, err
			}
		}
		k := start + int64(i)
		if g := groups[i]; g != sp.group {
			sp.group, sp.groupStart, sp.groupEnd = g, k, -1
		}
		for c := range sp.calls {
			if err := sp.row(&sp.calls[c], builders[c], b, start, i); err != nil {
				return nil, err
			}
		}
	}
	cols := append([]arrow.Array{}, b.Columns()[:sp.nIn]...)
	for _, bl := range builders {
		cols = append(cols, bl.NewArray())
	}
	sp.nextRow = start + int64(rows)
	return array.NewRecordBatch(sp.st.schema, cols, int64(rows)), nil
}

// peerEnd is the end of the current row's peer group. Peer group numbers
// grow along the partition, so it is the first row of a larger number:
// found chunk by chunk from the current row on, by binary search in the
// chunk where the number changes.
func (sp *spilledPartition) peerEnd(k int64) (int64, error) {
	if sp.groupEnd >= 0 {
		return sp.groupEnd, nil
	}
	if sp.group == sp.store.lastGroup {
		sp.groupEnd = sp.n
		return sp.n, nil
	}
	for r := k; ; {
		b, start, err := sp.store.chunk(r)
		if err != nil {
			return 0, err
		}
		gs := b.Column(sp.groupAt).(*array.Int64).Int64Values()
		if gs[len(gs)-1] == sp.group {
			r = start + int64(len(gs))
			continue
		}
		lo, hi := int(r-start), len(gs)
		for lo < hi {
			m := (lo + hi) / 2
			if gs[m] > sp.group {
				hi = m
			} else {
				lo = m + 1
			}
		}
		sp.groupEnd = start + int64(lo)
		return sp.groupEnd, nil
	}
}

// valueAt is the store's column col at row r: the array and the index in
// it, valid until the next read of the store.
func (sp *spilledPartition) valueAt(cur arrow.RecordBatch, curStart int64, col int, r int64) (arrow.Array, int, error) {
	if r >= curStart && r < curStart+cur.NumRows() {
		return cur.Column(col), int(r - curStart), nil
	}
	b, start, err := sp.store.chunk(r)
	if err != nil {
		return nil, 0, err
	}
	return b.Column(col), int(r - start), nil
}

// needsPeerEnd tells whether a call's frame uses the end of the current
// row's peer group.
func needsPeerEnd(fr *frameEval) bool {
	f := fr.frame
	return (!f.Rows && (f.Start.Kind == planner.CurrentRow || f.End.Kind == planner.CurrentRow)) ||
		f.Exclude == planner.ExcludeGroup || f.Exclude == planner.ExcludeTies
}

// row appends call c's result for row i of the current chunk cur (row
// start+i of the partition).
func (sp *spilledPartition) row(c *spilledCall, out array.Builder, cur arrow.RecordBatch, start int64, i int) error {
	k := start + int64(i)
	n := sp.n
	arg := func(a int) arrow.Array {
		if a < len(c.call.Args) {
			return cur.Column(c.argAt + a)
		}
		return nil
	}
	switch c.call.Name {
	case "row_number":
		appendInt(out, k+1)
	case "rank":
		appendInt(out, sp.groupStart+1)
	case "dense_rank":
		appendInt(out, sp.group+1)
	case "percent_rank":
		if n == 1 {
			appendFloat(out, 0)
		} else {
			appendFloat(out, float64(sp.groupStart)/float64(n-1))
		}
	case "cume_dist":
		pe, err := sp.peerEnd(k)
		if err != nil {
			return err
		}
		appendFloat(out, float64(pe)/float64(n))
	case "ntile":
		if c.ntileNull {
			out.AppendNull()
			return nil
		}
		if c.left == 0 {
			c.bucket++
			c.left = c.per
			if c.bucket <= c.extra {
				c.left++
			}
		}
		appendInt(out, c.bucket)
		c.left--
	case "lag", "lead":
		off, ok := intArg(arg(1), i, 1)
		if !ok {
			out.AppendNull()
			return nil
		}
		if c.call.Name == "lag" {
			off = -off
		}
		if t := k + off; t >= 0 && t < n {
			arr, j, err := sp.valueAt(cur, start, c.argAt, t)
			if err != nil {
				return err
			}
			appendResult(out, arr, j)
		} else if len(c.call.Args) > 2 {
			appendResult(out, arg(2), i)
		} else {
			out.AppendNull()
		}
	case "first_value", "last_value", "nth_value":
		if err := sp.frameSegments(c, k); err != nil {
			return err
		}
		at := -1
		switch c.call.Name {
		case "first_value":
			at = nthInSegments(c.segs, 1, false)
		case "last_value":
			at = nthInSegments(c.segs, 1, true)
		default:
			nth, ok := intArg(arg(1), i, 1)
			if !ok {
				break
			}
			if nth <= 0 {
				return sqlerr.New("22016", "argument of nth_value must be greater than zero")
			}
			if nth <= n {
				at = nthInSegments(c.segs, int(nth), false)
			}
		}
		if at < 0 {
			out.AppendNull()
			return nil
		}
		arr, j, err := sp.valueAt(cur, start, c.argAt, int64(at))
		if err != nil {
			return err
		}
		appendResult(out, arr, j)
	default:
		return sp.aggregateRow(c, out, k)
	}
	return nil
}

// frameSegments sets c.segs to row k's frame after its exclusion.
func (sp *spilledPartition) frameSegments(c *spilledCall, k int64) error {
	pe := k + 1
	if needsPeerEnd(&c.fr) {
		var err error
		if pe, err = sp.peerEnd(k); err != nil {
			return err
		}
	}
	c.segs = c.fr.segmentsAt(int(k), 0, int(sp.n), int(sp.groupStart), int(pe), c.segs)
	return nil
}

// aggregateRow appends the aggregate over row k's frame. Without an
// exclusion the accumulator goes on while the frame's start stays and its
// end does not move back (running frames, whole-partition frames: one
// pass); otherwise a fresh accumulator reads the frame, as in memory.
func (sp *spilledPartition) aggregateRow(c *spilledCall, out array.Builder, k int64) error {
	ectx := sp.st.env.exprCtx()
	agg := c.call.Agg
	if c.fr.frame.Exclude != planner.ExcludeNoOthers {
		if err := sp.frameSegments(c, k); err != nil {
			return err
		}
		acc := agg.Overload.New(agg.ArgTypes, agg.Ret)
		for _, sg := range c.segs {
			if err := sp.update(c, acc, int64(sg.s), int64(sg.e)); err != nil {
				return err
			}
		}
		return appendAggregate(ectx, acc, out)
	}
	pe := k + 1
	if needsPeerEnd(&c.fr) {
		var err error
		if pe, err = sp.peerEnd(k); err != nil {
			return err
		}
	}
	s32, e32 := c.fr.boundsAt(int(k), 0, int(sp.n), int(sp.groupStart), int(pe))
	s, e := int64(s32), int64(e32)
	if e < s {
		e = s
	}
	if c.acc == nil || s != c.curS || e != c.curE {
		from := c.curE
		if c.acc == nil || s != c.curS || e < c.curE {
			c.acc = agg.Overload.New(agg.ArgTypes, agg.Ret)
			c.fa, _ = c.acc.(expr.FinalAppender)
			from = s
		}
		if e > from {
			if err := sp.update(c, c.acc, from, e); err != nil {
				return err
			}
		}
		c.curS, c.curE = s, e
		if c.fa == nil {
			res, err := c.acc.Finish(ectx, 1)
			if err != nil {
				return err
			}
			if c.cur != nil {
				c.cur.Release()
			}
			c.cur = res
		}
	}
	if c.fa != nil {
		return c.fa.AppendFinal(ectx, 0, out)
	}
	appendResult(out, c.cur, 0)
	return nil
}

// update folds rows [from, e) of the partition into acc, chunk by chunk.
func (sp *spilledPartition) update(c *spilledCall, acc expr.Accumulator, from, e int64) error {
	ectx := sp.st.env.exprCtx()
	nargs := len(c.call.Args)
	sl := make([]arrow.Array, nargs)
	for r := from; r < e; {
		b, start, err := sp.store.chunk(r)
		if err != nil {
			return err
		}
		lo, hi := r-start, min(e, start+b.NumRows())-start
		for a := 0; a < nargs; a++ {
			sl[a] = array.NewSlice(b.Column(c.argAt+a), lo, hi)
		}
		err = acc.Update(ectx, sp.zeros[:hi-lo], sl)
		for _, a := range sl {
			a.Release()
		}
		if err != nil {
			return err
		}
		r = start + hi
	}
	return nil
}

// appendInt appends an integer result to a builder of int8, int4 or int2.
func appendInt(b array.Builder, v int64) {
	switch bb := b.(type) {
	case *array.Int64Builder:
		bb.Append(v)
	case *array.Int32Builder:
		bb.Append(int32(v))
	default:
		expr.AppendDatum(b, v)
	}
}

// appendFloat appends a float8 result.
func appendFloat(b array.Builder, v float64) {
	if bb, ok := b.(*array.Float64Builder); ok {
		bb.Append(v)
		return
	}
	expr.AppendDatum(b, v)
}

// appendResult appends element i of arr to a call's result builder: as is
// when the types agree (they do for every call the binder makes), through
// a Datum otherwise, so that a kernel returning a wider type cannot panic.
func appendResult(b array.Builder, arr arrow.Array, i int) {
	if arr.DataType().ID() == b.Type().ID() {
		appendValue(b, arr, i)
		return
	}
	expr.AppendDatum(b, expr.DatumAt(arr, i))
}
