package exec

import (
	"math"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// BuildStreamGraph makes one operator per node of a stream tree: the
// leaves are the graph's sources, a stateless node a StatelessStage, and
// each stateful node its operator.
func BuildStreamGraph(tree *planner.StreamTree) (*StreamGraph, error) {
	g := NewStreamGraph(len(tree.Sources))
	g.changelog = make([]bool, len(tree.Sources))
	for i, s := range tree.Sources {
		g.changelog[i] = s.Changelog
	}
	var build func(n *planner.StreamNode) (GraphInput, error)
	build = func(n *planner.StreamNode) (GraphInput, error) {
		if n.Kind == planner.LeafNode {
			return FromSource(n.Leaf.Index), nil
		}
		ins := make([]GraphInput, len(n.Children))
		for i, c := range n.Children {
			in, err := build(c)
			if err != nil {
				return GraphInput{}, err
			}
			ins[i] = in
		}
		op, err := newTreeOperator(n)
		if err != nil {
			return GraphInput{}, err
		}
		if n.WatermarkShift != 0 {
			op = &shiftedWatermark{StreamOperator: op, shift: n.WatermarkShift}
		}
		id := g.Add(op, ins...)
		g.nodes[id].late = lateShapeOf(n)
		return FromNode(id), nil
	}
	root, err := build(tree.Root)
	if err != nil {
		return nil, err
	}
	if root.Source >= 0 {
		// A bare source: pass its rows through.
		g.Add(&StatelessStage{Plan: tree.Sources[root.Source].Scan, Input: tree.Sources[root.Source].Scan.OID}, root)
	}
	return g, nil
}

// newTreeOperator is the operator of one stateful or stateless node.
func newTreeOperator(n *planner.StreamNode) (StreamOperator, error) {
	switch n.Kind {
	case planner.StatelessNode:
		return &StatelessStage{Plan: n.Plan, Input: n.Reads}, nil
	case planner.JoinNode:
		sj := n.Join
		j := sj.Join
		kind := j.Kind
		if kind == planner.CrossJoin {
			kind = planner.InnerJoin
		}
		if sj.Changelog {
			return &RetractingJoin{Kind: kind, LeftKeys: j.LeftKeys, RightKeys: j.RightKeys, Cond: j.Cond,
				LeftCols: j.Left.Columns(), RightCols: j.Right.Columns()}, nil
		}
		return &IntervalJoin{Kind: kind, LeftKeys: j.LeftKeys, RightKeys: j.RightKeys, Cond: j.Cond,
			LeftTime: sj.Sides[0].TimeCol, RightTime: sj.Sides[1].TimeCol,
			Lo: sj.Bounds.Lo, Hi: sj.Bounds.Hi, HasLo: sj.Bounds.HasLo, HasHi: sj.Bounds.HasHi,
			LeftCols: j.Left.Columns(), RightCols: j.Right.Columns()}, nil
	case planner.TopNNode:
		t := n.TopN
		return &TopN{PartitionBy: t.PartitionBy, OrderBy: t.OrderBy, N: t.N, RankCol: t.RankCol,
			Cols: t.Input.Columns(), CloseCol: t.CloseCol, CloseOffset: t.CloseOffset}, nil
	case planner.OverNode:
		if n.Over.Changelog {
			return &ChangelogOver{Window: n.Over.Window, Reach: n.Over.Context}, nil
		}
		return &RollingOver{Window: n.Over.Window, TimeCol: n.Over.TimeCol, Context: n.Over.Context}, nil
	case planner.AggNode:
		return newTreeAggregation(n.Agg)
	case planner.DedupNode:
		return newDedupOp(n.Dedup), nil
	case planner.UnionNode:
		return &UnionStage{}, nil
	case planner.GroupAggNode:
		a := n.GroupAgg.Agg
		return &RetractingAggregate{GroupBy: a.GroupBy, Aggs: a.Aggs, Cols: a.Columns(), AppendOnly: !n.GroupAgg.Changelog}, nil
	}
	return nil, sqlerr.New(sqlerr.InternalError, "stream tree: unexpected node kind %d", n.Kind)
}

// newTreeAggregation is the window aggregation of a stream tree's node.
func newTreeAggregation(sp *planner.StreamPlan) (StreamOperator, error) {
	if sp.Mode != planner.AppendMode || sp.WindowKey < 0 {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "an aggregation inside a streaming plan tree must be windowed, in append mode")
	}
	return newWindowAggOp(sp), nil
}

// shiftedWatermark passes an operator's watermark on shifted: an
// aggregation keyed by window_start promises its later rows' starts only
// above the watermark less the window's size.
type shiftedWatermark struct {
	StreamOperator
	shift int64
}

func (s *shiftedWatermark) Watermark() int64 {
	wm := s.StreamOperator.Watermark()
	if wm == math.MinInt64 {
		return wm
	}
	return sat(wm, s.shift)
}
