package exec

import (
	"context"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// StatelessStage runs a stateless plan (filters, projections, window
// assignment, joins with static tables) over each batch of changes pushed
// into it, as a StreamOperator of one input: the plan reads the pushed
// rows through its scan of Input, and other tables as they are when the
// epoch runs. Inserted and deleted rows go through the plan
// separately and keep their kind (so a filter drops a deleted row exactly
// when it dropped the row's insert); the plan must be one that maps each
// row on its own (no aggregation, sort or limit), which the planner
// checks. It holds no state; its watermark is its input's.
type StatelessStage struct {
	Plan planner.Node
	// Input is the OID of the scan in Plan that reads the pushed rows;
	// the other tables come from the StreamCtx.
	Input uint32

	wm  int64
	out []ChangeBatch
	set bool
}

// Inputs is 1.
func (s *StatelessStage) Inputs() int { return 1 }

func (s *StatelessStage) run(sc *StreamCtx, rows arrow.RecordBatch) ([]arrow.RecordBatch, error) {
	env := &Env{Tables: &streamSource{input: s.Input, batches: []arrow.RecordBatch{rows}, other: sc.Tables}, Ctx: sc.Expr}
	return Run(context.Background(), env, s.Plan)
}

// Push runs the plan over the changes.
func (s *StatelessStage) Push(sc *StreamCtx, _ int, c ChangeBatch) error {
	if c.Rows.NumRows() == 0 {
		return nil
	}
	if c.AppendOnly() {
		res, err := s.run(sc, c.Rows)
		if err != nil {
			return err
		}
		for _, b := range res {
			if b.NumRows() > 0 {
				s.out = append(s.out, Inserts(b))
			}
		}
		return nil
	}
	// An insert and a delete of an equal row in the batch cancel first: a
	// Top-N whose row enters and leaves the top in one epoch emits both,
	// and passed on deletes-first they would delete a row the consumer
	// does not hold yet.
	cs := ConsolidateChanges([]ChangeBatch{c})
	if len(cs) == 0 {
		return nil
	}
	c = cs[0]
	// Deletes, then inserts, each through the plan once: the consumers of
	// a changelog apply an epoch's changes as a multiset, in which a delete
	// that comes before its insert cancels it (changelogTable), so the
	// order within the batch need not be kept — and runs of one row each
	// (a Top-N renumbering rows: delete, insert, delete, ...) would run the
	// plan once per row.
	var del, ins []int
	for i, d := range c.Diff {
		if d == ChangeDelete {
			del = append(del, i)
		} else {
			ins = append(ins, i)
		}
	}
	for _, part := range []struct {
		idx  []int
		kind int8
	}{{del, ChangeDelete}, {ins, ChangeInsert}} {
		if len(part.idx) == 0 {
			continue
		}
		res, err := s.run(sc, takeRowsOf(c.Rows, part.idx))
		if err != nil {
			return err
		}
		for _, b := range res {
			if b.NumRows() == 0 {
				continue
			}
			cb := ChangeBatch{Rows: b}
			if part.kind == ChangeDelete {
				cb.Diff = make([]int8, b.NumRows())
				for i := range cb.Diff {
					cb.Diff[i] = ChangeDelete
				}
			}
			s.out = append(s.out, cb)
		}
	}
	return nil
}

func takeRowsOf(b arrow.RecordBatch, idx []int) arrow.RecordBatch {
	if len(idx) == int(b.NumRows()) {
		return b
	}
	return expr.TakeRows(b, idx)
}

// Advance records the input's watermark, which the stage passes on.
func (s *StatelessStage) Advance(_ *StreamCtx, _ int, wm int64) error {
	if !s.set || wm > s.wm {
		s.wm, s.set = wm, true
	}
	return nil
}

// Emit returns the rows computed since the last Emit.
func (s *StatelessStage) Emit(*StreamCtx) ([]ChangeBatch, error) {
	out := s.out
	s.out = nil
	return out, nil
}

// Watermark is the input's.
func (s *StatelessStage) Watermark() int64 {
	if !s.set {
		return math.MinInt64
	}
	return s.wm
}

// Late is 0: a stateless stage drops nothing as late.
func (s *StatelessStage) Late() int64                    { return 0 }
func (s *StatelessStage) LateRows() []arrow.RecordBatch  { return nil }
func (s *StatelessStage) MinEpoch(next int64) int64      { return next }
func (s *StatelessStage) StateSize() (rows, bytes int64) { return 0, 0 }
func (s *StatelessStage) SaveState(*StreamCtx) ([]arrow.RecordBatch, error) {
	return []arrow.RecordBatch{emptyState(kindStateless, map[string]int64{"wm": s.Watermark()})}, nil
}

// LoadState restores the watermark passed on.
func (s *StatelessStage) LoadState(_ *StreamCtx, state []arrow.RecordBatch) error {
	s.out, s.set, s.wm = nil, false, math.MinInt64
	for _, b := range state {
		if v, _ := b.Schema().Metadata().GetValue(stateKind); v != kindStateless {
			return sqlerr.New(sqlerr.DataCorrupted, "stateless stage: unexpected state")
		}
		wm, err := metaInt(b.Schema(), "wm")
		if err != nil {
			return err
		}
		if wm != math.MinInt64 {
			s.wm, s.set = wm, true
		}
	}
	return nil
}

const kindStateless = "stateless"

// emptyState is a state batch that carries only its metadata. It holds
// one row of one column: the store keeps no batch without rows.
func emptyState(kind string, meta map[string]int64) arrow.RecordBatch {
	schema := stateSchema(kind, meta, []arrow.Field{{Name: "weir_marker", Type: arrow.PrimitiveTypes.Int64}})
	return array.NewRecordBatch(schema, []arrow.Array{int64Array([]int64{0})}, 1)
}
