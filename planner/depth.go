package planner

import "github.com/weir-sql/weir/sql/sqlerr"

// Binding recurses once per level of a statement's tree, and once per
// level of the queries it pulls in: a CTE's body is bound where it is
// referenced, a view's where it is read. The statement's own tree is
// bounded before it is parsed (sql/parse), but a chain of CTEs or views,
// each shallow, nests without bound; so the binder counts its own depth
// and gives PostgreSQL's 54001 past sqlerr.MaxNestingDepth, long before a
// goroutine's stack (1 GB, whose overflow kills the process) is at risk.
// What is built from a bound tree (plans, operators, expression
// evaluation, EXPLAIN) recurses no deeper than the tree, so this one
// bound keeps all of them safe.

// maxBoundQueries bounds how many query blocks one statement may expand
// to: each reference to a CTE binds its body again, so CTEs that each
// reference the previous one twice double the work at every step.
const maxBoundQueries = 20000

// enter counts one level of binding recursion; every enter that returns
// nil is paired with a leave.
func (b *binder) enter() error {
	b.depth++
	if b.depth > sqlerr.MaxNestingDepth {
		b.depth--
		return sqlerr.StackDepthExceeded()
	}
	return nil
}

func (b *binder) leave() { b.depth-- }

// enterQuery is enter for a query block, which also counts towards
// maxBoundQueries.
func (b *binder) enterQuery() error {
	b.queries++
	if b.queries > maxBoundQueries {
		return sqlerr.New(sqlerr.StatementTooComplex, "statement is too complex: it expands to more than %d query blocks", maxBoundQueries).
			WithHint("A CTE is expanded at each reference; reference large CTEs once, or create views or tables for them.")
	}
	return b.enter()
}

// expandingView reports whether the view name is already being expanded
// further out: it refers to itself through other views.
func (b *binder) expandingView(name string) bool {
	for _, v := range b.views {
		if v == name {
			return true
		}
	}
	return false
}
