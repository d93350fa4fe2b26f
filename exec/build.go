package exec

import (
	"context"
	"fmt"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Build turns a plan into its operator tree. It prepares every subquery
// expression of the plan (Subquery.Run), which then runs against env while
// the returned operator is open; close it when done.
func Build(env *Env, plan planner.Node) (Operator, error) {
	if env == nil {
		return nil, sqlerr.New(sqlerr.InternalError, "exec: nil environment")
	}
	ectx := env.exprCtx()
	hasSubqueries := false
	walkPlan(plan, func(s *expr.Subquery) {
		hasSubqueries = true
		if s.Run == nil {
			s.Run = runSubquery
		}
	})
	op, err := build(env, plan)
	if err != nil {
		return nil, err
	}
	// The root always passes the statement's context to the expression
	// kernels (statementOp.Next); the subquery state only when needed.
	var st *statementState
	if hasSubqueries {
		st = registerStatement(ectx, env)
	}
	return &statementOp{input: op, ectx: ectx, st: st}, nil
}

func build(env *Env, plan planner.Node) (Operator, error) {
	switch p := plan.(type) {
	case *planner.Scan:
		return &scanOp{env: env, plan: p, schema: planner.Schema(p.Cols)}, nil
	case *planner.Values:
		return &valuesOp{env: env, plan: p, schema: planner.Schema(p.Cols)}, nil
	case *planner.FunctionScan:
		return &functionScanOp{env: env, plan: p, schema: planner.Schema(p.Cols)}, nil
	}
	children := plan.Children()
	inputs := make([]Operator, 0, len(children))
	for _, c := range children {
		op, err := build(env, c)
		if err != nil {
			for _, in := range inputs {
				in.Close()
			}
			return nil, err
		}
		inputs = append(inputs, op)
	}
	switch p := plan.(type) {
	case *planner.Filter:
		return &filterOp{env: env, plan: p, input: inputs[0]}, nil
	case *planner.Project:
		return &projectOp{env: env, plan: p, input: inputs[0], schema: planner.Schema(p.Cols)}, nil
	case *planner.Aggregate:
		return &hashAggregateOp{env: env, plan: p, input: inputs[0], schema: planner.Schema(p.Cols)}, nil
	case *planner.Sort:
		return &sortOp{env: env, plan: p, input: inputs[0], schema: planner.Schema(p.Columns())}, nil
	case *planner.Limit:
		return &limitOp{env: env, plan: p, input: inputs[0]}, nil
	case *planner.Join:
		return newJoinOp(env, p, inputs[0], inputs[1]), nil
	case *planner.Distinct:
		return newDistinctOp(env, p, inputs[0]), nil
	case *planner.SetOp:
		return newSetOpOp(env, p, inputs[0], inputs[1]), nil
	case *planner.Window:
		return &windowOp{env: env, plan: p, input: inputs[0], schema: planner.Schema(p.Cols)}, nil
	case *planner.WindowAssign:
		return &windowAssignOp{env: env, plan: p, input: inputs[0], schema: planner.Schema(p.Cols)}, nil
	case *planner.ProjectSet:
		return &projectSetOp{env: env, plan: p, input: inputs[0], schema: planner.Schema(p.Cols)}, nil
	}
	for _, in := range inputs {
		in.Close()
	}
	return nil, sqlerr.New(sqlerr.FeatureNotSupported, "exec: plan node %T is not supported", plan)
}

// statementOp is the root of a tree whose expressions hold subqueries: it
// keeps the statement's subquery state registered while open.
type statementOp struct {
	input  Operator
	ectx   *expr.Ctx
	st     *statementState
	closed bool
}

var _ Operator = (*statementOp)(nil)

func (s *statementOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.st != nil {
		s.st.setContext(ctx)
	}
	// Expression kernels that loop over rows poll ectx.Done (they have no
	// context argument), so a cancel reaches them inside a batch.
	if d := ctx.Done(); d != nil && s.ectx.Done != d {
		s.ectx.Done = d
	}
	return s.input.Next(ctx)
}

func (s *statementOp) Close() {
	if s.closed {
		return
	}
	s.closed = true
	s.input.Close()
	if s.st != nil {
		unregisterStatement(s.ectx)
	}
}

// walkPlan calls fn for every subquery in the expressions of plan and its
// inputs (not inside the subqueries' own plans, which are prepared when
// they run).
func walkPlan(plan planner.Node, fn func(*expr.Subquery)) {
	if plan == nil {
		return
	}
	var es []expr.Expr
	keys := func(ks []planner.SortKey) {
		for _, k := range ks {
			es = append(es, k.Expr)
		}
	}
	switch p := plan.(type) {
	case *planner.Values:
		for _, r := range p.Rows {
			es = append(es, r...)
		}
	case *planner.FunctionScan:
		es = append(es, p.Args...)
	case *planner.Filter:
		es = append(es, p.Pred)
	case *planner.Project:
		es = append(es, p.Exprs...)
	case *planner.Aggregate:
		es = append(es, p.GroupBy...)
		for _, a := range p.Aggs {
			es = append(es, a.Args...)
			es = append(es, a.Filter)
			keys(a.OrderBy)
		}
	case *planner.Sort:
		keys(p.Keys)
	case *planner.Limit:
		es = append(es, p.Limit, p.Offset)
	case *planner.Join:
		es = append(es, p.LeftKeys...)
		es = append(es, p.RightKeys...)
		es = append(es, p.Cond)
	case *planner.Distinct:
		es = append(es, p.On...)
	case *planner.ProjectSet:
		for _, c := range p.Calls {
			es = append(es, c.Args...)
		}
	case *planner.WindowAssign:
		es = append(es, p.Time)
		es = append(es, p.PartitionBy...)
	case *planner.Window:
		for _, c := range p.Calls {
			es = append(es, c.Args...)
			es = append(es, c.PartitionBy...)
			keys(c.OrderBy)
			es = append(es, c.Frame.Start.Offset, c.Frame.End.Offset)
		}
	}
	seen := map[any]bool{}
	for _, e := range es {
		walkExpr(reflect.ValueOf(e), fn, seen)
	}
	for _, c := range plan.Children() {
		walkPlan(c, fn)
	}
}

var exprType = reflect.TypeOf((*expr.Expr)(nil)).Elem()

// walkExpr finds subqueries in an expression tree. It goes by reflection
// over every field holding expressions, so that expression node types added
// to sql/expr are covered without changes here.
func walkExpr(v reflect.Value, fn func(*expr.Subquery), seen map[any]bool) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			walkExpr(v.Elem(), fn, seen)
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if v.CanInterface() {
			key := fmt.Sprintf("%p", v.Interface())
			if seen[key] {
				return
			}
			seen[key] = true
			if s, ok := v.Interface().(*expr.Subquery); ok {
				fn(s)
				if s.Left != nil {
					walkExpr(reflect.ValueOf(s.Left), fn, seen)
				}
				return
			}
		}
		walkExpr(v.Elem(), fn, seen)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if !f.CanInterface() {
				continue
			}
			switch f.Kind() {
			case reflect.Interface, reflect.Pointer, reflect.Slice, reflect.Struct:
				if f.Kind() == reflect.Interface && !f.Type().Implements(exprType) && f.Type() != exprType {
					continue // e.g. Subquery.Plan: any
				}
				walkExpr(f, fn, seen)
			}
		}
	case reflect.Slice:
		et := v.Type().Elem()
		if et.Kind() != reflect.Interface && et.Kind() != reflect.Pointer && et.Kind() != reflect.Struct {
			return
		}
		for i := 0; i < v.Len(); i++ {
			walkExpr(v.Index(i), fn, seen)
		}
	}
}
