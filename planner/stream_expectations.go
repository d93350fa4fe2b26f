package planner

import (
	"fmt"
	"strings"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// A streaming table's expectations (Databricks' CONSTRAINT name EXPECT
// (condition) [ON VIOLATION DROP ROW | FAIL UPDATE]) are checked on the
// rows the table's query writes: the root's output, in the table's
// columns, after every operator. They are bound here against those
// columns; the executor evaluates them (exec/stream_expectations.go).

// Actions of an expectation, as weir_catalog.expectations shows them.
const (
	ExpectWarn = "warn" // keep the row, count it failed
	ExpectDrop = "drop" // drop the row, count it, quarantine it
	ExpectFail = "fail" // fail the table, commit nothing of the epoch
)

// MaxExpectations is how many expectations one table may have (a row's
// failures are one 64-bit word in the executor).
const MaxExpectations = 64

// Expectation is one bound expectation.
type Expectation struct {
	Name   string
	Text   string // the condition as written
	Action string // ExpectWarn, ExpectDrop or ExpectFail
	// Cond is boolean over the table's columns (StreamPlan.Cols). A row
	// passes when it is true or NULL, as a SQL CHECK constraint does.
	Cond expr.Expr
}

// ExpectationAction is the action of ON VIOLATION's words ("" keeps the
// row).
func ExpectationAction(onViolation string) string {
	switch strings.ToLower(onViolation) {
	case "drop row":
		return ExpectDrop
	case "fail update":
		return ExpectFail
	}
	return ExpectWarn
}

// BindExpectation binds expectation name's condition over cols. The
// condition must be boolean (42804) and name only the table's columns
// (42703); the errors name the expectation. Aggregates, window functions
// and subqueries are refused: an expectation is about one row.
func BindExpectation(cat Catalog, cols []Column, name, cond, onViolation string) (Expectation, error) {
	ex := Expectation{Name: name, Text: cond, Action: ExpectationAction(onViolation)}
	fail := func(err error) (Expectation, error) {
		e := sqlerr.From(err)
		c := *e
		c.Message = fmt.Sprintf("expectation \"%s\": %s", name, e.Message)
		c.Position = 0
		return Expectation{}, &c
	}
	stmts, err := parse.Parse("SELECT (" + cond + ")")
	if err != nil || len(stmts) != 1 || stmts[0].Node.GetSelectStmt() == nil || len(stmts[0].Node.GetSelectStmt().TargetList) != 1 {
		if err == nil {
			err = sqlerr.New(sqlerr.SyntaxError, "not one condition: %s", cond)
		}
		return fail(err)
	}
	val := stmts[0].Node.GetSelectStmt().TargetList[0].GetResTarget().Val
	if containsSubLink(val) {
		return fail(sqlerr.New(sqlerr.FeatureNotSupported, "subqueries are not allowed in expectations: an expectation checks one row"))
	}
	if containsAggregate(val) {
		return fail(sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed in expectations: an expectation checks one row"))
	}
	sc := &scope{}
	for _, c := range cols {
		sc.cols = append(sc.cols, scopeCol{Name: c.Name, T: c.T})
	}
	b := &binder{cat: cat}
	e, err := b.bindExpr(val, &exprCtx{sc: sc, what: "expectations"})
	if err != nil {
		return fail(err)
	}
	switch e.Type().OID {
	case types.OidBool:
	case types.OidUnknown:
		if e, err = b.coerce(e, types.Bool, false, -1); err != nil {
			return fail(err)
		}
	default:
		return fail(sqlerr.New(sqlerr.DatatypeMismatch, "the condition must be type boolean, not type %s", e.Type()).
			WithHint("Write a comparison, such as (" + cond + ") IS NOT NULL or (" + cond + ") > 0."))
	}
	ex.Cond = e
	return ex, nil
}

// explainExpectations prints a plan's expectations (none: nothing).
func (sp *StreamPlan) explainExpectations(add func(string, ...any)) {
	if len(sp.Expectations) == 0 {
		return
	}
	add("  Expectations (checked on every row the query writes; NULL passes):")
	for _, e := range sp.Expectations {
		var what string
		switch e.Action {
		case ExpectDrop:
			what = "ON VIOLATION DROP ROW: dropped, counted"
			if sp.Quarantine != "" {
				what += ", written to " + sp.Quarantine
			}
		case ExpectFail:
			what = "ON VIOLATION FAIL UPDATE: the table fails, the epoch is not committed"
		default:
			what = "warn: kept, counted"
		}
		add("    %s EXPECT (%s): %s", e.Name, e.Text, what)
	}
}

// expectationProgress is what an epoch's commit holds of the plan's
// expectations, for EXPLAIN's "Where progress is stored" ("" for none).
func (sp *StreamPlan) expectationProgress() string {
	if len(sp.Expectations) == 0 {
		return ""
	}
	if sp.Quarantine != "" {
		return ", the expectations' counts and the rows dropped into " + sp.Quarantine
	}
	return ", the expectations' counts"
}
