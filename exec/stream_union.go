package exec

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
)

// UnionStage is UNION ALL of two streams: the changes pushed on either
// input are its output, in the order they came, unchanged (the planner
// made both inputs' columns the same types). It holds no state; its
// watermark is the lower of its inputs' (math.MinInt64 until both have
// one), so nothing above it treats a row of the slower input as late.
type UnionStage struct {
	wm  [2]int64
	set [2]bool
	out []ChangeBatch
}

// Inputs is 2.
func (u *UnionStage) Inputs() int { return 2 }

// Push passes the changes on.
func (u *UnionStage) Push(_ *StreamCtx, _ int, c ChangeBatch) error {
	if c.Rows.NumRows() > 0 {
		u.out = append(u.out, c)
	}
	return nil
}

// Advance records input i's watermark.
func (u *UnionStage) Advance(_ *StreamCtx, i int, wm int64) error {
	if i >= 0 && i < 2 && (!u.set[i] || wm > u.wm[i]) {
		u.wm[i], u.set[i] = wm, true
	}
	return nil
}

// Emit returns the changes pushed since the last call.
func (u *UnionStage) Emit(*StreamCtx) ([]ChangeBatch, error) {
	out := u.out
	u.out = nil
	return out, nil
}

// Watermark is the lower of the inputs' watermarks.
func (u *UnionStage) Watermark() int64 {
	if !u.set[0] || !u.set[1] {
		return math.MinInt64
	}
	return min(u.wm[0], u.wm[1])
}

func (u *UnionStage) Late() int64                   { return 0 }
func (u *UnionStage) LateRows() []arrow.RecordBatch { return nil }

// SaveState has nothing to save: the graph keeps the inputs' watermarks
// and advances the stage to them again after a restore.
func (u *UnionStage) SaveState(*StreamCtx) ([]arrow.RecordBatch, error) { return nil, nil }

// LoadState forgets the watermarks, which the graph advances again.
func (u *UnionStage) LoadState(*StreamCtx, []arrow.RecordBatch) error {
	*u = UnionStage{}
	return nil
}

func (u *UnionStage) MinEpoch(next int64) int64      { return next }
func (u *UnionStage) StateSize() (rows, bytes int64) { return 0, 0 }
