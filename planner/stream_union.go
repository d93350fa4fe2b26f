package planner

import "github.com/weir-sql/weir/sql/sqlerr"

// union builds UNION ALL of two streams (Flink's and Spark's union of
// streams): a node that passes on the changes of both inputs as they come,
// holding nothing. Its watermark is the lower of its inputs' (the job's
// graph advances each input's), so a window above it closes once both
// sides are past it; its event time is the column both sides put their
// own event time in, if they put it in the same one.
func (b *treeBuilder) union(x *SetOp) (*StreamNode, error) {
	if x.Kind != Union || !x.All {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "UNION without ALL, INTERSECT and EXCEPT are not supported in a streaming table: their rows would never be final").
			WithHint("Use UNION ALL, and deduplicate above it with GROUP BY or DISTINCT ON.")
	}
	l, err := b.build(x.Left)
	if err != nil {
		return nil, err
	}
	r, err := b.build(x.Right)
	if err != nil {
		return nil, err
	}
	switch {
	case l == nil && r == nil:
		return nil, nil
	case l == nil || r == nil:
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "UNION ALL of a stream and a query that reads no stream is not supported in a streaming table").
			WithHint("Read both sides as streams (FROM STREAM t), or join the stream with the static query instead.")
	}
	out := &StreamNode{Kind: UnionNode, Children: []*StreamNode{l, r}, Cols: x.Cols, TimeCol: -1}
	if l.TimeCol >= 0 && l.TimeCol == r.TimeCol {
		out.TimeCol = l.TimeCol
		out.WatermarkColumn = x.Cols[l.TimeCol].Name
	}
	return out, nil
}
