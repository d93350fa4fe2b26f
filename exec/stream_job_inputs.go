package exec

import (
	"context"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// A plan with several sources (a stream tree) reads each from its own
// offset: Source and offset are the first, More and moreOffsets the
// others; an epoch's record holds every source's end, and a re-run epoch
// reads exactly its logged input from each.

// sourceCount is the number of sources the job reads.
func (j *StreamJob) sourceCount() int { return 1 + len(j.More) }

func (j *StreamJob) source(i int) connector.Source {
	if i == 0 {
		return j.Source
	}
	return j.More[i-1]
}

func (j *StreamJob) offsetOf(i int) int64 {
	if i == 0 {
		return j.offset
	}
	if len(j.moreOffsets) < len(j.More) {
		j.moreOffsets = append(j.moreOffsets, make([]int64, len(j.More)-len(j.moreOffsets))...)
	}
	return j.moreOffsets[i-1]
}

func (j *StreamJob) setOffset(i int, v int64) {
	if i == 0 {
		j.offset = v
		return
	}
	j.offsetOf(i)
	j.moreOffsets[i-1] = v
}

// replayEnd is the logged end of source i for the next re-run epoch.
func (j *StreamJob) replayEnd(i int) int64 {
	if i == 0 {
		return j.Replay[0]
	}
	if len(j.ReplayMore) == 0 || i-1 >= len(j.ReplayMore[0]) {
		return j.offsetOf(i) // not logged: nothing more was read from it
	}
	return j.ReplayMore[0][i-1]
}

// readInputs reads every source for one epoch: up to MaxBatchesPerEpoch
// batches each, or exactly the logged input of a re-run epoch. ok is
// false when the epoch must not run now (a re-run epoch whose input is not
// all there yet, or one that read nothing, which is skipped).
func (j *StreamJob) readInputs(ctx context.Context, replaying bool) (reads []connector.Read, ok bool, err error) {
	n := j.sourceCount()
	limits := make([]int, n)
	for i := range limits {
		limits[i] = j.MaxBatchesPerEpoch
	}
	if replaying {
		total := 0
		for i := range limits {
			limits[i] = int(j.replayEnd(i) - j.offsetOf(i))
			total += max(limits[i], 0)
		}
		if total <= 0 {
			// A logged epoch that read nothing (never written so): skip it.
			j.popReplay()
			if len(j.Replay) == 0 {
				j.markRecovered()
			}
			return nil, false, nil
		}
	}
	reads = make([]connector.Read, n)
	for i := 0; i < n; i++ {
		off := j.offsetOf(i)
		if replaying && limits[i] <= 0 {
			// Nothing of this source in the re-run epoch (Read's max 0
			// would mean everything).
			reads[i] = connector.Read{From: off, Next: off}
			continue
		}
		rd, err := j.source(i).Read(ctx, off, limits[i])
		if err != nil {
			return nil, false, err
		}
		if j.progress.Epoch == 0 && !replaying && off < rd.From {
			off = rd.From // a fresh start reads what retention kept
			j.setOffset(i, off)
		}
		if off < rd.From {
			return nil, false, sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "input rows this streaming table still needs were removed by retention")
		}
		if off > rd.From {
			j.setOffset(i, rd.From) // the input was truncated; start over from what is there
		}
		if replaying && rd.Next < j.replayEnd(i) {
			// The input (an upstream streaming table still recovering) does
			// not hold this epoch's batches yet: wait, so that the epoch is
			// re-run with exactly its original input.
			return nil, false, nil
		}
		reads[i] = rd
	}
	if replaying {
		j.popReplay()
	}
	return reads, true, nil
}

func (j *StreamJob) popReplay() {
	j.Replay = j.Replay[1:]
	if len(j.ReplayMore) > 0 {
		j.ReplayMore = j.ReplayMore[1:]
	}
	if len(j.ReplayNow) > 0 {
		j.ReplayNow = j.ReplayNow[1:]
	}
}

// epochCtx is the expression context of an epoch: the job's, with now()
// at the epoch's processing time.
func (j *StreamJob) epochCtx(now int64) *expr.Ctx {
	c := *j.Env.exprCtx()
	c.Now = time.UnixMicro(now).UTC()
	return &c
}

// moreEnds is the ends of the sources after the first, for the record.
func (j *StreamJob) moreEnds(reads []connector.Read) []int64 {
	if len(j.More) == 0 {
		return nil
	}
	out := make([]int64, len(j.More))
	for i := range out {
		out[i] = reads[i+1].Next
	}
	return out
}

// runTree pushes every source's rows into the tree's graph, advances each
// source's watermark (its largest event time delivered minus its delay,
// or the source's own promise) and takes the root's changes; it returns
// how many rows the operators dropped as late.
func (j *StreamJob) runTree(ectx *expr.Ctx, reads []connector.Read) ([]ChangeBatch, int64, error) {
	if j.op == nil {
		return nil, 0, sqlerr.New(sqlerr.InternalError, "streaming table %s has no operator for its plan", j.TableName)
	}
	sc := &StreamCtx{Expr: ectx, Epoch: j.progress.Epoch + 1, Replaying: j.replayingFor(j.progress.Epoch + 1), Tables: j.Env.Tables, KeepLate: j.KeepLate}
	lateBefore := j.op.Late()
	for i, rd := range reads {
		for _, b := range rd.Batches {
			if err := j.op.Push(sc, i, Inserts(b)); err != nil {
				return nil, 0, err
			}
		}
	}
	for i, leaf := range j.plan.Tree.Sources {
		if i >= len(reads) {
			break
		}
		cand, has, err := sourceWatermark(ectx, leaf, reads[i])
		if err != nil {
			return nil, 0, err
		}
		if has {
			if err := j.op.Advance(sc, i, cand); err != nil {
				return nil, 0, err
			}
		}
	}
	changes, err := j.op.Emit(sc)
	if err != nil {
		return nil, 0, err
	}
	// A tree's late rows come as exec.LateRowsColumns (the operator, the
	// row as jsonb): its operators' rows have several shapes.
	j.late = append(j.late, j.op.LateRows()...)
	if wm := j.op.Watermark(); wm > j.watermark {
		j.watermark = wm
	}
	return changes, j.op.Late() - lateBefore, nil
}

// sourceWatermark is the watermark candidate of one source's epoch.
func sourceWatermark(ectx *expr.Ctx, leaf *planner.StreamLeaf, rd connector.Read) (int64, bool, error) {
	return watermarkCandidate(ectx, leaf.EventTime, leaf.Delay, rd)
}

// watermarkCandidate is what an epoch's input says of the watermark: its
// largest event time delivered minus the delay, or the source's promise
// (nil eventTime: the input has no watermark).
func watermarkCandidate(ectx *expr.Ctx, eventTime expr.Expr, delay int64, rd connector.Read) (int64, bool, error) {
	if eventTime == nil {
		return 0, false, nil
	}
	cand, has := int64(math.MinInt64), false
	if rd.HasWatermark {
		cand, has = rd.Watermark-delay, true
	}
	for _, b := range rd.Batches {
		arr, err := eventTime.Eval(ectx, b)
		if err != nil {
			return 0, false, err
		}
		ts := arr.(*array.Timestamp)
		for i := 0; i < ts.Len(); i++ {
			if !ts.IsNull(i) {
				if v := int64(ts.Value(i)) - delay; !has || v > cand {
					cand, has = v, true
				}
			}
		}
	}
	return cand, has, nil
}
