package planner

import (
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// StreamTree is a streaming table's plan as a tree of stream nodes: the
// form of the queries the single-stage plan cannot hold (joins of two
// streams, Top-N, OVER, and stateful stages over one another). Leaves are
// the table's sources; every other node is one operator (exec builds one
// StreamOperator per node), its children its inputs.
type StreamTree struct {
	Root    *StreamNode
	Sources []*StreamLeaf // source i is Sources[i]
	// AppendOnly: every row the root emits is final (append mode);
	// otherwise the root emits a changelog (update mode).
	AppendOnly bool
	Warnings   []string
}

// StreamNodeKind is what a stream node does.
type StreamNodeKind int

const (
	LeafNode      StreamNodeKind = iota // a source's rows
	StatelessNode                       // Plan over the child's rows
	JoinNode                            // a join of two streams
	TopNNode                            // the first N rows per partition
	OverNode                            // window functions over earlier rows
	AggNode                             // a windowed aggregation
	DedupNode                           // the first row of each key (DISTINCT ON)
	GroupAggNode                        // a GROUP BY kept for every key, over a changelog or not
	UnionNode                           // UNION ALL of two streams
)

// StreamNode is one node of a StreamTree.
type StreamNode struct {
	Kind     StreamNodeKind
	Children []*StreamNode
	Cols     []Column
	// Leaf: the source.
	Leaf *StreamLeaf
	// Stateless: Plan reads the child's rows through its scan of OID
	// Reads (the source's relation, or a placeholder for a stateful
	// child's output).
	Plan  Node
	Reads uint32
	Join  *StreamJoin
	TopN  *StreamTopN
	Over  *StreamOver
	// Agg is the window aggregation as a single-stage plan whose Pre is
	// the child (exec's window aggregation operator reads its fields);
	// Dedup likewise a deduplication's.
	Agg   *StreamPlan
	Dedup *StreamPlan
	// GroupAgg is a GROUP BY without a window or over a changelog
	// (exec.RetractingAggregate).
	GroupAgg *StreamGroupAgg
	// TimeCol is the event-time column of the node's output: no later row
	// the node emits has a time in it below the node's output watermark
	// (-1: none). WatermarkColumn is its name as the query wrote it.
	TimeCol         int
	WatermarkColumn string
	// AltTimeCols are other output columns the output watermark bounds
	// as well (a join's other side's event time; stream_tree_time.go).
	AltTimeCols []int
	// WatermarkShift is added to the operator's watermark to give the
	// output's (an aggregation keyed by window_start and not window_end:
	// a later row's window_start is above the watermark less the size).
	WatermarkShift int64
}

// StreamLeaf is one source of a stream tree: a relation read as a stream,
// with its watermark.
type StreamLeaf struct {
	Index int
	Input *Relation
	Scan  *Scan
	// EventTime is over Input's columns; nil without a watermark.
	EventTime       expr.Expr
	Delay           int64
	WatermarkColumn string
	// Changelog: Input is an update- or complete-mode streaming table (an
	// AUTO CDC target, a changelog table), read as its change log: rows
	// of its columns then _change_type and _commit_version, each an insert
	// or a delete (connector/changelog). Its consumers retract.
	Changelog bool
}

// changelogOrigin says where a node's deletes come from, for messages.
func changelogOrigin(n *StreamNode) string {
	if n.Kind == LeafNode && n.Leaf.Changelog {
		return n.Leaf.Input.Name + " is an update-mode streaming table, read as its changes"
	}
	for _, c := range n.Children {
		if !appendOnly(c) {
			return changelogOrigin(c)
		}
	}
	switch n.Kind {
	case GroupAggNode:
		return "an aggregation without an event-time window"
	case TopNNode:
		return "a Top-N outside windows"
	}
	return "a stage that updates its rows"
}

// ReadsChangelog reports whether a streaming query reads an update- or
// complete-mode streaming table as a stream: such a plan is a stream tree,
// whose nodes know how to take back what a delete removes.
func ReadsChangelog(cat Catalog, plan Node, streamed func(*Scan) bool) bool {
	found := false
	var walk func(Node)
	walk = func(n Node) {
		if s, ok := n.(*Scan); ok && s.Kind == StoredTable && streamed(s) {
			if rel, err := cat.LookupRelation(s.Schema, s.Name); err == nil && rel.Streaming && !rel.AppendOnly {
				found = true
			}
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(plan)
	return found
}

// placeholderOID numbers the scans through which a stateless node reads a
// stateful child's output (above any catalog OID).
const placeholderOID = 0xF0000000

// NeedsStreamTree reports whether a bound streaming query needs the tree:
// it joins two streams, uses OVER, or puts a stateful stage (an
// aggregation, DISTINCT ON) over another.
func NeedsStreamTree(plan Node, streamed func(*Scan) bool) bool {
	needs := false
	// walk returns the streamed scans below n and whether a stateful
	// stage over a stream is at or below n.
	var walk func(Node) (int, bool)
	walk = func(n Node) (int, bool) {
		if s, ok := n.(*Scan); ok {
			if streamed(s) {
				return 1, false
			}
			return 0, false
		}
		total, stateful := 0, false
		counts := make([]int, 0, 2)
		for _, c := range n.Children() {
			k, st := walk(c)
			total += k
			stateful = stateful || st
			counts = append(counts, k)
		}
		if total == 0 {
			return 0, false
		}
		switch n.(type) {
		case *Join:
			if len(counts) == 2 && counts[0] > 0 && counts[1] > 0 {
				needs = true
			}
		case *Window, *SetOp:
			needs = true
		case *Aggregate, *Distinct:
			if stateful {
				needs = true
			}
			stateful = true
		}
		return total, stateful
	}
	walk(plan)
	return needs
}

// treeBuilder builds a StreamTree from a bound plan.
type treeBuilder struct {
	cat      Catalog
	st       *parse.StreamingStmt
	streamed func(*Scan) bool
	tree     *StreamTree
	nextOID  uint32
}

// PlanStreamTree builds the tree of a bound streaming query.
func PlanStreamTree(cat Catalog, plan Node, st *parse.StreamingStmt, streamed func(*Scan) bool) (*StreamTree, error) {
	b := &treeBuilder{cat: cat, st: st, streamed: streamed, tree: &StreamTree{}, nextOID: placeholderOID}
	root, err := b.build(plan)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, refuse("a streaming table reads one input as a stream")
	}
	b.tree.Root = root
	b.tree.AppendOnly = appendOnly(root)
	return b.tree, nil
}

// appendOnly reports whether a node emits only final rows.
func appendOnly(n *StreamNode) bool {
	switch n.Kind {
	case LeafNode:
		if n.Leaf.Changelog {
			return false
		}
	case TopNNode:
		if n.TopN.CloseCol < 0 {
			return false
		}
	case AggNode:
		if n.Agg.Mode != AppendMode {
			return false
		}
	case GroupAggNode:
		return false
	case OverNode:
		if n.Over.Changelog {
			return false
		}
	}
	for _, c := range n.Children {
		if !appendOnly(c) {
			return false
		}
	}
	return true
}

func (b *treeBuilder) build(n Node) (*StreamNode, error) {
	switch x := n.(type) {
	case *Scan:
		if !b.streamed(x) {
			return nil, nil
		}
		return b.leaf(x)
	case *Join:
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
		case l != nil && r != nil:
			return b.join(x, l, r)
		}
		// A join with static tables is stateless; the stream must be on
		// the preserved side of an outer join.
		inLeft := l != nil
		switch {
		case x.Kind == FullJoin:
			return nil, refuse("FULL JOIN with a stream is not supported: unmatched static rows would never be final")
		case x.Kind == LeftJoin && !inLeft, x.Kind == RightJoin && inLeft:
			return nil, refuse("an outer join must keep the stream's rows: put the stream on the preserved side")
		}
		child := l
		if !inLeft {
			child = r
		}
		return b.stateless(x, child, func(in Node) Node {
			cp := *x
			if inLeft {
				cp.Left = in
			} else {
				cp.Right = in
			}
			return &cp
		}, childOf(x, inLeft))
	case *Filter:
		if w, isWindow := skipProject(x.Input).(*Window); isWindow {
			// A filter over window functions of a changelog (AUTO CDC's
			// SCD type 2, flows_cdc.go) is a filter over an OVER node.
			if _, topN := MatchStreamTopN(x, true); topN || !b.overChangelog(w) {
				return b.topN(x)
			}
		}
		return b.unary(x, x.Input, func(in Node) Node { cp := *x; cp.Input = in; return &cp })
	case *Project:
		return b.unary(x, x.Input, func(in Node) Node { cp := *x; cp.Input = in; return &cp })
	case *WindowAssign:
		if x.Kind == SessionWindow {
			return nil, refuse("a session window over a join of two streams is not supported yet")
		}
		return b.unary(x, x.Input, func(in Node) Node { cp := *x; cp.Input = in; return &cp })
	case *Window:
		return b.over(x)
	case *Aggregate:
		return b.agg(x)
	case *Sort, *Limit:
		return nil, refuse("ORDER BY and LIMIT are not supported in a streaming table: a stream has no order; order when you query the table")
	case *Distinct:
		return b.dedup(x)
	case *SetOp:
		return b.union(x) // stream_union.go
	}
	return nil, refuse("%s is not supported in a streaming table", planNodeName(n))
}

func skipProject(n Node) Node {
	if p, ok := n.(*Project); ok {
		return p.Input
	}
	return n
}

func childOf(j *Join, left bool) Node {
	if left {
		return j.Left
	}
	return j.Right
}

// leaf makes a source of a streamed relation, with its watermark.
func (b *treeBuilder) leaf(s *Scan) (*StreamNode, error) {
	if s.Kind != StoredTable {
		return nil, refuse("catalog relations cannot be read as a stream")
	}
	rel, err := b.cat.LookupRelation(s.Schema, s.Name)
	if err != nil {
		return nil, err
	}
	leaf := &StreamLeaf{Index: len(b.tree.Sources), Input: rel, Scan: s, Changelog: rel.Streaming && !rel.AppendOnly}
	if err := bindLeafWatermark(b.cat, leaf, b.st); err != nil {
		return nil, err
	}
	b.tree.Sources = append(b.tree.Sources, leaf)
	n := &StreamNode{Kind: LeafNode, Leaf: leaf, Cols: s.Cols, WatermarkColumn: leaf.WatermarkColumn, TimeCol: -1}
	if leaf.EventTime != nil {
		n.TimeCol = columnNamed(s.Cols, leaf.WatermarkColumn)
	}
	return n, nil
}

// unary builds a stateless node n (with input in) over its stream child.
func (b *treeBuilder) unary(n Node, in Node, with func(Node) Node) (*StreamNode, error) {
	child, err := b.build(in)
	if err != nil || child == nil {
		return nil, err
	}
	return b.stateless(n, child, with, in)
}

// stateless puts plan node n over child: merged into child when child is
// stateless, reading a leaf's relation directly, or through a placeholder
// scan of a stateful child's output. orig is n's streaming input as bound.
func (b *treeBuilder) stateless(n Node, child *StreamNode, with func(Node) Node, orig Node) (*StreamNode, error) {
	out := &StreamNode{Kind: StatelessNode, Cols: n.Columns(), WatermarkColumn: child.WatermarkColumn}
	out.TimeCol, out.AltTimeCols = timeColsThrough(n, child)
	switch child.Kind {
	case StatelessNode:
		out.Plan, out.Reads, out.Children = with(child.Plan), child.Reads, child.Children
	case LeafNode:
		out.Plan, out.Reads, out.Children = with(child.Leaf.Scan), child.Leaf.Scan.OID, []*StreamNode{child}
	default:
		b.nextOID++
		ph := &Scan{OID: b.nextOID, Schema: "pg_temp", Name: "weir_stage", Kind: StoredTable, Cols: child.Cols}
		out.Plan, out.Reads, out.Children = with(ph), ph.OID, []*StreamNode{child}
	}
	if out.TimeCol >= 0 {
		out.WatermarkColumn = out.Cols[out.TimeCol].Name
	}
	return out, nil
}

// timeColThrough is where plan node n, over child, puts the child's
// event-time column: the same index through a filter or window
// assignment, the column a projection copies it to (or one it computes
// under the watermark's name: WATERMARK f(x) AS col), shifted past the
// left columns of a join with a static table on the left.
func timeColThrough(n Node, child *StreamNode) int {
	switch x := n.(type) {
	case *Filter, *WindowAssign:
		return child.TimeCol
	case *Project:
		for i, e := range x.Exprs {
			if c, ok := e.(*expr.ColumnRef); ok && child.TimeCol >= 0 && c.Index == child.TimeCol {
				return i
			}
		}
		if child.WatermarkColumn != "" {
			return columnNamed(x.Cols, child.WatermarkColumn)
		}
	case *Join:
		if child.TimeCol < 0 {
			return -1
		}
		// The stream is the side whose columns match the child's.
		if sameColumns(x.Left.Columns(), child.Cols) {
			return child.TimeCol
		}
		return len(x.Left.Columns()) + child.TimeCol
	}
	return -1
}

func sameColumns(a, b []Column) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].T != b[i].T {
			return false
		}
	}
	return true
}

// join builds a join of two streams over its sides' nodes.
func (b *treeBuilder) join(j *Join, l, r *StreamNode) (*StreamNode, error) {
	sides := [2]StreamSide{b.side(j.Left, l, "left"), b.side(j.Right, r, "right")}
	if !appendOnly(l) || !appendOnly(r) {
		return b.changelogJoin(j, l, r, sides)
	}
	sj, err := PlanStreamJoin(j, sides)
	if err != nil {
		return nil, err
	}
	b.tree.Warnings = append(b.tree.Warnings, sj.Warnings...)
	out := &StreamNode{Kind: JoinNode, Join: sj, Children: []*StreamNode{l, r}, Cols: j.Columns(),
		TimeCol: l.TimeCol, WatermarkColumn: l.WatermarkColumn}
	// The right side's event time is bounded by the join's watermark too
	// (its watermark takes the least time of the rows either side keeps),
	// unless the right side is NULL in rows an outer join pads. A side's
	// own other time columns are not: a kept row's may be below it.
	if k := j.Kind; r.TimeCol >= 0 && k != LeftJoin && k != FullJoin {
		out.AltTimeCols = []int{len(l.Cols) + r.TimeCol}
	}
	if out.TimeCol < 0 && len(out.AltTimeCols) > 0 {
		out.TimeCol, out.AltTimeCols = out.AltTimeCols[0], out.AltTimeCols[1:]
		out.WatermarkColumn = out.Cols[out.TimeCol].Name
	}
	return out, nil
}

// side describes a join input: named by the alias of the relation it
// reads (or the first one), its time column the node's.
func (b *treeBuilder) side(plan Node, n *StreamNode, fallback string) StreamSide {
	name := fallback
	var walk func(Node) bool
	walk = func(p Node) bool {
		if s, ok := p.(*Scan); ok && b.streamed(s) {
			name = s.Name
			if s.Alias != "" {
				name = s.Alias
			}
			return true
		}
		for _, c := range p.Children() {
			if walk(c) {
				return true
			}
		}
		return false
	}
	walk(plan)
	return StreamSide{Name: name, TimeCol: n.TimeCol, WatermarkColumn: n.WatermarkColumn}
}

// topN builds a Top-N over the window function's input, and the
// projection and filter that remain above it.
func (b *treeBuilder) topN(f *Filter) (*StreamNode, error) {
	tn, ok := MatchStreamTopN(f, true)
	if !ok {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "window functions (OVER) in a streaming table are supported as a Top-N filter (WHERE row_number <= N) or over ROWS frames in event-time order")
	}
	child, err := b.build(tn.Input)
	if err != nil || child == nil {
		return nil, err
	}
	if !appendOnly(child) {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "Top-N over a changelog is not supported: its input deletes rows it emitted (%s)", changelogOrigin(child)).
			WithHint("Read the update-mode table with batch SQL, or rank in a streaming table that reads its append-only input.")
	}
	cols := skipProject(f.Input).Columns() // the Window node's: input columns, then the row number
	node := &StreamNode{Kind: TopNNode, TopN: tn, Children: []*StreamNode{child}, Cols: cols, WatermarkColumn: child.WatermarkColumn, TimeCol: child.TimeCol}
	if tn.Project == nil && tn.Residual == nil {
		return node, nil
	}
	// What the filter and projection left: a stateless node over the
	// Top-N's rows (the Window node's columns).
	var above Node
	b.nextOID++
	ph := &Scan{OID: b.nextOID, Schema: "pg_temp", Name: "weir_stage", Kind: StoredTable, Cols: cols}
	above = ph
	if tn.Project != nil {
		cp := *tn.Project
		cp.Input = ph
		above = &cp
	}
	if tn.Residual != nil {
		above = &Filter{Input: above, Pred: tn.Residual}
	}
	out := &StreamNode{Kind: StatelessNode, Plan: above, Reads: ph.OID, Children: []*StreamNode{node}, Cols: above.Columns(), WatermarkColumn: node.WatermarkColumn, TimeCol: -1}
	if tn.Project != nil {
		out.TimeCol = timeColThrough(tn.Project, node)
	} else {
		out.TimeCol = node.TimeCol
	}
	return out, nil
}

// overChangelog says whether w's input is a changelog (no Top-N can read
// it; OVER recomputes its partitions).
func (b *treeBuilder) overChangelog(w *Window) bool {
	n := w.Input
	for {
		switch x := n.(type) {
		case *Project:
			n = x.Input
		case *Filter:
			n = x.Input
		case *Aggregate, *Window:
			return true
		default:
			return false
		}
	}
}

// over builds window functions over earlier rows.
func (b *treeBuilder) over(w *Window) (*StreamNode, error) {
	child, err := b.build(w.Input)
	if err != nil || child == nil {
		return nil, err
	}
	if !appendOnly(child) {
		// Over a changelog no row is ever final: every partition is kept
		// and recomputed when its rows change.
		so, err := PlanChangelogOver(w)
		if err != nil {
			return nil, err
		}
		b.tree.Warnings = append(b.tree.Warnings, "streaming table state is unbounded: OVER over a changelog keeps every row of every partition (its input's rows can be deleted at any time)")
		return &StreamNode{Kind: OverNode, Over: so, Children: []*StreamNode{child}, Cols: w.Columns(), TimeCol: -1}, nil
	}
	so, err := PlanStreamOver(w, child.TimeCol, child.WatermarkColumn)
	if err != nil {
		return nil, err
	}
	return &StreamNode{Kind: OverNode, Over: so, Children: []*StreamNode{child}, Cols: w.Columns(), WatermarkColumn: child.WatermarkColumn, TimeCol: child.TimeCol}, nil
}

// agg builds a windowed aggregation over a stream node. Its windows are
// those of a window assignment in its stateless input (TUMBLE, HOP), or,
// over another stateful stage (an aggregation over an aggregation,
// Flink's cascading windows), the input's event-time column: a group
// keyed by it is final once the watermark passes it (a window_end).
func (b *treeBuilder) agg(a *Aggregate) (*StreamNode, error) {
	child, err := b.build(a.Input)
	if err != nil || child == nil {
		return nil, err
	}
	if !appendOnly(child) {
		return b.groupAgg(a, child, true)
	}
	for _, x := range a.Aggs {
		if len(x.OrderBy) > 0 {
			return nil, refuse("ORDER BY inside %s is not supported in a streaming table", x.Name)
		}
	}
	sp := &StreamPlan{Agg: a, Pre: a.Input, WindowKey: -1, WindowEndKey: -1, Mode: AppendMode, WatermarkColumn: child.WatermarkColumn}
	if child.Kind == StatelessNode {
		sp.Window = windowAssignIn(child.Plan)
		if sp.Window != nil {
			if err := checkWindowTime(sp.Window, child); err != nil {
				return nil, err
			}
		}
	}
	if sp.Window != nil && sp.Window.Kind != SessionWindow {
		sp.findWindowKeys()
	}
	if sp.WindowKey < 0 {
		// Keyed by the input's event time: the window closes when the
		// watermark passes the key itself (a size of 0).
		for i, g := range a.GroupBy {
			if c, ok := g.(*expr.ColumnRef); ok && child.TimeCol >= 0 && c.Index == child.TimeCol {
				sp.WindowKey = i
				sp.Window = &WindowAssign{Kind: TumblingWindow, Cols: a.Input.Columns()}
				break
			}
		}
	}
	if sp.WindowKey < 0 || child.TimeCol < 0 {
		// No window closes its groups: every group is kept, its row
		// updated as its input changes.
		return b.groupAgg(a, child, false)
	}
	cols := a.Columns()
	sp.Cols = cols
	for i, c := range cols {
		sp.Output = append(sp.Output, &expr.ColumnRef{Index: i, T: c.T, Name: c.Name})
	}
	// The output's event time: the window's end (or the key itself), which
	// every later row's exceeds the watermark.
	timeCol := -1
	var shift int64
	switch {
	case sp.WindowEndKey >= 0:
		timeCol = sp.WindowEndKey
	case sp.Window.Size == 0:
		timeCol = sp.WindowKey
	default:
		// Keyed by window_start only: a later row's start is above the
		// watermark less the window's size.
		timeCol, shift = sp.WindowKey, -sp.Window.Size
	}
	wm := ""
	if timeCol >= 0 {
		wm = cols[timeCol].Name
	}
	return &StreamNode{Kind: AggNode, Agg: sp, Children: []*StreamNode{child}, Cols: cols, TimeCol: timeCol, WatermarkColumn: wm, WatermarkShift: shift}, nil
}

// windowAssignIn is the window assignment in a stateless plan, if any.
func windowAssignIn(n Node) *WindowAssign {
	if w, ok := n.(*WindowAssign); ok {
		return w
	}
	for _, c := range n.Children() {
		if w := windowAssignIn(c); w != nil {
			return w
		}
	}
	return nil
}

// dedup builds DISTINCT ON (keys) over a stream node: the first row of
// each key, keys forgotten once the watermark passes their row's event
// time (exec's deduplication, reading the fields of a single-stage plan).
func (b *treeBuilder) dedup(d *Distinct) (*StreamNode, error) {
	if d.On == nil {
		return nil, refuse("DISTINCT is not supported in a streaming table; use DISTINCT ON (key) to drop duplicates")
	}
	in := d.Input
	if srt, ok := in.(*Sort); ok {
		in = srt.Input // a stream has no order: the first row to arrive wins
	}
	child, err := b.build(in)
	if err != nil || child == nil {
		return nil, err
	}
	if !appendOnly(child) {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "DISTINCT ON over a changelog is not supported: its input deletes rows it emitted (%s)", changelogOrigin(child)).
			WithHint("Deduplicate the append-only input upstream, or use GROUP BY, which retracts.")
	}
	cols := in.Columns()
	sp := &StreamPlan{Dedup: d.On, Pre: in, Cols: cols, Mode: AppendMode, WindowKey: -1, WindowEndKey: -1}
	for i, c := range cols {
		sp.Output = append(sp.Output, &expr.ColumnRef{Index: i, T: c.T, Name: c.Name})
	}
	if child.TimeCol >= 0 {
		sp.WatermarkColumn = cols[child.TimeCol].Name
		sp.EventTime = &expr.ColumnRef{Index: child.TimeCol, T: cols[child.TimeCol].T, Name: sp.WatermarkColumn}
	} else {
		b.tree.Warnings = append(b.tree.Warnings, "streaming table state is unbounded: deduplication keeps every key seen (no watermark expires them)")
	}
	return &StreamNode{Kind: DedupNode, Dedup: sp, Children: []*StreamNode{child}, Cols: cols, TimeCol: child.TimeCol, WatermarkColumn: child.WatermarkColumn}, nil
}
