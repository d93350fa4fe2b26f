package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/expr"
)

// Deduplication (SELECT DISTINCT ON (key) ... FROM STREAM t): the first row
// of each key to arrive is emitted; a row whose event time is below the
// watermark is late. A key is remembered until the watermark passes the
// event time of its row, which bounds the state to the keys seen within
// the watermark delay.

// dedupState is the keys seen, with the event time that keeps each alive.
type dedupState struct {
	seen map[string]int64
	// epochOf is the epoch each remembered key arrived in.
	epochOf map[string]int64
	// timeCol is the watermark column's index in the rows being
	// deduplicated (-1: no watermark; keys are kept forever).
	timeCol int
}

// dedupState returns the deduplication state, creating it empty.
func (j *StreamJob) dedupState() *dedupState {
	if j.dedup == nil {
		j.dedup = &dedupState{seen: map[string]int64{}, epochOf: map[string]int64{}, timeCol: -1}
		for i, c := range j.plan.Pre.Columns() {
			if c.Name == j.plan.WatermarkColumn && j.plan.EventTime != nil {
				j.dedup.timeCol = i
			}
		}
	}
	return j.dedup
}

func (j *StreamJob) dedupe(ectx *expr.Ctx, pre []arrow.RecordBatch) ([]arrow.RecordBatch, int64, error) {
	j.dedupState()
	var out []arrow.RecordBatch
	var late int64
	for _, b := range pre {
		keys, err := evalAll(ectx, j.plan.Dedup, b)
		if err != nil {
			return nil, 0, err
		}
		var times *array.Timestamp
		if j.dedup.timeCol >= 0 {
			times, _ = b.Column(j.dedup.timeCol).(*array.Timestamp)
		}
		var keep, lateIdx []int
		for i := 0; i < int(b.NumRows()); i++ {
			t := int64(0)
			if times != nil && !times.IsNull(i) {
				t = int64(times.Value(i))
				if t < j.watermark {
					late++
					lateIdx = append(lateIdx, i)
					continue
				}
			}
			kb := j.rowKey(keys, i)
			if _, dup := j.dedup.seen[string(kb)]; dup {
				continue
			}
			k := string(kb)
			j.dedup.seen[k] = t
			j.dedup.epochOf[k] = j.progress.Epoch + 1
			keep = append(keep, i)
		}
		if j.KeepLate && len(lateIdx) > 0 {
			j.late = append(j.late, expr.TakeRows(b, lateIdx))
		}
		if len(keep) > 0 {
			out = append(out, expr.TakeRows(b, keep))
		}
	}
	return out, late, nil
}

// expireDedup forgets keys whose rows are older than the watermark: any
// later row of such a key is late anyway.
func (j *StreamJob) expireDedup() {
	if j.dedup == nil || j.dedup.timeCol < 0 {
		return
	}
	for k, t := range j.dedup.seen {
		if t < j.watermark {
			delete(j.dedup.seen, k)
			delete(j.dedup.epochOf, k)
		}
	}
}
