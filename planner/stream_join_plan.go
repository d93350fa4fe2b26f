package planner

import (
	"fmt"
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
}

// StreamSide is one streamed input of a join of two streams.
type StreamSide struct {
	Input *Relation
	Scan  *Scan
	// EventTime is the watermarked event time over Input's columns, Delay
	// the watermark delay (microseconds); nil without a watermark.
	EventTime       expr.Expr
	Delay           int64
	WatermarkColumn string
	// TimeCol is the event-time column's index in the side's output (-1
	// without a watermark).
	TimeCol int
}

// Label names the side's relation as the query does (its alias).
func (s *StreamSide) Label() string {
	if s.Scan.Alias != "" {
		return s.Scan.Alias
	}
	return s.Scan.Name
}

// PlanStreamJoin checks a join whose two sides each read one stream and
// finds what bounds its state: each side's watermark and the condition's
// time bounds. It refuses what cannot run with a message that says what to
// add; a join it cannot bound runs with a warning.
func PlanStreamJoin(cat Catalog, j *Join, st *parse.StreamingStmt, streamed func(*Scan) bool) (*StreamJoin, error) {
	switch j.Kind {
	case InnerJoin, LeftJoin, RightJoin, FullJoin, CrossJoin:
	default:
		return nil, refuse("this kind of join of two streams is not supported (use JOIN, LEFT, RIGHT or FULL JOIN)")
	}
	sj := &StreamJoin{Join: j}
	for s, side := range []Node{j.Left, j.Right} {
		scan, err := streamedScan(side, streamed)
		if err != nil {
			return nil, err
		}
		rel, err := cat.LookupRelation(scan.Schema, scan.Name)
		if err != nil {
			return nil, err
		}
		ss := StreamSide{Input: rel, Scan: scan, TimeCol: -1}
		if err := bindSideWatermark(cat, &ss, st); err != nil {
			return nil, err
		}
		if ss.EventTime != nil {
			ss.TimeCol = columnNamed(side.Columns(), ss.WatermarkColumn)
			if ss.TimeCol < 0 {
				return nil, sqlerr.New(sqlerr.FeatureNotSupported, "the watermark column \"%s\" of %s must be among the columns the join reads from it", ss.WatermarkColumn, ss.Label()).
					WithHint("Select the column in the subquery that reads the stream.")
			}
		}
		sj.Sides[s] = ss
	}
	l, r := &sj.Sides[0], &sj.Sides[1]
	if l.EventTime != nil && r.EventTime != nil {
		lt, rt := j.Left.Columns()[l.TimeCol].T, j.Right.Columns()[r.TimeCol].T
		if lt.OID != rt.OID {
			return nil, sqlerr.New(sqlerr.DatatypeMismatch, "the watermark columns of a join of two streams must have the same type: %s.%s is %s, %s.%s is %s", l.Label(), l.WatermarkColumn, lt, r.Label(), r.WatermarkColumn, rt).
				WithHint("Cast one of them in the WATERMARK clause, e.g. WATERMARK " + r.WatermarkColumn + "::" + lt.String() + " AS " + r.WatermarkColumn + "_ts.")
		}
		sj.Bounds = JoinTimeBounds(j, l.TimeCol, r.TimeCol)
	}
	// Left rows wait for right rows up to lt + Hi, right rows for left rows
	// down to rt - Lo; each expires once the other side's watermark passes.
	leftBounded := sj.Bounds.HasHi && r.EventTime != nil
	rightBounded := sj.Bounds.HasLo && l.EventTime != nil
	hint := func(a, b *StreamSide) string {
		switch {
		case a.EventTime == nil:
			return "add WATERMARK <time column> DELAY OF INTERVAL ... to " + a.Label()
		case b.EventTime == nil:
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

// streamedScan finds the one streamed relation below a join side, which
// must be stateless (filters and projections over it, and joins with
// static tables).
func streamedScan(n Node, streamed func(*Scan) bool) (*Scan, error) {
	var found *Scan
	var walk func(Node) error
	walk = func(n Node) error {
		switch x := n.(type) {
		case *Scan:
			if streamed(x) {
				if found != nil {
					return refuse("a join of more than two streams is not supported yet")
				}
				if x.Kind != StoredTable {
					return refuse("catalog relations cannot be read as a stream")
				}
				found = x
			}
			return nil
		case *Filter, *Project, *Join:
		case *Aggregate:
			return refuse("a join of an aggregation with a stream is not supported yet")
		default:
			return refuse("%s is not supported below a join of two streams", strings.TrimPrefix(fmt.Sprintf("%T", n), "*planner."))
		}
		for _, c := range n.Children() {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(n); err != nil {
		return nil, err
	}
	if found == nil {
		return nil, refuse("each side of a join of two streams reads a stream")
	}
	return found, nil
}

// bindSideWatermark finds the side's watermark: the query's WATERMARK on
// that FROM item (matched by alias or name) or its table's WATERMARK FOR.
func bindSideWatermark(cat Catalog, ss *StreamSide, st *parse.StreamingStmt) error {
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
