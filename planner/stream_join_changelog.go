package planner

// changelogJoin builds a join of two streams of which at least one is a
// changelog (it deletes rows it emitted: an update-mode streaming table
// read as a stream, an aggregation without windows): no watermark can
// tell when a row will not be deleted, so the join keeps every row of both
// sides, and its output is a changelog too — a deleted input row takes
// back every joined row it made, an outer join's NULL-padded row comes and
// goes with the side's last match (exec.RetractingJoin).
func (b *treeBuilder) changelogJoin(j *Join, l, r *StreamNode, sides [2]StreamSide) (*StreamNode, error) {
	switch j.Kind {
	case InnerJoin, LeftJoin, RightJoin, FullJoin, CrossJoin:
	default:
		return nil, refuse("this kind of join of two streams is not supported (use JOIN, LEFT, RIGHT or FULL JOIN)")
	}
	sj := &StreamJoin{Join: j, Sides: sides, Changelog: true,
		Warnings: []string{"streaming table state is unbounded: a join that reads a changelog keeps every row of " + sides[0].Label() + " and of " + sides[1].Label() +
			" (a delete may come for any of them)"}}
	b.tree.Warnings = append(b.tree.Warnings, sj.Warnings...)
	// No event time survives: a row the join emits may be taken back later,
	// whatever its time.
	return &StreamNode{Kind: JoinNode, Join: sj, Children: []*StreamNode{l, r}, Cols: j.Columns(), TimeCol: -1}, nil
}
