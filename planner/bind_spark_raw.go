package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// isSparkRawLiteral reports whether a cast is Spark's raw string literal
// r'\d+' as PostgreSQL's grammar reads it: a string constant typed by a
// type named r (PostgreSQL's  type 'literal'  form). No type r exists, so
// the literal is taken as the text it holds; with standard_conforming_
// strings a backslash in it is itself, as in the raw literal.
func isSparkRawLiteral(tc *pg_query.TypeCast) bool {
	names := stringList(tc.TypeName.Names)
	if len(names) != 1 || names[0] != "r" || len(tc.TypeName.Typmods) > 0 || len(tc.TypeName.ArrayBounds) > 0 {
		return false
	}
	c := tc.Arg.GetAConst()
	return c != nil && c.GetSval() != nil
}
