package planner

import (
	"fmt"
	"strings"

	"github.com/weir-sql/weir/sql/expr"
)

// StreamExplainOptions are what a streaming EXPLAIN says that the plan
// does not know.
type StreamExplainOptions struct {
	// Name is the streaming table's.
	Name string
	// Latency is the "Latency target" answer (it depends on the trigger).
	Latency string
}

// ExplainStream prints a streaming plan: its tree (each stateful node's
// state and what frees it, then the stateless part below it), its inputs
// and watermarks, and the seven answers a streaming design owes.
func (sp *StreamPlan) ExplainStream(opts StreamExplainOptions) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	add("Streaming Table %s (output mode: %s)", opts.Name, sp.Mode)
	sp.explainExpectations(add) // stream_expectations.go
	if sp.Tree != nil {
		sp.explainTree(opts, add)
		return out
	}
	sp.explainNode(sp.Stages, "  ", add)
	for _, leaf := range sp.Stages.Leaves() {
		src := leaf.Source
		if src.Relation.Source {
			add("Input: source %s (read from its committed offset; append-only; the source's watermark hint can advance the watermark)", src.Relation.Name)
		} else {
			add("Input: %s (read from its committed offset; append-only)", src.Relation.Name)
		}
		if src.EventTime != nil {
			add("Watermark: max(%s) - %s, advanced at the end of each micro-batch, never backwards", src.WatermarkColumn, Micros(src.Delay))
		} else {
			add("Watermark: none")
		}
	}
	if sp.Window != nil {
		switch sp.Window.Kind {
		case TumblingWindow:
			add("Window: tumbling %s on %s", Micros(sp.Window.Size), sp.Window.Time)
		case HoppingWindow:
			add("Window: hopping %s every %s on %s", Micros(sp.Window.Size), Micros(sp.Window.Slide), sp.Window.Time)
		case SessionWindow:
			add("Window: session gap %s on %s", Micros(sp.Window.Gap), sp.Window.Time)
		}
		if sp.Window.Offset != 0 {
			add("Windows start at: the Unix epoch + %s", Micros(sp.Window.Offset))
		}
	}
	for _, w := range sp.Warnings {
		add("WARNING: %s", w)
	}
	sp.explainAnswers(opts, add)
	return out
}

// explainNode prints node n and the nodes below it, indented by ind.
func (sp *StreamPlan) explainNode(n *StageNode, ind string, add func(string, ...any)) {
	switch n.Kind {
	case StageSourceNode:
		return // the inputs are printed after the tree
	case StageStatelessNode:
		for i, l := range Explain(n.Plan) {
			if i == 0 {
				l = "->  " + l
			}
			add("%s%s", ind, l)
		}
	case StageWindowAggNode, StageSessionAggNode:
		kind := "Aggregate"
		if sp.WindowKey >= 0 {
			kind = "Windowed Aggregate"
		}
		add("%s->  %s", ind, kind)
		add("%s      State key: (%s)", ind, exprList(n.Agg.GroupBy))
		var aggs []string
		for _, a := range n.Agg.Aggs {
			aggs = append(aggs, a.Name)
		}
		add("%s      Aggregates: %s", ind, strings.Join(aggs, ", "))
		switch {
		case sp.WindowKey >= 0 && sp.EventTime != nil:
			add("%s      State bound: a window's state is freed when the watermark on %s passes its end", ind, sp.WatermarkColumn)
		case sp.WindowKey >= 0:
			add("%s      State bound: none (no watermark closes windows)", ind)
		default:
			add("%s      State bound: none (one entry per group, kept forever)", ind)
		}
		add("%s      Emits: %s", ind, sp.emitText())
	case StageDedupNode:
		add("%s->  Deduplicate", ind)
		add("%s      State key: (%s)", ind, exprList(n.Keys))
		if sp.EventTime != nil {
			add("%s      State bound: a key is forgotten when the watermark on %s passes its row's event time", ind, sp.WatermarkColumn)
		} else {
			add("%s      State bound: none (every key is kept)", ind)
		}
		add("%s      Emits: the first row of each key, once", ind)
	}
	if n.Stateful() {
		ind += "      "
	}
	for _, in := range n.Inputs {
		sp.explainNode(in, ind, add)
	}
}

func (sp *StreamPlan) emitText() string {
	switch sp.Mode {
	case AppendMode:
		return "a window's rows once, when the watermark closes it"
	case UpdateMode:
		return "changed groups after every micro-batch"
	}
	return "the whole result after every micro-batch"
}

// explainAnswers prints the seven answers: where progress is stored, what
// a crash does, how much state, late data, the delivery guarantee, the
// latency target and the cost.
func (sp *StreamPlan) explainAnswers(opts StreamExplainOptions, add func(string, ...any)) {
	snapshots := sp.SnapshotsState()
	where := "Where progress is stored: in weir's store, one commit per epoch holding the input offset at its end"
	if sp.Mode == AppendMode {
		where += " and the rows it added"
	}
	where += sp.expectationProgress() // stream_expectations.go
	where += ", fsynced before the epoch is visible"
	if snapshots && (sp.Agg != nil || sp.Dedup != nil) {
		where += "; about every state's worth of input (weir serve --snapshot-rows) that commit also holds a snapshot of the whole state"
	}
	add("%s", where)
	switch {
	case sp.Agg == nil && sp.Dedup == nil:
		add("What a crash does: on restart the table is served from its stored rows and the job goes on after the last committed epoch (it keeps no state); nothing is lost or written twice, and retention may remove input the table has read")
	case snapshots && sp.Mode == AppendMode:
		add("What a crash does: on restart the table is served from its stored rows; the job restores its latest state snapshot and re-runs the epochs logged after it over the same input, reaching the same state; nothing is lost or counted twice, and retention may remove input older than the snapshot")
	case snapshots:
		add("What a crash does: on restart the job restores its latest state snapshot and re-runs the epochs logged after it over the same input, reaching the same state and the same table (readers wait until it has); nothing is lost or counted twice, and retention may remove input older than the snapshot")
	case sp.Mode == AppendMode:
		add("What a crash does: on restart the table is served from its stored rows, and the job re-runs the logged epochs of its still-open state over the same retained input, reaching the same state; nothing is lost or counted twice (an aggregate here has no state snapshot: DISTINCT, ORDER BY or json_agg)")
	default:
		add("What a crash does: on restart the job re-runs every logged epoch over the same input, reaching the same state and the same table (readers wait until it has); nothing is lost or counted twice, and input retention keeps all the input this table read (an aggregate here has no state snapshot: DISTINCT, ORDER BY or json_agg)")
	}
	switch {
	case sp.Dedup != nil && sp.EventTime != nil:
		add("How much state: the keys seen within the watermark delay")
	case sp.Dedup != nil:
		add("How much state: unbounded: every key seen")
	case sp.Agg == nil:
		add("How much state: none (stateless)")
	case sp.WindowKey >= 0 && sp.EventTime != nil:
		add("How much state: the groups of open windows (window size + watermark delay worth of keys)")
	default:
		add("How much state: unbounded: one entry per distinct group")
	}
	if sp.EventTime != nil && sp.Dedup != nil {
		add("Late data: rows with an event time below the watermark are dropped and counted in weir_catalog.streaming_progress.late_rows")
	} else if sp.EventTime != nil && sp.Agg != nil {
		add("Late data: rows for windows already closed by the watermark are dropped, counted in weir_catalog.streaming_progress.late_rows, and written to the late_rows table when that option is set")
	} else {
		add("Late data: no watermark, so no row is late")
	}
	if snapshots && (sp.Agg != nil || sp.Dedup != nil) {
		add("Delivery guarantee: exactly once into the table (state snapshots plus deterministic re-execution of the logged epochs after them)")
	} else {
		add("Delivery guarantee: exactly once into the table (deterministic re-execution of the logged epochs)")
	}
	add("Latency target: %s", opts.Latency)
	add("Cost: one goroutine; CPU proportional to input rows; memory proportional to state")
}

// SnapshotsState reports whether a plan's state can be snapshotted: every
// aggregate's accumulator must save its state (not json_agg), and
// windowed aggregates must not be DISTINCT or ordered (their state is more
// than the accumulator's). Sessions keep rows, not accumulators, so they
// always can. A job that cannot recovers by re-running its epochs.
func (sp *StreamPlan) SnapshotsState() bool {
	if sp.Agg == nil || (sp.Window != nil && sp.Window.Kind == SessionWindow) {
		return true
	}
	for i := range sp.Agg.Aggs {
		c := &sp.Agg.Aggs[i]
		if c.Distinct || len(c.OrderBy) > 0 || !expr.AggregateSnapshots(c.Agg) {
			return false
		}
	}
	return true
}

// explainTree prints a stream tree (ExplainStreamTree), its sources and
// the seven answers as they hold for a tree of operators.
func (sp *StreamPlan) explainTree(opts StreamExplainOptions, add func(string, ...any)) {
	for _, l := range ExplainStreamTree(sp.Tree) {
		add("  %s", l)
	}
	for _, src := range sp.Tree.Sources {
		kind := ""
		if src.Input.Source {
			kind = "source "
		}
		if src.Changelog {
			add("Input %d: %s (its change log, read from its committed offset: inserts and deletes)", src.Index, src.Input.Name)
			continue
		}
		add("Input %d: %s%s (read from its committed offset; append-only)", src.Index, kind, src.Input.Name)
	}
	for _, w := range sp.Warnings {
		add("WARNING: %s", w)
	}
	snapshots := true
	var walk func(n *StreamNode)
	walk = func(n *StreamNode) {
		if n.Kind == AggNode && !n.Agg.SnapshotsState() {
			snapshots = false
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(sp.Tree.Root)
	where := "Where progress is stored: in weir's store, one commit per epoch holding every source's offset at its end and its processing time"
	if sp.Mode == AppendMode {
		where += ", and the rows it added"
	}
	where += sp.expectationProgress() // stream_expectations.go
	if snapshots {
		where += "; about every state's worth of input that commit also holds a snapshot of every operator's state and the sources' watermarks"
	}
	add("%s", where)
	if snapshots {
		add("What a crash does: on restart the job restores its latest state snapshot and re-runs the epochs logged after it, each reading exactly its logged input from every source; nothing is lost or counted twice")
	} else {
		add("What a crash does: on restart the job re-runs every logged epoch, each reading exactly its logged input from every source; nothing is lost or counted twice (an aggregate here has no state snapshot)")
	}
	if len(sp.Warnings) > 0 {
		add("How much state: unbounded (see the warnings)")
	} else {
		add("How much state: what each operator above keeps until its state bound passes")
	}
	add("Late data: a row behind its own source's watermark (a join, OVER) or of a window already closed (an aggregation, a window Top-N) is dropped, counted in weir_catalog.streaming_progress.late_rows, and written to the late_rows table when that option is set (the operator, and the row as jsonb)")
	add("Delivery guarantee: exactly once into the table (state snapshots plus deterministic re-execution of the logged epochs after them)")
	add("Latency target: %s", opts.Latency)
	add("Cost: one goroutine for the operators, each source read ahead in another; CPU proportional to input rows; memory proportional to state")
}
