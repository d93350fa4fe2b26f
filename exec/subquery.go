package exec

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Subquery.Run is a plain function (runSubquery) rather than a closure over
// one execution: plans are cached and shared, so the state of a running
// statement — its Env and the cached results of uncorrelated subqueries —
// is found through the statement's expression context instead.
type statementState struct {
	env  *Env
	refs int
	mu   sync.Mutex
	ctx  context.Context
	// results of uncorrelated subqueries, computed once per statement
	cache map[*expr.Subquery]*subqueryResult
}

var (
	statementsMu sync.Mutex
	statements   = map[*expr.Ctx]*statementState{}
)

func registerStatement(ectx *expr.Ctx, env *Env) *statementState {
	statementsMu.Lock()
	defer statementsMu.Unlock()
	st := statements[ectx]
	if st == nil {
		st = &statementState{env: env, cache: map[*expr.Subquery]*subqueryResult{}, ctx: context.Background()}
		statements[ectx] = st
	}
	st.refs++
	return st
}

func unregisterStatement(ectx *expr.Ctx) {
	statementsMu.Lock()
	defer statementsMu.Unlock()
	if st := statements[ectx]; st != nil {
		st.refs--
		if st.refs <= 0 {
			delete(statements, ectx)
		}
	}
}

func (st *statementState) setContext(ctx context.Context) {
	st.mu.Lock()
	st.ctx = ctx
	st.mu.Unlock()
}

func (st *statementState) context() context.Context {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.ctx
}

// subqueryResult is what a subquery's plan produced: the first column of
// its rows (at most two rows for scalar, one for EXISTS).
type subqueryResult struct {
	rows int
	vals arrow.Array
}

func lookupStatement(ectx *expr.Ctx) *statementState {
	statementsMu.Lock()
	defer statementsMu.Unlock()
	return statements[ectx]
}

// runSubquery is every prepared Subquery's Run.
func runSubquery(ectx *expr.Ctx, s *expr.Subquery, in arrow.RecordBatch) (arrow.Array, error) {
	st := lookupStatement(ectx)
	if st == nil {
		return nil, sqlerr.New(sqlerr.InternalError, "subquery evaluated outside of its statement")
	}
	plan, ok := s.Plan.(planner.Node)
	if !ok {
		return nil, sqlerr.New(sqlerr.InternalError, "subquery has no plan")
	}
	n := int(in.NumRows())
	if !s.Correlated {
		st.mu.Lock()
		res := st.cache[s]
		st.mu.Unlock()
		if res == nil {
			var err error
			if res, err = st.collect(ectx, s, plan); err != nil {
				return nil, err
			}
			st.mu.Lock()
			st.cache[s] = res
			st.mu.Unlock()
		}
		return subqueryValue(ectx, s, plan, res, in)
	}
	out := make([]expr.Datum, n)
	for i := 0; i < n; i++ {
		ectx.Outer = append(ectx.Outer, expr.OuterRow{Batch: in, Row: i})
		res, err := st.collect(ectx, s, plan)
		// The left side of IN / ANY / ALL belongs to this query level,
		// not the subquery's: evaluate it with the row popped again (its
		// own outer references counted from here).
		ectx.Outer = ectx.Outer[:len(ectx.Outer)-1]
		var arr arrow.Array
		if err == nil {
			arr, err = subqueryValue(ectx, s, plan, res, in.NewSlice(int64(i), int64(i+1)))
		}
		if err != nil {
			return nil, err
		}
		out[i] = expr.DatumAt(arr, 0)
	}
	return expr.ArrayFromDatums(ectx.Allocator(), s.T, out), nil
}

// collect runs the subquery's plan, reading only as many rows as its kind
// needs.
func (st *statementState) collect(ectx *expr.Ctx, s *expr.Subquery, plan planner.Node) (*subqueryResult, error) {
	ctx := st.context()
	op, err := Build(st.env, plan)
	if err != nil {
		return nil, err
	}
	defer op.Close()
	res := &subqueryResult{}
	var parts []arrow.Array
	for {
		b, err := op.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		res.rows += int(b.NumRows())
		if b.NumCols() > 0 {
			c := b.Column(0)
			c.Retain()
			parts = append(parts, c)
		}
		if s.Kind == expr.ExistsSubquery && res.rows > 0 {
			break
		}
		if s.Kind == expr.ScalarSubquery && res.rows > 1 {
			return nil, sqlerr.New(sqlerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
		}
	}
	switch {
	case len(parts) == 1:
		res.vals = parts[0]
	case len(parts) > 1:
		if res.vals, err = array.Concatenate(parts, ectx.Allocator()); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// subqueryValue computes the subquery expression for every row of in.
func subqueryValue(ectx *expr.Ctx, s *expr.Subquery, plan planner.Node, res *subqueryResult, in arrow.RecordBatch) (arrow.Array, error) {
	mem := ectx.Allocator()
	n := int(in.NumRows())
	switch s.Kind {
	case expr.ScalarSubquery:
		var d expr.Datum
		if res.rows == 1 && res.vals != nil {
			d = expr.DatumAt(res.vals, 0)
		}
		return expr.Broadcast(mem, s.T, d, n)
	case expr.ExistsSubquery:
		return expr.Broadcast(mem, s.T, res.rows > 0, n)
	case expr.ArraySubquery:
		// ARRAY(subquery): every row of the single column, in order; an
		// empty result is an empty array.
		elems := make([]expr.Datum, 0, res.rows)
		for j := 0; j < res.rows && res.vals != nil; j++ {
			elems = append(elems, expr.DatumAt(res.vals, j))
		}
		return expr.Broadcast(mem, s.T, elems, n)
	}
	if s.Left == nil || s.Cmp == nil {
		return nil, sqlerr.New(sqlerr.InternalError, "ANY/ALL subquery without a comparison")
	}
	cols := plan.Columns()
	if len(cols) == 0 {
		return nil, sqlerr.New(sqlerr.InternalError, "subquery has no columns")
	}
	left, err := s.Left.Eval(ectx, in)
	if err != nil {
		return nil, err
	}
	any := s.Kind == expr.AnySubquery
	// decided: ANY found a true / ALL found a false; sawNull: a comparison
	// was NULL.
	decided := make([]bool, n)
	sawNull := make([]bool, n)
	for j := 0; j < res.rows && res.vals != nil; j++ {
		right, err := expr.Broadcast(mem, cols[0].T, expr.DatumAt(res.vals, j), n)
		if err != nil {
			return nil, err
		}
		arr, err := s.Cmp(ectx, []arrow.Array{left, right}, n)
		if err != nil {
			return nil, err
		}
		cmp, ok := arr.(*array.Boolean)
		if !ok {
			return nil, sqlerr.New(sqlerr.DatatypeMismatch, "operator of ANY/ALL must return boolean")
		}
		for i := 0; i < n; i++ {
			switch {
			case cmp.IsNull(i):
				sawNull[i] = true
			case cmp.Value(i) == any:
				decided[i] = true
			}
		}
	}
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	for i := 0; i < n; i++ {
		switch {
		case decided[i]:
			b.Append(any)
		case sawNull[i]:
			b.AppendNull()
		default:
			b.Append(!any)
		}
	}
	return b.NewArray(), nil
}
