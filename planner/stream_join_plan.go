package planner

import (
	"strings"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// StreamJoin is a join of two streams in a streaming table: each side is
// a stateless plan over one streamed relation (Join.Left and Join.Right),
// and the join keeps each side's rows until the other side's watermark
// passes the time bound of the condition.
type StreamJoin struct {
	Join   *Join
	Sides  [2]StreamSide
	Bounds TimeBounds
	// Warnings name the state the join cannot bound.
	Warnings []string
	// Changelog: a side emits deletes (a changelog: an update-mode table
	// read as a stream, an aggregation without windows): the join keeps
	// every row of both sides and retracts the rows a delete takes back
	// (exec.RetractingJoin), its output a changelog; Bounds are not used.
	Changelog bool
}

// StreamSide is one input of a join of two streams, as the tree builder
// found it.
type StreamSide struct {
	// Name is how the query names the side (its alias, or its relation's).
	Name string
	// TimeCol is the event-time column in the side's output: no later row
	// of the side has a time below the side's watermark (-1: the side has
	// no watermark).
	TimeCol         int
	WatermarkColumn string
}

// Label names the side as the query does.
func (s *StreamSide) Label() string { return s.Name }

// HasWatermark reports whether the side's rows come with a watermark.
func (s *StreamSide) HasWatermark() bool { return s.TimeCol >= 0 }

// PlanStreamJoin checks a join of two streams whose sides the tree
// builder described, and finds what bounds its state: each side's
// watermark and the condition's time bounds. It refuses what cannot run
// with a message that says what to add; a join it cannot bound runs with
// a warning.
func PlanStreamJoin(j *Join, sides [2]StreamSide) (*StreamJoin, error) {
	switch j.Kind {
	case InnerJoin, LeftJoin, RightJoin, FullJoin, CrossJoin:
	default:
		return nil, refuse("this kind of join of two streams is not supported (use JOIN, LEFT, RIGHT or FULL JOIN)")
	}
	sj := &StreamJoin{Join: j, Sides: sides}
	l, r := &sj.Sides[0], &sj.Sides[1]
	if l.HasWatermark() && r.HasWatermark() {
		lt, rt := j.Left.Columns()[l.TimeCol].T, j.Right.Columns()[r.TimeCol].T
		if lt.OID != rt.OID {
			return nil, sqlerr.New(sqlerr.DatatypeMismatch, "the watermark columns of a join of two streams must have the same type: %s.%s is %s, %s.%s is %s", l.Label(), l.WatermarkColumn, lt, r.Label(), r.WatermarkColumn, rt).
				WithHint("Cast one of them in the WATERMARK clause, e.g. WATERMARK " + r.WatermarkColumn + "::" + lt.String() + " AS " + r.WatermarkColumn + "_ts.")
		}
		sj.Bounds = JoinTimeBounds(j, l.TimeCol, r.TimeCol)
	}
	// Left rows wait for right rows up to lt + Hi, right rows for left rows
	// down to rt - Lo; each expires once the other side's watermark passes.
	leftBounded := sj.Bounds.HasHi && r.HasWatermark()
	rightBounded := sj.Bounds.HasLo && l.HasWatermark()
	hint := func(a, b *StreamSide) string {
		switch {
		case !a.HasWatermark():
			return "add WATERMARK <time column> DELAY OF INTERVAL ... to " + a.Label()
		case !b.HasWatermark():
			return "add WATERMARK <time column> DELAY OF INTERVAL ... to " + b.Label()
		}
		return "add a condition bounding the times, e.g. " + b.Label() + "." + b.WatermarkColumn + " BETWEEN " +
			a.Label() + "." + a.WatermarkColumn + " - INTERVAL '1 hour' AND " + a.Label() + "." + a.WatermarkColumn + " + INTERVAL '1 hour'"
	}
	need := func(s *StreamSide, bounded bool, other *StreamSide, kind string) error {
		if bounded {
			return nil
		}
		return sqlerr.New(sqlerr.FeatureNotSupported, "a %s of two streams must know when a row of %s can no longer match: %s", kind, s.Label(), hint(s, other))
	}
	switch j.Kind {
	case LeftJoin:
		if err := need(l, leftBounded, r, "LEFT JOIN"); err != nil {
			return nil, err
		}
	case RightJoin:
		if err := need(r, rightBounded, l, "RIGHT JOIN"); err != nil {
			return nil, err
		}
	case FullJoin:
		if err := need(l, leftBounded, r, "FULL JOIN"); err != nil {
			return nil, err
		}
		if err := need(r, rightBounded, l, "FULL JOIN"); err != nil {
			return nil, err
		}
	}
	if !leftBounded {
		sj.Warnings = append(sj.Warnings, "streaming table state is unbounded: the join keeps every row of "+l.Label()+" ("+hint(l, r)+")")
	}
	if !rightBounded {
		sj.Warnings = append(sj.Warnings, "streaming table state is unbounded: the join keeps every row of "+r.Label()+" ("+hint(r, l)+")")
	}
	return sj, nil
}

// bindLeafWatermark finds a source's watermark: the query's WATERMARK on
// that FROM item (matched by alias or name) or its table's WATERMARK FOR.
func bindLeafWatermark(cat Catalog, ss *StreamLeaf, st *parse.StreamingStmt) error {
	var col, exprText string
	var delay int64
	for _, in := range st.Inputs {
		name := in.Name
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		matches := (in.Alias != "" && in.Alias == ss.Scan.Alias) || (in.Alias == "" && name == ss.Scan.Name && (ss.Scan.Alias == "" || ss.Scan.Alias == name))
		if matches && in.Watermark != nil {
			col, exprText, delay = in.Watermark.Column, in.Watermark.Expr, in.Watermark.Delay.Microseconds()
		}
	}
	if col == "" && ss.Input.WatermarkColumn != "" {
		col, exprText, delay = ss.Input.WatermarkColumn, quoteIdent(ss.Input.WatermarkColumn), ss.Input.WatermarkDelay
	}
	if col == "" {
		return nil
	}
	e, err := bindOver(cat, ss.Input, exprText)
	if err != nil {
		return err
	}
	switch e.Type().OID {
	case types.OidTimestamp, types.OidTimestampTZ:
	default:
		return sqlerr.New(sqlerr.DatatypeMismatch, "the watermark column \"%s\" must be a timestamp or timestamptz, not %s", col, e.Type())
	}
	ss.EventTime, ss.Delay, ss.WatermarkColumn = e, delay, col
	return nil
}

// bindOver binds an expression written over a relation's own columns.
func bindOver(cat Catalog, rel *Relation, text string) (expr.Expr, error) {
	stmts, err := parse.Parse("SELECT " + text + " FROM " + quoteIdent(rel.Schema) + "." + quoteIdent(rel.Name))
	if err != nil {
		return nil, err
	}
	q, err := BindQuery(cat, stmts[0].Node, nil)
	if err != nil {
		return nil, err
	}
	p, ok := q.Plan.(*Project)
	if !ok || len(p.Exprs) != 1 {
		return nil, sqlerr.New(sqlerr.InternalError, "unexpected watermark plan")
	}
	return p.Exprs[0], nil
}

// columnNamed is the index of the last column named name (-1: none).
func columnNamed(cols []Column, name string) int {
	for i := len(cols) - 1; i >= 0; i-- {
		if cols[i].Name == name {
			return i
		}
	}
	return -1
}
