package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Comparison of struct values, as PostgreSQL compares rows.
//
// With ROW(...) constructors on both sides (ROW(a, b) = ROW(1, 'x')) it is
// the row-wise comparison of the fields (make_row_comparison_op): = is the AND
// of the fields' =, <> the OR of their <>, and < <= > >= decide on the
// first pair of fields that differ; a NULL field where it decides makes the
// result NULL. Otherwise (w = ROW(1, 'x'), a = b of two struct columns)
// it is record_eq / record_ne: fields are compared with NULL equal
// to NULL, and a NULL struct gives NULL; < <= > >= are record_lt and its
// kin: the first pair of fields that differ decides, a NULL field sorting
// after every value (as in ORDER BY and GROUP BY).

func isComparison(op string) bool {
	switch op {
	case "=", "<>", "!=", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// bindStructCompare binds l op r for struct-valued sides; ok is false
// when they are not both structs.
func (b *binder) bindStructCompare(op string, ln, rn *pg_query.Node, l, r expr.Expr, pos int) (expr.Expr, bool, error) {
	if !isComparison(op) {
		return nil, false, nil
	}
	l, r = structNullOperands(l, r)
	if !l.Type().IsStruct() || !r.Type().IsStruct() {
		return nil, false, nil
	}
	if op == "!=" {
		op = "<>"
	}
	lf, rf := structFields(l), structFields(r)
	if len(lf) != len(rf) {
		return nil, true, sqlerr.At(sqlerr.SyntaxError, pos+1, "unequal number of entries in row expressions")
	}
	// PostgreSQL compares field by field only when both sides are written
	// as row constructors; otherwise the operator is record_eq and its kin.
	rowForm := ln.GetRowExpr() != nil && rn.GetRowExpr() != nil
	if len(lf) == 0 {
		return &expr.Const{Val: op == "=" || op == "<=" || op == ">=", T: types.Bool}, true, nil
	}
	if !rowForm {
		var e expr.Expr
		var err error
		if op == "=" || op == "<>" {
			e, err = b.recordEquality(op, l, r, lf, rf, pos)
		} else {
			e, err = b.recordOrder(op, l, r, lf, rf, pos)
		}
		return e, true, err
	}
	e, err := b.rowComparison(op, lf, rf, pos)
	return e, true, err
}

// structFields gives one expression per field: a ROW(...)'s own, or the
// field selections of a struct value.
func structFields(e expr.Expr) []expr.Expr {
	if m, ok := e.(*expr.MakeStruct); ok {
		return m.Fields
	}
	fs := e.Type().Fields()
	out := make([]expr.Expr, len(fs))
	for i, f := range fs {
		out[i] = &expr.FieldSelect{Arg: e, Index: i, Name: f.Name, T: f.Type}
	}
	return out
}

func (b *binder) rowComparison(op string, lf, rf []expr.Expr, pos int) (expr.Expr, error) {
	pair := func(o string, i int) (expr.Expr, error) {
		return b.opOver(o, []expr.Expr{lf[i], rf[i]}, pos)
	}
	switch op {
	case "=", "<>":
		args := make([]expr.Expr, len(lf))
		for i := range lf {
			e, err := pair(op, i)
			if err != nil {
				return nil, err
			}
			args[i] = e
		}
		if len(args) == 1 {
			return args[0], nil
		}
		return &expr.BoolOp{And: op == "=", Args: args}, nil
	}
	// a < b: (a1 < b1) OR (a1 = b1 AND (a2 < b2 OR (a2 = b2 AND ... an op bn)))
	strict := op
	switch op {
	case "<=":
		strict = "<"
	case ">=":
		strict = ">"
	}
	last := len(lf) - 1
	acc, err := pair(op, last)
	if err != nil {
		return nil, err
	}
	for i := last - 1; i >= 0; i-- {
		lt, err := pair(strict, i)
		if err != nil {
			return nil, err
		}
		eq, err := pair("=", i)
		if err != nil {
			return nil, err
		}
		acc = &expr.BoolOp{And: false, Args: []expr.Expr{lt, &expr.BoolOp{And: true, Args: []expr.Expr{eq, acc}}}}
	}
	return acc, nil
}

func (b *binder) recordEquality(op string, l, r expr.Expr, lf, rf []expr.Expr, pos int) (expr.Expr, error) {
	same := make([]expr.Expr, len(lf))
	for i := range lf {
		e, err := b.notDistinct(lf[i], rf[i], i, pos)
		if err != nil {
			return nil, err
		}
		same[i] = e
	}
	var all expr.Expr = same[0]
	if len(same) > 1 {
		all = &expr.BoolOp{And: true, Args: same}
	}
	if op == "<>" {
		all = &expr.Not{Arg: all}
	}
	anyNull := &expr.BoolOp{And: false, Args: []expr.Expr{&expr.IsNull{Arg: l}, &expr.IsNull{Arg: r}}}
	return &expr.Case{Whens: []expr.Expr{anyNull}, Thens: []expr.Expr{&expr.Const{T: types.Bool}}, Else: all, T: types.Bool}, nil
}

// notDistinct is l IS NOT DISTINCT FROM r for one pair of fields.
func (b *binder) notDistinct(l, r expr.Expr, i, pos int) (expr.Expr, error) {
	eq, err := b.opOver("=", []expr.Expr{l, r}, pos)
	if err != nil {
		return nil, err
	}
	f, ok := eq.(*expr.FuncCall)
	if !ok || len(f.Args) != 2 {
		return nil, sqlerr.At(sqlerr.UndefinedFunction, pos+1, "could not identify an equality operator for field %d", i+1)
	}
	return &expr.DistinctFrom{Left: f.Args[0], Right: f.Args[1], Eq: f.Impl, Negate: true}, nil
}

// recordOrder is record_lt / record_le / record_gt / record_ge: never NULL
// for two non-NULL structs.
func (b *binder) recordOrder(op string, l, r expr.Expr, lf, rf []expr.Expr, pos int) (expr.Expr, error) {
	if op == ">" || op == ">=" {
		// a > b is b < a.
		l, r, lf, rf = r, l, rf, lf
		op = map[string]string{">": "<", ">=": "<="}[op]
	}
	null := &expr.Const{T: types.Bool}
	isNull := func(e expr.Expr) expr.Expr { return &expr.IsNull{Arg: e} }
	// before(i): field i of l sorts before field i of r (NULL last).
	before := func(i int) (expr.Expr, error) {
		lt, err := b.opOver("<", []expr.Expr{lf[i], rf[i]}, pos)
		if err != nil {
			return nil, err
		}
		return &expr.Case{
			Whens: []expr.Expr{isNull(lf[i]), isNull(rf[i])},
			Thens: []expr.Expr{&expr.Const{Val: false, T: types.Bool}, &expr.Const{Val: true, T: types.Bool}},
			Else:  lt, T: types.Bool}, nil
	}
	last := len(lf) - 1
	acc, err := before(last)
	if err != nil {
		return nil, err
	}
	if op == "<=" {
		same, err := b.notDistinct(lf[last], rf[last], last, pos)
		if err != nil {
			return nil, err
		}
		acc = &expr.BoolOp{And: false, Args: []expr.Expr{acc, same}}
	}
	for i := last - 1; i >= 0; i-- {
		lt, err := before(i)
		if err != nil {
			return nil, err
		}
		same, err := b.notDistinct(lf[i], rf[i], i, pos)
		if err != nil {
			return nil, err
		}
		acc = &expr.BoolOp{And: false, Args: []expr.Expr{lt, &expr.BoolOp{And: true, Args: []expr.Expr{same, acc}}}}
	}
	anyNull := &expr.BoolOp{And: false, Args: []expr.Expr{isNull(l), isNull(r)}}
	return &expr.Case{Whens: []expr.Expr{anyNull}, Thens: []expr.Expr{null}, Else: acc, T: types.Bool}, nil
}

// structNotDistinct is l IS [NOT] DISTINCT FROM r for structs: two NULL
// structs are not distinct, nor two whose fields are pairwise not distinct.
func (b *binder) structNotDistinct(l, r expr.Expr, negate bool, pos int) (expr.Expr, error) {
	lf, rf := structFields(l), structFields(r)
	if len(lf) != len(rf) {
		return nil, sqlerr.At(sqlerr.SyntaxError, pos+1, "unequal number of entries in row expressions")
	}
	both := []expr.Expr{&expr.IsNull{Arg: l, Negate: true}, &expr.IsNull{Arg: r, Negate: true}}
	for i := range lf {
		e, err := b.notDistinct(lf[i], rf[i], i, pos)
		if err != nil {
			return nil, err
		}
		both = append(both, e)
	}
	var same expr.Expr = &expr.BoolOp{And: false, Args: []expr.Expr{
		&expr.BoolOp{And: true, Args: []expr.Expr{&expr.IsNull{Arg: l}, &expr.IsNull{Arg: r}}},
		&expr.BoolOp{And: true, Args: both},
	}}
	if !negate {
		same = &expr.Not{Arg: same}
	}
	return same, nil
}

// structNullOperands types an untyped NULL compared with a struct as that
// struct (w = NULL, w IS DISTINCT FROM NULL), as PostgreSQL resolves the
// unknown side to the other's type.
func structNullOperands(l, r expr.Expr) (expr.Expr, expr.Expr) {
	isUnknownNull := func(e expr.Expr) bool {
		c, ok := e.(*expr.Const)
		return ok && c.Val == nil && c.T.OID == types.OidUnknown
	}
	switch {
	case l.Type().IsStruct() && isUnknownNull(r):
		r = &expr.Const{T: l.Type()}
	case r.Type().IsStruct() && isUnknownNull(l):
		l = &expr.Const{T: r.Type()}
	}
	return l, r
}

// structInList is w IN (a, b, ...) (NOT IN with <>) for a struct w: the OR
// of w = a, w = b, ... (the AND of <> for NOT IN), each a struct
// comparison as PostgreSQL expands a row IN list.
func (b *binder) structInList(a *pg_query.A_Expr, left expr.Expr, list []expr.Expr) (expr.Expr, error) {
	op := "="
	if opName(a.Name) == "<>" {
		op = "<>"
	}
	items := a.Rexpr.GetList().GetItems()
	args := make([]expr.Expr, len(list))
	for i, it := range list {
		e, ok, err := b.bindStructCompare(op, a.Lexpr, items[i], left, it, int(a.Location))
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, sqlerr.At(sqlerr.DatatypeMismatch, int(a.Location)+1, "IN types %s and %s cannot be matched", left.Type(), it.Type())
		}
		args[i] = e
	}
	if len(args) == 1 {
		return args[0], nil
	}
	return &expr.BoolOp{And: op == "<>", Args: args}, nil
}
