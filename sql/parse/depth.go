package parse

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// checkNestingDepth refuses, before pg_query parses it, a statement whose
// parse tree could nest deeper than sqlerr.MaxNestingDepth. pg_query's
// grammar keeps its own stack, but turning the tree into protobuf recurses
// on the C stack without a bound: `SELECT 1+1+...+1` with 100,000 terms
// overflows it and kills the process (a Go recover cannot catch a fault in
// C). The bound is computed from the tokens, which the scanner produces
// without recursing.
//
// The estimate is an upper bound on the tree's depth: every level of
// nesting in PostgreSQL's grammar is opened by a bracket, a CASE, or an
// operator (a symbol, `::`, or a keyword such as NOT, IS, LIKE, UNION,
// JOIN). Within one bracket level the operators seen since the last list
// separator may each nest one level deeper; commas, AND, OR and CASE's
// WHEN/THEN/ELSE separate siblings (AND and OR chains are flat lists in
// PostgreSQL's tree), so long lists and long WHERE clauses do not count.
func checkNestingDepth(sql string) error {
	if len(sql) <= sqlerr.MaxNestingDepth {
		return nil // every counted token takes at least one byte
	}
	res, err := pg_query.Scan(sql)
	if err != nil {
		return nil // let the parser report the syntax error
	}
	if nestingEstimate(res.Tokens) > sqlerr.MaxNestingDepth {
		return sqlerr.StackDepthExceeded()
	}
	return nil
}

type nestLevel struct {
	closer  pg_query.Token // what ends the level
	ops     int            // operators since the level's last separator
	between int            // BETWEENs waiting for their AND
}

func nestingEstimate(toks []*pg_query.ScanToken) int {
	stack := []nestLevel{{}}
	cur, worst := 1, 1
	push := func(closer pg_query.Token) {
		stack = append(stack, nestLevel{closer: closer})
		cur++
	}
	for _, t := range toks {
		top := &stack[len(stack)-1]
		switch k := t.Token; k {
		case pg_query.Token_ASCII_40:
			push(pg_query.Token_ASCII_41)
		case pg_query.Token_ASCII_91:
			push(pg_query.Token_ASCII_93)
		case pg_query.Token_CASE:
			push(pg_query.Token_END_P)
		case pg_query.Token_ASCII_41, pg_query.Token_ASCII_93, pg_query.Token_END_P:
			// Pop to the matching opener; an unmatched closer is the
			// parser's syntax error to report.
			for i := len(stack) - 1; i > 0; i-- {
				if stack[i].closer == k {
					for len(stack) > i {
						cur -= 1 + stack[len(stack)-1].ops
						stack = stack[:len(stack)-1]
					}
					break
				}
			}
		case pg_query.Token_AND:
			if top.between > 0 {
				top.between--
				top.ops++
				cur++
				break
			}
			cur -= top.ops
			top.ops = 0
		case pg_query.Token_ASCII_44, pg_query.Token_ASCII_59, pg_query.Token_OR,
			pg_query.Token_WHEN, pg_query.Token_THEN, pg_query.Token_ELSE:
			cur -= top.ops
			top.ops = 0
		default:
			if nestsDeeper(t) {
				if k == pg_query.Token_BETWEEN {
					top.between++
				}
				top.ops++
				cur++
			}
		}
		worst = max(worst, cur)
	}
	return worst
}

// nestsDeeper reports whether a token can open a deeper level of the parse
// tree below what precedes it: operators and the keywords that make
// expressions, set operations and joins.
func nestsDeeper(t *pg_query.ScanToken) bool {
	switch t.Token {
	case pg_query.Token_Op, pg_query.Token_TYPECAST, pg_query.Token_LESS_EQUALS,
		pg_query.Token_GREATER_EQUALS, pg_query.Token_NOT_EQUALS,
		pg_query.Token_ASCII_37, pg_query.Token_ASCII_42, pg_query.Token_ASCII_43,
		pg_query.Token_ASCII_45, pg_query.Token_ASCII_47, pg_query.Token_ASCII_60,
		pg_query.Token_ASCII_61, pg_query.Token_ASCII_62, pg_query.Token_ASCII_94,
		pg_query.Token_NOT, pg_query.Token_IS, pg_query.Token_ISNULL, pg_query.Token_NOTNULL,
		pg_query.Token_LIKE, pg_query.Token_ILIKE, pg_query.Token_SIMILAR, pg_query.Token_BETWEEN,
		pg_query.Token_IN_P, pg_query.Token_UNION, pg_query.Token_INTERSECT, pg_query.Token_EXCEPT,
		pg_query.Token_AT, pg_query.Token_COLLATE, pg_query.Token_EXISTS, pg_query.Token_ARRAY,
		pg_query.Token_ANY, pg_query.Token_ALL, pg_query.Token_SOME, pg_query.Token_OVERLAPS,
		pg_query.Token_JOIN, pg_query.Token_ROW, pg_query.Token_DISTINCT, pg_query.Token_LATERAL_P,
		pg_query.Token_SETOF:
		return true
	}
	return false
}

// isStackDepthError reports whether a parse error is protobuf-go's refusal
// of a tree nested past its recursion limit (10,000 messages), which is the
// same condition seen from the other side.
func isStackDepthError(err error) bool {
	return err != nil && strings.Contains(err.Error(), "exceeded maximum recursion depth")
}
