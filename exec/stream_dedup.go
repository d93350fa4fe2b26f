package exec

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
)

// Deduplication (SELECT DISTINCT ON (key) ... FROM STREAM t): the first row
// of each key to arrive is emitted; a row whose event time is below the
// watermark is late. A key is remembered until the watermark passes the
// event time of its row, which bounds the state to the keys seen within
// the watermark delay. Its output is append-only: the table's columns of
// the rows it keeps.
type dedupOp struct {
	plan *planner.StreamPlan
	proj *streamProjection
	// seen is the keys remembered, with the event time that keeps each
	// alive; epochOf the epoch each arrived in.
	seen    map[string]int64
	epochOf map[string]int64
	// timeCol is the watermark column's index in the rows being
	// deduplicated (-1: no watermark; keys are kept forever).
	timeCol   int
	watermark int64
	pending   []ChangeBatch
	late      int64
	lateRows  []arrow.RecordBatch
	keyBuf    []byte
}

var _ StreamOperator = (*dedupOp)(nil)

func newDedupOp(plan *planner.StreamPlan) *dedupOp {
	op := &dedupOp{plan: plan, proj: newStreamProjection(nil, plan.Output, plan.Cols),
		seen: map[string]int64{}, epochOf: map[string]int64{}, timeCol: -1, watermark: math.MinInt64}
	for i, c := range plan.Pre.Columns() {
		if c.Name == plan.WatermarkColumn && plan.EventTime != nil {
			op.timeCol = i
		}
	}
	return op
}

func (op *dedupOp) Inputs() int      { return 1 }
func (op *dedupOp) Watermark() int64 { return op.watermark }
func (op *dedupOp) Late() int64      { return op.late }

func (op *dedupOp) LateRows() []arrow.RecordBatch {
	out := op.lateRows
	op.lateRows = nil
	return out
}

// Push keeps the rows whose key is new; the rows kept are emitted at once.
func (op *dedupOp) Push(sc *StreamCtx, _ int, c ChangeBatch) error {
	b := c.Rows
	keys, err := evalAll(sc.Expr, op.plan.Dedup, b)
	if err != nil {
		return err
	}
	var times *array.Timestamp
	if op.timeCol >= 0 {
		times, _ = b.Column(op.timeCol).(*array.Timestamp)
	}
	var keep, lateIdx []int
	for i := 0; i < int(b.NumRows()); i++ {
		t := int64(0)
		if times != nil && !times.IsNull(i) {
			t = int64(times.Value(i))
			if t < op.watermark {
				op.late++
				lateIdx = append(lateIdx, i)
				continue
			}
		}
		op.keyBuf = appendRowKey(op.keyBuf[:0], keys, i)
		if _, dup := op.seen[string(op.keyBuf)]; dup {
			continue
		}
		k := string(op.keyBuf)
		op.seen[k] = t
		op.epochOf[k] = sc.Epoch
		keep = append(keep, i)
	}
	if sc.KeepLate && len(lateIdx) > 0 {
		op.lateRows = append(op.lateRows, expr.TakeRows(b, lateIdx))
	}
	if len(keep) > 0 {
		out, err := op.proj.project(sc.Expr, expr.TakeRows(b, keep), nil)
		if err != nil {
			return err
		}
		if out.NumRows() > 0 {
			op.pending = append(op.pending, Inserts(out))
		}
	}
	return nil
}

// Advance forgets keys whose rows are older than the watermark: any later
// row of such a key is late anyway.
func (op *dedupOp) Advance(_ *StreamCtx, _ int, wm int64) error {
	if wm > op.watermark {
		op.watermark = wm
	}
	if op.timeCol < 0 {
		return nil
	}
	for k, t := range op.seen {
		if t < op.watermark {
			delete(op.seen, k)
			delete(op.epochOf, k)
		}
	}
	return nil
}

func (op *dedupOp) Emit(*StreamCtx) ([]ChangeBatch, error) {
	out := op.pending
	op.pending = nil
	return out, nil
}

// MinEpoch is the epoch of the oldest remembered key.
func (op *dedupOp) MinEpoch(next int64) int64 {
	m := next
	for _, e := range op.epochOf {
		m = min(m, e)
	}
	return m
}

func (op *dedupOp) StateSize() (rows, bytes int64) {
	for k := range op.seen {
		rows++
		bytes += int64(len(k)) + groupOverheadBytes
	}
	return rows, bytes
}

// SaveState returns the remembered keys with their event times and epochs.
func (op *dedupOp) SaveState(*StreamCtx) ([]arrow.RecordBatch, error) {
	keys := array.NewBinaryBuilder(memory.DefaultAllocator, arrow.BinaryTypes.Binary)
	defer keys.Release()
	var times, epochs []int64
	for k, t := range op.seen {
		keys.Append([]byte(k))
		times = append(times, t)
		epochs = append(epochs, op.epochOf[k])
	}
	i64 := arrow.PrimitiveTypes.Int64
	return []arrow.RecordBatch{array.NewRecordBatch(stateSchema(kindDedup, nil, []arrow.Field{
		{Name: "key", Type: arrow.BinaryTypes.Binary}, {Name: "t", Type: i64}, {Name: "epoch", Type: i64},
	}), []arrow.Array{keys.NewArray(), int64Array(times), int64Array(epochs)}, int64(len(times)))}, nil
}

// LoadState restores what SaveState returned (the operator must be new).
func (op *dedupOp) LoadState(_ *StreamCtx, state []arrow.RecordBatch) error {
	for _, b := range state {
		if stateKindOf(b) != kindDedup {
			return unknownStatePart(b)
		}
		if b.NumCols() != 3 {
			return corruptSnapshot("deduplication keys of another shape")
		}
		keys, ok := b.Column(0).(*array.Binary)
		if !ok {
			return corruptSnapshot("deduplication keys of another shape")
		}
		times, err := int64Column(b, 1)
		if err != nil {
			return err
		}
		epochs, err := int64Column(b, 2)
		if err != nil {
			return err
		}
		for i := range times {
			k := string(keys.Value(i))
			op.seen[k] = times[i]
			op.epochOf[k] = epochs[i]
		}
	}
	return nil
}
