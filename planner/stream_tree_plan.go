package planner

import (
	"strconv"
	"strings"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// streamedIn tells which relations a streaming query reads as streams:
// those marked STREAM when any is; every relation when none is.
func streamedIn(st *parse.StreamingStmt) func(*Scan) bool {
	return func(s *Scan) bool {
		if !st.AnyStream {
			return true
		}
		for _, in := range st.Inputs {
			name := in.Name
			if i := strings.LastIndexByte(name, '.'); i >= 0 {
				name = name[i+1:]
			}
			if in.Stream && name == s.Name {
				return true
			}
		}
		return false
	}
}

// planTreeStreaming plans a query as a stream tree and settles its output
// mode: append when every row the root emits is final, update when the
// root emits a changelog (a Top-N outside windows).
func planTreeStreaming(cat Catalog, plan Node, st *parse.StreamingStmt, opts StreamOptions, streamed func(*Scan) bool) (*StreamPlan, error) {
	pruneStreamJoinInputs(plan) // stream_prune.go
	tree, err := PlanStreamTree(cat, plan, st, streamed)
	if err != nil {
		return nil, err
	}
	sp := &StreamPlan{Tree: tree, Cols: plan.Columns(), WindowKey: -1, WindowEndKey: -1,
		Input: tree.Sources[0].Input, Warnings: tree.Warnings}
	for i, c := range sp.Cols {
		sp.Output = append(sp.Output, &expr.ColumnRef{Index: i, T: c.T, Name: c.Name})
	}
	for _, s := range tree.Sources {
		if s.EventTime != nil && sp.EventTime == nil {
			sp.EventTime, sp.Delay, sp.WatermarkColumn = s.EventTime, s.Delay, s.WatermarkColumn
		}
	}
	mode := strings.ToLower(opts.OutputMode)
	switch opts.Emit {
	case "window_close":
		if mode != "" && mode != AppendMode {
			return nil, sqlerr.New(sqlerr.InvalidParameterValue, "EMIT ON WINDOW CLOSE is append mode, but output_mode = %s was given", mode)
		}
		mode = AppendMode
	case "update":
		if mode != "" && mode != UpdateMode {
			return nil, sqlerr.New(sqlerr.InvalidParameterValue, "EMIT ON UPDATE is update mode, but output_mode = %s was given", mode)
		}
		mode = UpdateMode
	}
	natural := AppendMode
	if !tree.AppendOnly {
		natural = UpdateMode
	}
	switch {
	case mode == "":
		mode = natural
	case mode == CompleteMode:
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "complete mode is not supported for a join of two streams, Top-N, OVER or stateful stages over one another (they emit a changelog: use update mode)")
	case mode != AppendMode && mode != UpdateMode:
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid output_mode \"%s\"", mode).WithHint("Use append, update or complete.")
	case mode != natural:
		if natural == UpdateMode {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "append mode is not possible here: a Top-N outside event-time windows, or an aggregation not grouped by one, changes rows it emitted").
				WithHint("Partition the Top-N by window_start or window_end of a TUMBLE/HOP window, or use EMIT ON UPDATE.")
		}
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "update mode is not supported here: every row of this query is final when emitted (append mode)")
	}
	sp.Mode = mode
	return sp, nil
}

// ExplainStreamTree prints a stream tree, root first, one node a line
// with its children indented under it.
func ExplainStreamTree(t *StreamTree) []string {
	var out []string
	var walk func(n *StreamNode, depth int)
	walk = func(n *StreamNode, depth int) {
		pad := strings.Repeat("  ", depth)
		switch n.Kind {
		case LeafNode:
			line := pad + "Source " + strconv.Itoa(n.Leaf.Index) + ": " + n.Leaf.Input.Name
			if n.Leaf.EventTime != nil {
				line += " (watermark " + n.Leaf.WatermarkColumn + " - " + Micros(n.Leaf.Delay) + ")"
			} else {
				line += " (no watermark)"
			}
			if n.Leaf.Changelog {
				line += " (changelog: inserts and deletes)"
			}
			out = append(out, line)
		case StatelessNode:
			out = append(out, pad+"Stateless")
			for _, l := range Explain(n.Plan) {
				if strings.Contains(l, "weir_stage") {
					continue
				}
				out = append(out, pad+"  | "+l)
			}
		case JoinNode:
			sj := n.Join
			kind := map[JoinKind]string{InnerJoin: "Inner", LeftJoin: "Left", RightJoin: "Right", FullJoin: "Full", CrossJoin: "Inner"}[sj.Join.Kind]
			if sj.Changelog {
				out = append(out, pad+kind+" Retracting Join")
				out = append(out, pad+"  State of "+sj.Sides[0].Label()+" and "+sj.Sides[1].Label()+": unbounded (kept forever, a delete may come for any row)")
				break
			}
			out = append(out, pad+kind+" Interval Join")
			for s, side := range sj.Sides {
				bounded := "unbounded (kept forever)"
				other := &sj.Sides[1-s]
				if s == 0 && sj.Bounds.HasHi && other.HasWatermark() {
					bounded = "until the watermark of " + other.Label() + " passes " + side.Label() + "." + side.WatermarkColumn + signedMicros(sj.Bounds.Hi)
				}
				if s == 1 && sj.Bounds.HasLo && other.HasWatermark() {
					bounded = "until the watermark of " + other.Label() + " passes " + side.Label() + "." + side.WatermarkColumn + signedMicros(-sj.Bounds.Lo)
				}
				out = append(out, pad+"  State of "+side.Label()+": "+bounded)
			}
		case TopNNode:
			t := n.TopN
			var keys, order []string
			for _, p := range t.PartitionBy {
				keys = append(keys, p.String())
			}
			for _, k := range t.OrderBy {
				o := k.Expr.String()
				if k.Desc {
					o += " DESC"
				}
				order = append(order, o)
			}
			line := pad + "Top-N: first " + strconv.Itoa(int(t.N)) + " by (" + strings.Join(order, ", ") + ") per (" + strings.Join(keys, ", ") + ")"
			if t.CloseCol >= 0 {
				line += ", final when the watermark closes the window"
			} else {
				line += ", retracted as they leave the top"
			}
			out = append(out, line)
		case OverNode:
			if n.Over.Changelog {
				var keys []string
				for _, p := range n.Over.Window.Calls[0].PartitionBy {
					keys = append(keys, p.String())
				}
				redo := "a change recomputes its partition"
				if n.Over.Context >= 0 {
					redo = "a change recomputes the " + strconv.Itoa(n.Over.Context) + " rows after it"
				}
				out = append(out, pad+"Window over a changelog per ("+strings.Join(keys, ", ")+"): every row of every partition kept (unbounded), "+redo)
				break
			}
			out = append(out, pad+"Rolling Window: rows final at the watermark, "+strconv.Itoa(n.Over.Context)+" earlier rows per partition kept")
		case GroupAggNode:
			var keys, aggs []string
			for _, g := range n.GroupAgg.Agg.GroupBy {
				keys = append(keys, g.String())
			}
			for _, a := range n.GroupAgg.Agg.Aggs {
				aggs = append(aggs, a.Name)
			}
			line := pad + "Group Aggregate by (" + strings.Join(keys, ", ") + "): " + strings.Join(aggs, ", ") + "; "
			if n.GroupAgg.Changelog {
				line += "over a changelog: every group kept (unbounded) until all its rows are deleted"
			} else {
				line += "not windowed: every group kept (unbounded)"
			}
			out = append(out, line+", a changed group's row updated once an epoch")
		case UnionNode:
			out = append(out, pad+"Union All: both inputs' changes passed on; its watermark the lower of theirs")
		case DedupNode:
			var keys []string
			for _, k := range n.Dedup.Dedup {
				keys = append(keys, k.String())
			}
			bound := "a key is forgotten when the watermark passes its row's event time"
			if n.Dedup.EventTime == nil {
				bound = "every key is kept"
			}
			out = append(out, pad+"Deduplicate on ("+strings.Join(keys, ", ")+"): the first row of each key; "+bound)
		case AggNode:
			var keys, aggs []string
			for _, g := range n.Agg.Agg.GroupBy {
				keys = append(keys, g.String())
			}
			for _, a := range n.Agg.Agg.Aggs {
				aggs = append(aggs, a.Name)
			}
			out = append(out, pad+"Window Aggregate by ("+strings.Join(keys, ", ")+"): "+strings.Join(aggs, ", ")+"; a window's state is freed and its rows emitted when the watermark passes its end")
		}
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	walk(t.Root, 0)
	return out
}

// signedMicros is " + '1 hour'", " - '5 minutes'" or "" for 0.
func signedMicros(us int64) string {
	switch {
	case us > 0:
		return " + " + Micros(us)
	case us < 0:
		return " - " + Micros(-us)
	}
	return ""
}
