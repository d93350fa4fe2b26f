package planner

import (
	"fmt"
	"strings"
	"time"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Output modes of a streaming table (Spark's three).
const (
	AppendMode   = "append"
	UpdateMode   = "update"
	CompleteMode = "complete"
)

// StreamPlan is a streaming table's query split for incremental execution:
// a stateless part run over each micro-batch of the input (Pre), an
// optional aggregation whose state is kept between micro-batches (Agg),
// and a stateless part over the aggregation's output (Having, Output).
type StreamPlan struct {
	// Input is the streamed relation.
	Input *Relation
	// Accesses are what the defining query reads (accesses.go): its
	// owner's privileges are checked on them.
	Accesses []Access
	// Pre reads the micro-batch through a Scan of Input (the executor
	// substitutes the batch for the table's rows): filters, projections,
	// tumbling and hopping window assignment.
	Pre Node
	// Agg is nil for stateless queries; its GroupBy and Aggs are over Pre's
	// output.
	Agg *Aggregate
	// Having filters aggregation output rows; Output computes the table's
	// columns from them (from Pre's output when Agg is nil).
	Having expr.Expr
	Output []expr.Expr
	Cols   []Column
	// Window describes event-time windows; for sessions, Pre stops below
	// the session assignment, which the executor does with state.
	Window *WindowAssign
	// WindowKey is the index in Agg.GroupBy of the window start (-1 when the
	// aggregation is not windowed); WindowEndKey of the window end (-1 when
	// not grouped by it).
	WindowKey, WindowEndKey int
	// EventTime is the watermarked event time over Input's columns and
	// Delay the watermark delay (microseconds); nil without a watermark.
	EventTime expr.Expr
	Delay     int64
	// WatermarkColumn names the watermarked column, for EXPLAIN.
	WatermarkColumn string
	Mode            string
	// Warnings name unbounded state (sent as WARNING notices).
	Warnings []string
	// Dedup is set for DISTINCT ON (keys): the first row of each key is
	// emitted; keys are forgotten once the watermark passes their event
	// time, and rows older than the watermark are late.
	Dedup []expr.Expr
	// Tree is set for the queries a single stage cannot hold (joins of two
	// streams, Top-N, OVER, stateful stages over one another): the plan is
	// then the tree, and of the fields above only Input (the first source),
	// EventTime (the first source's, if any), Output, Cols, Mode and
	// Warnings are set (stream_tree_plan.go).
	Tree *StreamTree
	// Stages is the plan as a tree of stream nodes (stream_stages.go), which
	// the job builds its operators from and EXPLAIN prints; the fields
	// above are its parts.
	Stages *StageNode
	// Expectations are checked on the rows the plan writes, and
	// Quarantine names the table dropped rows go to ("": none); the
	// engine binds them (stream_expectations.go), EXPLAIN lists them.
	Expectations []Expectation
	Quarantine   string
}

// StreamOptions are the parts of CREATE STREAMING TABLE the planner needs.
type StreamOptions struct {
	OutputMode string // "", append, update, complete
	Emit       string // "", window_close, update
}

// PlanStreaming binds a streaming table's defining query and plans it for
// incremental execution, refusing what cannot run with a clear reason.
func PlanStreaming(cat Catalog, st *parse.StreamingStmt, opts StreamOptions) (*StreamPlan, error) {
	stmts, err := parse.Parse(st.Query)
	if err != nil {
		return nil, shiftPos(err, st.QueryOffset)
	}
	if len(stmts) != 1 || stmts[0].Node.GetSelectStmt() == nil {
		return nil, sqlerr.New(sqlerr.SyntaxError, "a streaming table is defined by one SELECT")
	}
	q, err := BindQuery(cat, stmts[0].Node, nil)
	if err != nil {
		return nil, shiftPos(err, st.QueryOffset)
	}
	if len(q.ParamTypes) > 0 {
		return nil, sqlerr.New(sqlerr.UndefinedParameter, "there is no parameter $1")
	}
	if streamed := streamedIn(st); NeedsStreamTree(q.Plan, streamed) || ReadsChangelog(cat, q.Plan, streamed) {
		sp, err := planTreeStreaming(cat, q.Plan, st, opts, streamed)
		if sp != nil {
			sp.Accesses = q.Accesses
		}
		return sp, err
	}
	sp := &StreamPlan{WindowKey: -1, WindowEndKey: -1, Cols: q.Plan.Columns(), Accesses: q.Accesses}
	if err := sp.split(q.Plan); err != nil {
		return nil, err
	}
	if err := sp.findInput(cat, sp.Pre, st); err != nil {
		return nil, err
	}
	if err := sp.bindWatermark(cat, st); err != nil {
		return nil, err
	}
	if err := sp.chooseMode(opts); err != nil {
		return nil, err
	}
	if reads := sp.inputReads(); reads != nil { // stream_prune.go
		in := *sp.Input
		in.Reads = reads
		sp.Input = &in
	}
	sp.buildTree()
	return sp, nil
}

func shiftPos(err error, off int) error {
	if se, ok := err.(*sqlerr.Error); ok && se.Position > 0 {
		cp := *se
		cp.Position += off
		return &cp
	}
	return err
}

func refuse(format string, args ...any) error {
	return sqlerr.New(sqlerr.FeatureNotSupported, format, args...)
}

// split takes the bound plan apart: Project? ← Filter? ← Aggregate ← pre.
func (sp *StreamPlan) split(plan Node) error {
	n := plan
	if p, ok := n.(*Project); ok {
		sp.Output = p.Exprs
		n = p.Input
	}
	if f, ok := n.(*Filter); ok {
		if _, isAgg := f.Input.(*Aggregate); isAgg {
			sp.Having = f.Pred
			n = f.Input
		}
	}
	switch x := n.(type) {
	case *Aggregate:
		sp.Agg = x
		sp.Pre = x.Input
		if w := sessionBelow(x); w != nil {
			// Sessions merge as events arrive, so the executor assigns them
			// with state; Pre stops below the assignment. The aggregation
			// still sees its output: Pre's columns, window_start, window_end.
			sp.Window = w
			sp.Pre = w.Input
		}
		for _, a := range x.Aggs {
			if len(a.OrderBy) > 0 {
				return refuse("ORDER BY inside %s is not supported in a streaming table", a.Name)
			}
		}
	case *Sort, *Limit:
		return refuse("ORDER BY and LIMIT are not supported in a streaming table: a stream has no order; order when you query the table")
	case *Distinct:
		if x.On == nil {
			return refuse("DISTINCT is not supported in a streaming table; use DISTINCT ON (key) to drop duplicates")
		}
		// DISTINCT ON (key): deduplication. The binder sorts by the key
		// first; a stream has no order, so the first row to arrive wins.
		in := x.Input
		if srt, ok := in.(*Sort); ok {
			in = srt.Input
		}
		sp.Dedup = x.On
		sp.Pre = in
		sp.Output = nil
		cols := in.Columns()
		for i, c := range cols {
			sp.Output = append(sp.Output, &expr.ColumnRef{Index: i, T: c.T, Name: c.Name})
		}
		return sp.checkPre(sp.Pre)
	default:
		if sp.Output == nil {
			return refuse("this query shape is not supported in a streaming table")
		}
		sp.Pre = n
		// A stateless query: Output is over Pre's rows.
	}
	if sp.Output == nil {
		cols := n.Columns()
		for i, c := range cols {
			sp.Output = append(sp.Output, &expr.ColumnRef{Index: i, T: c.T, Name: c.Name})
		}
	}
	return sp.checkPre(sp.Pre)
}

// checkPre accepts only stateless nodes below the aggregation and finds
// the window assignment.
func (sp *StreamPlan) checkPre(n Node) error {
	switch x := n.(type) {
	case *Scan:
		return nil
	case *Filter:
		return sp.checkPre(x.Input)
	case *Project:
		return sp.checkPre(x.Input)
	case *WindowAssign:
		if x.Kind == SessionWindow {
			return refuse("a session window must be computed right below the aggregation in a streaming table")
		}
		if sp.Window != nil {
			return refuse("only one window per streaming table is supported")
		}
		sp.Window = x
		return sp.checkPre(x.Input)
	case *Join:
		// Stream-static joins are stateless: the static side is read as it
		// is when each micro-batch runs. findInput checks that only one
		// side streams and that it is the preserved side of an outer join.
		if err := sp.checkPre(x.Left); err != nil {
			return err
		}
		return sp.checkPre(x.Right)
	case *Window:
		return refuse("window functions (OVER) are not supported in a streaming table; use event-time windows (TUMBLE, HOP, SESSION)")
	case *Aggregate:
		return refuse("nested aggregation is not supported in a streaming table")
	case *SetOp:
		return refuse("UNION, INTERSECT and EXCEPT are not supported in a streaming table yet")
	}
	return refuse("%s is not supported in a streaming table", planNodeName(n))
}

// findInput locates the single streamed relation. When the query marks
// relations with STREAM, the others are static snapshots (stream-static
// joins, as in Databricks); without STREAM, every relation streams.
func (sp *StreamPlan) findInput(cat Catalog, n Node, st *parse.StreamingStmt) error {
	var scans []*Scan
	var walk func(Node)
	walk = func(n Node) {
		if s, ok := n.(*Scan); ok {
			scans = append(scans, s)
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	streamed := streamedIn(st)
	var input *Scan
	for _, s := range scans {
		if !streamed(s) {
			continue
		}
		if input != nil {
			return refuse("joins of two streams are not supported yet; mark the relation to read as a stream with STREAM and the others are read as static tables")
		}
		input = s
	}
	if input == nil {
		return refuse("a streaming table reads one input as a stream")
	}
	if input.Kind != StoredTable {
		return refuse("catalog relations cannot be read as a stream")
	}
	if err := checkStreamSide(n, input); err != nil {
		return err
	}
	rel, err := cat.LookupRelation(input.Schema, input.Name)
	if err != nil {
		return err
	}
	sp.Input = rel
	return nil
}

// checkStreamSide refuses outer joins that would have to emit static rows
// without a match: the stream must be on the preserved side.
func checkStreamSide(n Node, input *Scan) error {
	j, ok := n.(*Join)
	if !ok {
		for _, c := range n.Children() {
			if err := checkStreamSide(c, input); err != nil {
				return err
			}
		}
		return nil
	}
	inLeft := contains(j.Left, input)
	switch {
	case j.Kind == FullJoin:
		return refuse("FULL JOIN with a stream is not supported: unmatched static rows would never be final")
	case j.Kind == LeftJoin && !inLeft, j.Kind == RightJoin && inLeft:
		return refuse("an outer join must keep the stream's rows: put the stream on the preserved side")
	}
	if err := checkStreamSide(j.Left, input); err != nil {
		return err
	}
	return checkStreamSide(j.Right, input)
}

func contains(n Node, target *Scan) bool {
	if n == Node(target) {
		return true
	}
	for _, c := range n.Children() {
		if contains(c, target) {
			return true
		}
	}
	return false
}

// bindWatermark finds the input's watermark: the query's WATERMARK clause
// or the input table's WATERMARK FOR.
func (sp *StreamPlan) bindWatermark(cat Catalog, st *parse.StreamingStmt) error {
	var col, exprText string
	var delay int64
	for _, in := range st.Inputs {
		if in.Watermark != nil {
			col, exprText, delay = in.Watermark.Column, in.Watermark.Expr, in.Watermark.Delay.Microseconds()
		}
	}
	if col == "" && sp.Input.WatermarkColumn != "" {
		col, exprText, delay = sp.Input.WatermarkColumn, quoteIdent(sp.Input.WatermarkColumn), sp.Input.WatermarkDelay
	}
	if col == "" {
		return nil
	}
	// The watermark column may be derived (WATERMARK f(x) AS col): bind the
	// expression over the input's own columns.
	stmts, err := parse.Parse("SELECT " + exprText + " FROM " + quoteIdent(sp.Input.Schema) + "." + quoteIdent(sp.Input.Name))
	if err != nil {
		return err
	}
	q, err := BindQuery(cat, stmts[0].Node, nil)
	if err != nil {
		return err
	}
	p, ok := q.Plan.(*Project)
	if !ok || len(p.Exprs) != 1 {
		return sqlerr.New(sqlerr.InternalError, "unexpected watermark plan")
	}
	switch p.Exprs[0].Type().OID {
	case types.OidTimestamp, types.OidTimestampTZ:
	default:
		return sqlerr.New(sqlerr.DatatypeMismatch, "the watermark column \"%s\" must be a timestamp or timestamptz, not %s", col, p.Exprs[0].Type())
	}
	sp.EventTime, sp.Delay, sp.WatermarkColumn = p.Exprs[0], delay, col
	return nil
}

// chooseMode settles the output mode and checks the query can run in it.
func (sp *StreamPlan) chooseMode(opts StreamOptions) error {
	mode := strings.ToLower(opts.OutputMode)
	switch opts.Emit {
	case "window_close":
		if mode != "" && mode != AppendMode {
			return sqlerr.New(sqlerr.InvalidParameterValue, "EMIT ON WINDOW CLOSE is append mode, but output_mode = %s was given", mode)
		}
		mode = AppendMode
	case "update":
		if mode != "" && mode != UpdateMode {
			return sqlerr.New(sqlerr.InvalidParameterValue, "EMIT ON UPDATE is update mode, but output_mode = %s was given", mode)
		}
		mode = UpdateMode
	}
	if sp.Agg != nil {
		sp.findWindowKeys()
	}
	windowed := sp.Agg != nil && sp.WindowKey >= 0
	if mode == "" {
		switch {
		case sp.Agg == nil:
			mode = AppendMode
		case windowed && sp.EventTime != nil:
			mode = AppendMode
		default:
			mode = UpdateMode
		}
	}
	switch mode {
	case AppendMode:
		if sp.Agg != nil && !windowed {
			return sqlerr.New(sqlerr.FeatureNotSupported, "append mode is not possible for an aggregation without an event-time window: its rows never become final").
				WithHint("Group by a window (TUMBLE, HOP, SESSION, window()) with a watermark, or use EMIT ON UPDATE / output_mode = 'update'.")
		}
		if windowed && sp.EventTime == nil {
			return sqlerr.New(sqlerr.FeatureNotSupported, "append mode needs a watermark to close windows").
				WithHint("Add WATERMARK <column> DELAY OF INTERVAL ... to the input, or use EMIT ON UPDATE.")
		}
	case UpdateMode:
	case CompleteMode:
		if sp.Agg == nil {
			return sqlerr.New(sqlerr.FeatureNotSupported, "complete mode is allowed only for aggregations")
		}
	default:
		return sqlerr.New(sqlerr.InvalidParameterValue, "invalid output_mode \"%s\"", mode).
			WithHint("Use append, update or complete.")
	}
	sp.Mode = mode
	if sp.Dedup != nil {
		if mode != AppendMode {
			return sqlerr.New(sqlerr.FeatureNotSupported, "deduplication runs in append mode only")
		}
		if sp.EventTime == nil {
			sp.Warnings = append(sp.Warnings, "streaming table state is unbounded: deduplication keeps every key seen (no watermark expires them)")
		}
	}
	if sp.Agg != nil && (!windowed || sp.EventTime == nil) {
		what := "the aggregation state (one entry per group)"
		if windowed {
			what = "the state of open windows (no watermark closes them)"
		}
		sp.Warnings = append(sp.Warnings, "streaming table state is unbounded: "+what+" grows with the number of distinct keys")
	}
	if sp.Mode == CompleteMode && sp.Agg != nil && windowed && sp.EventTime != nil {
		// Complete mode keeps every window's result: no state is freed.
		sp.Warnings = append(sp.Warnings, "complete mode keeps every window's state: it grows without bound")
	}
	return nil
}

// findWindowKeys finds window_start / window_end among the GROUP BY keys.
func (sp *StreamPlan) findWindowKeys() {
	cols := sp.Agg.Input.Columns()
	for i, g := range sp.Agg.GroupBy {
		cr, ok := g.(*expr.ColumnRef)
		if !ok || cr.Index >= len(cols) {
			continue
		}
		switch cols[cr.Index].Name {
		case "window_start":
			if sp.WindowKey < 0 && sp.Window != nil {
				sp.WindowKey = i
			}
		case "window_end":
			if sp.WindowEndKey < 0 && sp.Window != nil {
				sp.WindowEndKey = i
			}
		}
	}
}

func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// Micros renders microseconds as an SQL interval for EXPLAIN
// ('5 minutes', '90 seconds', '1.5 seconds').
func Micros(us int64) string {
	d := time.Duration(us) * time.Microsecond
	unit := func(n int64, name string) string {
		if n == 1 {
			return fmt.Sprintf("'1 %s'", name)
		}
		return fmt.Sprintf("'%d %ss'", n, name)
	}
	switch {
	case d == 0:
		return "'0 seconds'"
	case d%(24*time.Hour) == 0:
		return unit(int64(d/(24*time.Hour)), "day")
	case d%time.Hour == 0:
		return unit(int64(d/time.Hour), "hour")
	case d%time.Minute == 0:
		return unit(int64(d/time.Minute), "minute")
	case d%time.Second == 0:
		return unit(int64(d/time.Second), "second")
	}
	return fmt.Sprintf("'%g seconds'", d.Seconds())
}

// SessionAggsIncremental reports whether a session aggregation's
// aggregates can be folded incrementally as a session grows: none reads
// the session's bounds (which move as it grows) and none is ordered (an
// ordered aggregate sorts all its input at the end).
func (sp *StreamPlan) SessionAggsIncremental() bool {
	if sp.Agg == nil || sp.Window == nil || sp.Window.Kind != SessionWindow {
		return false
	}
	n := len(sp.Window.Input.Columns())
	ok := true
	check := func(e expr.Expr) {
		walkExpr(e, func(x expr.Expr) {
			if c, isRef := x.(*expr.ColumnRef); isRef && c.Index >= n {
				ok = false
			}
		})
	}
	for _, a := range sp.Agg.Aggs {
		if len(a.OrderBy) > 0 {
			return false
		}
		for _, e := range a.Args {
			check(e)
		}
		if a.Filter != nil {
			check(a.Filter)
		}
	}
	return ok
}

// sessionBelow finds a session WindowAssign feeding an aggregation,
// pushing filters that do not read the window bounds below it first.
func sessionBelow(a *Aggregate) *WindowAssign {
	switch in := a.Input.(type) {
	case *WindowAssign:
		if in.Kind == SessionWindow {
			return in
		}
	case *Filter:
		w, ok := in.Input.(*WindowAssign)
		if !ok || w.Kind != SessionWindow {
			return nil
		}
		n := len(w.Input.Columns())
		readsBounds := false
		walkExpr(in.Pred, func(e expr.Expr) {
			if c, ok := e.(*expr.ColumnRef); ok && c.Index >= n {
				readsBounds = true
			}
		})
		if readsBounds {
			return nil
		}
		moved := *w
		moved.Input = &Filter{Input: w.Input, Pred: in.Pred}
		a.Input = &moved
		return &moved
	}
	return nil
}

// StateFingerprint identifies the layout of a plan's state and the meaning
// of its epoch log: the input, the watermark, the window, the grouping keys
// and the aggregates. Two plans with the same fingerprint can share a
// checkpoint (a changed HAVING or output expression re-runs over the same
// epochs); different fingerprints cannot.
func (sp *StreamPlan) StateFingerprint() string {
	var sb strings.Builder
	if sp.Tree != nil {
		// The tree as EXPLAIN prints it, with each stateless stage's plan:
		// what every operator's state means.
		sb.WriteString("tree mode=" + sp.Mode + " ")
		sb.WriteString(strings.Join(ExplainStreamTree(sp.Tree), ";"))
		return sb.String()
	}
	fmt.Fprintf(&sb, "input=%d mode=%s delay=%d", sp.Input.OID, sp.Mode, sp.Delay)
	if sp.EventTime != nil {
		sb.WriteString(" time=" + exprKey(sp.EventTime))
	}
	if w := sp.Window; w != nil {
		fmt.Fprintf(&sb, " window=%d/%d/%d/%d/%s", w.Kind, w.Size, w.Slide, w.Gap, exprKey(w.Time))
		if w.Offset != 0 {
			fmt.Fprintf(&sb, " offset=%d", w.Offset)
		}
		for _, p := range w.PartitionBy {
			sb.WriteString(" part=" + exprKey(p))
		}
	}
	for _, k := range sp.Dedup {
		sb.WriteString(" dedup=" + exprKey(k))
	}
	if sp.Agg != nil {
		// What enters the state: a changed filter or projection below the
		// aggregation changes what the checkpointed state means.
		sb.WriteString(" pre=" + strings.Join(Explain(sp.Pre), ";"))
		for _, g := range sp.Agg.GroupBy {
			fmt.Fprintf(&sb, " key=%s:%d", exprKey(g), g.Type().OID)
		}
		for i := range sp.Agg.Aggs {
			sb.WriteString(" agg=" + aggCallKey(&sp.Agg.Aggs[i]))
		}
	}
	return sb.String()
}
