package sqlerr

// Codes of the limits on how deeply a statement may nest.
const (
	StatementTooComplex = "54001"
	DuplicateAlias      = "42712"
)

// MaxNestingDepth bounds how deeply anything a client sends may nest: a
// statement's parse tree, the plan bound from it (views and CTEs
// included), a JSON document, an array literal. Every recursive walk in
// weir recurses at most about this deep, so no input can overflow a
// goroutine's stack (which kills the whole process, unrecoverably) or the
// C stack of the pg_query parser. PostgreSQL with its default
// max_stack_depth (2MB) accepts `1+1+...` of 4,000 terms and rejects
// 5,000; weir draws the line at the same place.
const MaxNestingDepth = 4000

// StackDepthExceeded is the error PostgreSQL gives when a statement
// nests deeper than max_stack_depth allows, with its hint.
func StackDepthExceeded() *Error {
	return &Error{
		Code:    StatementTooComplex,
		Message: "stack depth limit exceeded",
		Hint:    `Increase the configuration parameter "max_stack_depth" (currently 2048kB), after ensuring the platform's stack depth limit is adequate.`,
	}
}
