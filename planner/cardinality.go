package planner

import (
	"math"

	"github.com/weir-sql/weir/sql/expr"
)

// Row-count guesses for join ordering, in the spirit of PostgreSQL's
// selfuncs.c defaults: weir keeps no column statistics, so selectivities
// are the constants PostgreSQL falls back to when it has none. They only
// have to rank join orders: put small and filtered relations first and
// make a join on an equality far cheaper than a cross product.
const (
	defaultRelRows  = 1000  // a relation whose size nobody knows (PostgreSQL: an SRF's 1000 rows)
	defaultNDV      = 200   // DEFAULT_NUM_DISTINCT
	defaultEqSel    = 0.005 // DEFAULT_EQ_SEL
	defaultRangeSel = 1.0 / 3
	defaultMatchSel = 0.005 // DEFAULT_MATCH_SEL (LIKE, regular expressions)
	defaultNullSel  = 0.005
	defaultBoolSel  = 0.5
)

// estimator caches row-count guesses of the plan nodes of one statement.
type estimator struct {
	cat  Catalog
	rows map[Node]float64
}

func newEstimator(cat Catalog) *estimator {
	return &estimator{cat: cat, rows: map[Node]float64{}}
}

// clampRows keeps a guess at one row or more, as PostgreSQL's
// clamp_row_est does, so that products of selectivities never reach zero.
func clampRows(r float64) float64 {
	if r < 1 || math.IsNaN(r) {
		return 1
	}
	return math.Round(r*100) / 100
}

// rowsOf guesses how many rows n produces.
func (es *estimator) rowsOf(n Node) float64 {
	if r, ok := es.rows[n]; ok {
		return r
	}
	r := clampRows(es.guessRows(n))
	es.rows[n] = r
	return r
}

func (es *estimator) guessRows(n Node) float64 {
	switch x := n.(type) {
	case *Scan:
		if re, ok := es.cat.(RowEstimator); ok {
			return re.EstimateRows(x)
		}
		return defaultRelRows
	case *Values:
		return float64(len(x.Rows))
	case *FunctionScan:
		return functionRows(x)
	case *Filter:
		in := x.Input
		return es.rowsOf(in) * es.selectivity(x.Pred, func(c *expr.ColumnRef) float64 { return es.ndv(in, c.Index) })
	case *Project:
		return es.rowsOf(x.Input)
	case *Sort:
		return es.rowsOf(x.Input)
	case *Window:
		return es.rowsOf(x.Input)
	case *WindowAssign:
		return es.rowsOf(x.Input)
	case *ProjectSet:
		return es.rowsOf(x.Input) * 10
	case *Distinct:
		return es.rowsOf(x.Input)
	case *Limit:
		in := es.rowsOf(x.Input)
		if c, ok := x.Limit.(*expr.Const); ok {
			if v, ok := c.Val.(int64); ok && float64(v) < in {
				return float64(v)
			}
		}
		return in
	case *Aggregate:
		if len(x.GroupBy) == 0 {
			return 1
		}
		in := es.rowsOf(x.Input)
		groups := 1.0
		for _, g := range x.GroupBy {
			if c, ok := g.(*expr.ColumnRef); ok {
				groups *= es.ndv(x.Input, c.Index)
			} else {
				groups *= defaultNDV
			}
		}
		return math.Min(in, groups)
	case *SetOp:
		l, r := es.rowsOf(x.Left), es.rowsOf(x.Right)
		switch x.Kind {
		case Intersect:
			return math.Min(l, r)
		case Except:
			return l
		}
		return l + r
	case *Join:
		return es.joinRows(x)
	}
	return defaultRelRows
}

// joinRows guesses a join's output from its inputs and conditions.
func (es *estimator) joinRows(j *Join) float64 {
	l, r := es.rowsOf(j.Left), es.rowsOf(j.Right)
	sel := 1.0
	for i := range j.LeftKeys {
		sel *= 1 / math.Max(es.exprNDV(j.Left, j.LeftKeys[i]), es.exprNDV(j.Right, j.RightKeys[i]))
	}
	if j.Cond != nil {
		sel *= defaultRangeSel
	}
	inner := l * r * sel
	switch j.Kind {
	case LeftJoin:
		return math.Max(inner, l)
	case RightJoin:
		return math.Max(inner, r)
	case FullJoin:
		return math.Max(inner, l+r)
	case SemiJoin, AntiJoin:
		return l * defaultBoolSel
	}
	return inner
}

func (es *estimator) exprNDV(n Node, e expr.Expr) float64 {
	if c, ok := e.(*expr.ColumnRef); ok {
		return es.ndv(n, c.Index)
	}
	if c, ok := e.(*expr.Cast); ok {
		return es.exprNDV(n, c.Arg)
	}
	return math.Min(defaultNDV, es.rowsOf(n))
}

// ndv guesses the number of distinct values of column i of n. Without
// statistics it is PostgreSQL's 200, bounded by the row count, except
// where a column is known to be unique: a catalog's oid, a series.
func (es *estimator) ndv(n Node, i int) float64 {
	rows := es.rowsOf(n)
	d := math.Min(defaultNDV, rows)
	switch x := n.(type) {
	case *Scan:
		if x.Kind == VirtualTable && i < len(x.Cols) && x.Cols[i].Name == "oid" {
			d = rows
		}
		if u, ok := es.cat.(UniqueColumns); ok && x.Kind == StoredTable && u.UniqueColumn(x, i) {
			d = rows
		}
	case *Project:
		if i < len(x.Exprs) {
			if c, ok := x.Exprs[i].(*expr.ColumnRef); ok {
				d = es.ndv(x.Input, c.Index)
			}
		}
	case *Filter:
		d = es.ndv(x.Input, i)
	case *Sort:
		d = es.ndv(x.Input, i)
	case *Limit:
		d = es.ndv(x.Input, i)
	case *Distinct:
		d = es.ndv(x.Input, i)
	case *FunctionScan, *Values:
		d = rows
	case *Aggregate:
		if i < len(x.GroupBy) && len(x.GroupBy) == 1 {
			d = rows
		}
	case *Join:
		nl := len(x.Left.Columns())
		if x.Kind == SemiJoin || x.Kind == AntiJoin || i < nl {
			d = es.ndv(x.Left, i)
		} else {
			d = es.ndv(x.Right, i-nl)
		}
	}
	return math.Max(1, math.Min(d, rows))
}

// functionRows is the length of a series with constant bounds, else
// PostgreSQL's guess for a set-returning function.
func functionRows(f *FunctionScan) float64 {
	if f.Func == "generate_series" && len(f.Args) >= 2 {
		lo, ok1 := constInt(f.Args[0])
		hi, ok2 := constInt(f.Args[1])
		step, ok3 := int64(1), true
		if len(f.Args) == 3 {
			step, ok3 = constInt(f.Args[2])
		}
		if ok1 && ok2 && ok3 && step != 0 {
			n := (hi-lo)/step + 1
			if n < 0 {
				n = 0
			}
			return float64(n)
		}
	}
	if f.Func == "nexmark" {
		return nexmarkRows(f)
	}
	if f.Func == "unnest" && len(f.Args) == 1 {
		if a, ok := f.Args[0].(*expr.ArrayConstructor); ok {
			return float64(len(a.Elems))
		}
		return 10
	}
	return defaultRelRows
}

func constInt(e expr.Expr) (int64, bool) {
	if c, ok := e.(*expr.Cast); ok {
		e = c.Arg
	}
	c, ok := e.(*expr.Const)
	if !ok {
		return 0, false
	}
	switch v := c.Val.(type) {
	case int64:
		return v, true
	case int32:
		return int64(v), true
	case int16:
		return int64(v), true
	}
	return 0, false
}

// selectivity guesses the fraction of rows for which the boolean e is
// true; ndv gives the distinct values of a column e reads.
func (es *estimator) selectivity(e expr.Expr, ndv func(*expr.ColumnRef) float64) float64 {
	colNDV := func(x expr.Expr) (float64, bool) {
		if c, ok := x.(*expr.Cast); ok {
			x = c.Arg
		}
		if c, ok := x.(*expr.ColumnRef); ok {
			return ndv(c), true
		}
		return 0, false
	}
	eq := func(a, z expr.Expr) float64 {
		da, oka := colNDV(a)
		dz, okz := colNDV(z)
		ra, rz := readsColumns(a), readsColumns(z)
		switch {
		case oka && okz:
			return 1 / math.Max(da, dz)
		case oka && !rz:
			return 1 / da
		case okz && !ra:
			return 1 / dz
		}
		return defaultEqSel
	}
	switch x := e.(type) {
	case *expr.BoolOp:
		s := 1.0
		if !x.And {
			s = 0
		}
		for _, a := range x.Args {
			as := es.selectivity(a, ndv)
			if x.And {
				s *= as
			} else {
				s = s + as - s*as
			}
		}
		return s
	case *expr.Not:
		return 1 - es.selectivity(x.Arg, ndv)
	case *expr.Const:
		if v, ok := x.Val.(bool); ok && !v || x.Val == nil {
			return 0
		}
		return 1
	case *expr.IsNull:
		if x.Negate {
			return 1 - defaultNullSel
		}
		return defaultNullSel
	case *expr.DistinctFrom:
		s := eq(x.Left, x.Right)
		if x.Negate {
			return s
		}
		return 1 - s
	case *expr.InList:
		s := 0.0
		for range x.List {
			s += eq(x.Arg, &expr.Const{})
		}
		s = math.Min(s, 1)
		if x.Negate {
			return 1 - s
		}
		return s
	case *expr.ArrayCompare:
		if x.All {
			return 1 - 10*defaultEqSel
		}
		return 10 * defaultEqSel
	case *expr.FuncCall:
		if len(x.Args) == 2 {
			switch x.Name {
			case "=":
				return eq(x.Args[0], x.Args[1])
			case "<>", "!=":
				return 1 - eq(x.Args[0], x.Args[1])
			case "<", ">", "<=", ">=":
				return defaultRangeSel
			case "~~", "~~*", "~", "~*", "like", "ilike":
				return defaultMatchSel
			case "!~~", "!~~*", "!~", "!~*":
				return 1 - defaultMatchSel
			}
		}
	case *expr.BoolTest, *expr.ColumnRef:
		return defaultBoolSel
	}
	return defaultRangeSel
}

// readsColumns reports whether e reads a column of its input.
func readsColumns(e expr.Expr) bool {
	found := false
	walkExpr(e, func(x expr.Expr) {
		if _, ok := x.(*expr.ColumnRef); ok {
			found = true
		}
	})
	return found
}
