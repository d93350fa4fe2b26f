package planner

import "github.com/weir-sql/weir/sql/expr"

// A streaming plan is a tree of stream nodes (StreamPlan.Stages): leaves
// are the inputs read as streams, each with its watermark; stateless
// nodes run over each micro-batch (filters, projections, window
// assignment, joins with static tables); stateful nodes keep state across
// micro-batches (window and session aggregation, deduplication), and the
// executor runs each as one stream operator (exec.StreamOperator). The
// job builds its operators from the tree, and streaming EXPLAIN prints it.

// StageKind is what a stream node does.
type StageKind int

const (
	// StageSourceNode is a leaf: one input read as a stream (Source).
	StageSourceNode StageKind = iota
	// StageStatelessNode runs Plan over each micro-batch of its input.
	StageStatelessNode
	// StageWindowAggNode aggregates over tumbling or hopping windows, or
	// over the whole stream when it has no window (Agg, Window).
	StageWindowAggNode
	// StageSessionAggNode aggregates over session windows (Agg, Window).
	StageSessionAggNode
	// StageDedupNode keeps the first row of each key (Keys).
	StageDedupNode
)

// StageNode is one node of a streaming plan's tree.
type StageNode struct {
	Kind StageKind
	// Inputs are the nodes below (none for a leaf; one for the node kinds
	// so far; two for a join of two streams).
	Inputs []*StageNode
	// Source is a leaf's input.
	Source *StageSource
	// Plan is a stateless node's plan, reading its input through a Scan
	// of the source relation.
	Plan Node
	// Agg and Window are an aggregation's; Keys a deduplication's.
	Agg    *Aggregate
	Window *WindowAssign
	Keys   []expr.Expr
	// Having and Output are the stateless part above a node (HAVING and
	// the output expressions), applied to the rows it emits; a stateless
	// node without Output emits its plan's rows.
	Having expr.Expr
	Output []expr.Expr
	// Cols are the node's output columns.
	Cols []Column
}

// StageSource is an input read as a stream, with its watermark.
type StageSource struct {
	Relation *Relation
	// EventTime is the watermarked event time over the relation's columns
	// and Delay the watermark delay (microseconds); nil without a
	// watermark. WatermarkColumn names the column.
	EventTime       expr.Expr
	Delay           int64
	WatermarkColumn string
}

// Stateful reports whether the node keeps state across micro-batches.
func (n *StageNode) Stateful() bool {
	switch n.Kind {
	case StageWindowAggNode, StageSessionAggNode, StageDedupNode:
		return true
	}
	return false
}

// Leaves returns the tree's sources, left to right: the job's inputs.
func (n *StageNode) Leaves() []*StageNode {
	if n.Kind == StageSourceNode {
		return []*StageNode{n}
	}
	var out []*StageNode
	for _, in := range n.Inputs {
		out = append(out, in.Leaves()...)
	}
	return out
}

// buildTree makes the plan's tree from its parts: source ← stateless part
// (Pre) ← the stateful node, if any (with its HAVING and output). A
// stateless query's tree is the source and the stateless node, which then
// computes the output expressions too.
func (sp *StreamPlan) buildTree() {
	leaf := &StageNode{Kind: StageSourceNode, Cols: relColumnsOf(sp.Input),
		Source: &StageSource{Relation: sp.Input, EventTime: sp.EventTime, Delay: sp.Delay, WatermarkColumn: sp.WatermarkColumn}}
	pre := &StageNode{Kind: StageStatelessNode, Inputs: []*StageNode{leaf}, Plan: sp.Pre, Cols: sp.Pre.Columns()}
	if sp.Agg == nil && sp.Dedup == nil {
		// A stateless query: the output expressions run over the rows too.
		pre.Output, pre.Cols = sp.Output, sp.Cols
		sp.Stages = pre
		return
	}
	switch {
	case sp.Agg != nil && sp.Window != nil && sp.Window.Kind == SessionWindow:
		sp.Stages = &StageNode{Kind: StageSessionAggNode, Inputs: []*StageNode{pre}, Agg: sp.Agg, Window: sp.Window,
			Having: sp.Having, Output: sp.Output, Cols: sp.Cols}
	case sp.Agg != nil:
		sp.Stages = &StageNode{Kind: StageWindowAggNode, Inputs: []*StageNode{pre}, Agg: sp.Agg, Window: sp.Window,
			Having: sp.Having, Output: sp.Output, Cols: sp.Cols}
	default:
		sp.Stages = &StageNode{Kind: StageDedupNode, Inputs: []*StageNode{pre}, Keys: sp.Dedup, Output: sp.Output, Cols: sp.Cols}
	}
}

func relColumnsOf(rel *Relation) []Column {
	cols := make([]Column, len(rel.Cols))
	for i, c := range rel.Cols {
		cols[i] = Column{Name: c.Name, T: c.T}
	}
	return cols
}
