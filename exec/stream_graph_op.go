package exec

import (
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// graphOp is a stream tree's graph as the job's one operator, with one
// input per source: Push collects an epoch's rows of each source, Advance
// raises a source's watermark, and Emit runs the epoch through the graph.
// The sources' watermarks are part of its state.
type graphOp struct {
	graph  *StreamGraph
	rows   [][]arrow.RecordBatch
	srcWM  []int64
	pushed bool // any input since the state began (MinEpoch)
	// table holds an update-mode table's rows (nil in append mode).
	table *changelogTable
}

var _ StreamOperator = (*graphOp)(nil)

func newGraphOp(plan *planner.StreamPlan) (*graphOp, error) {
	g, err := BuildStreamGraph(plan.Tree)
	if err != nil {
		return nil, err
	}
	op := &graphOp{graph: g, rows: make([][]arrow.RecordBatch, g.Sources()), srcWM: make([]int64, g.Sources())}
	if plan.Mode != planner.AppendMode {
		op.table = newChangelogTable(plan.Cols)
	}
	for i := range op.srcWM {
		op.srcWM[i] = math.MinInt64
	}
	return op, nil
}

func (o *graphOp) Inputs() int { return o.graph.Sources() }

func (o *graphOp) Push(_ *StreamCtx, input int, c ChangeBatch) error {
	o.rows[input] = append(o.rows[input], c.Rows)
	o.pushed = true
	return nil
}

func (o *graphOp) Advance(_ *StreamCtx, input int, wm int64) error {
	o.srcWM[input] = max(o.srcWM[input], wm)
	return nil
}

func (o *graphOp) Emit(sc *StreamCtx) ([]ChangeBatch, error) {
	out, err := o.graph.Step(sc, o.rows, o.srcWM)
	for i := range o.rows {
		o.rows[i] = nil
	}
	if err == nil && o.table != nil {
		o.table.apply(out)
	}
	return out, err
}

// emittedTable is an update-mode table's rows, which the job publishes.
func (o *graphOp) emittedTable() *emittedRows {
	if o.table == nil {
		return nil
	}
	return o.table.e
}

func (o *graphOp) Watermark() int64              { return o.graph.Watermark() }
func (o *graphOp) Late() int64                   { return o.graph.Late() }
func (o *graphOp) LateRows() []arrow.RecordBatch { return o.graph.LateRows() }
func (o *graphOp) StateSize() (rows, bytes int64) {
	rows, bytes = o.graph.StateSize()
	if o.table != nil {
		bytes += o.table.e.stateBytes()
	}
	return rows, bytes
}

// MinEpoch is 1 once the graph has seen input: the sources' watermarks
// are state too, so a restart restores a snapshot or re-runs every epoch.
func (o *graphOp) MinEpoch(next int64) int64 {
	if o.pushed {
		return 1
	}
	return next
}

const kindSources = "sources"

// SaveState is the graph's state and the sources' watermarks.
func (o *graphOp) SaveState(sc *StreamCtx) ([]arrow.RecordBatch, error) {
	st, err := o.graph.SaveState(sc)
	if err != nil {
		return nil, err
	}
	meta := map[string]int64{"n": int64(len(o.srcWM))}
	for i, wm := range o.srcWM {
		meta["wm"+strconv.Itoa(i)] = wm
	}
	st = append(st, emptyState(kindSources, meta))
	if o.table != nil {
		st = append(st, o.table.save()...)
	}
	return st, nil
}

func (o *graphOp) LoadState(sc *StreamCtx, state []arrow.RecordBatch) error {
	var rest []arrow.RecordBatch
	found := false
	if o.table != nil {
		o.table = newChangelogTable(o.table.e.cols)
	}
	for _, b := range state {
		kind, _ := b.Schema().Metadata().GetValue(stateKind)
		_, tagged := b.Schema().Metadata().GetValue(graphNodeKey)
		if kind == kindRows && !tagged && o.table != nil {
			if err := o.table.load(b); err != nil {
				return err
			}
			continue
		}
		if kind == kindSources {
			n, err := metaInt(b.Schema(), "n")
			if err != nil || int(n) != len(o.srcWM) {
				return sqlerr.New(sqlerr.DataCorrupted, "the state snapshot is of a plan with other sources")
			}
			for i := range o.srcWM {
				if o.srcWM[i], err = metaInt(b.Schema(), "wm"+strconv.Itoa(i)); err != nil {
					return err
				}
			}
			found = true
			continue
		}
		rest = append(rest, b)
	}
	if !found && len(state) > 0 {
		return corruptSnapshot("stream graph sources")
	}
	o.pushed = found
	return o.graph.LoadState(sc, rest)
}
