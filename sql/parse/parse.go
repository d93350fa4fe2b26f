// Package parse turns SQL text into statements: PostgreSQL's own grammar
// (pg_query) for everything PostgreSQL knows, plus weir's streaming
// statements, which are recognised before the grammar sees them.
package parse

import (
	"errors"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Statement is one parsed statement of a query string.
type Statement struct {
	// Node is the pg_query tree of the statement.
	Node *pg_query.Node
	// Text is the statement's own text, sliced from the query string.
	Text string
	// Offset is where Text starts in the whole query string (bytes), so that
	// positions in errors can be reported against what the client sent.
	Offset int
}

// Parse parses a query string that may hold several statements.
func Parse(sql string) ([]Statement, error) {
	if err := checkNestingDepth(sql); err != nil {
		return nil, err
	}
	tree, err := pg_query.Parse(sql)
	if err != nil {
		// Spark's window.start / window.end and its composite type names
		// (STRUCT<...>) are spellings of a plain query that PostgreSQL's
		// grammar rejects; retry with them rewritten.
		if rewritten, ok := sparkRewrite(sql); ok {
			if t2, err2 := pg_query.Parse(rewritten); err2 == nil {
				tree, sql, err = t2, rewritten, nil
			}
		}
	}
	if err != nil && !isStackDepthError(err) {
		if t2, s2, ok := dialectRetry(sql, &err); ok { // Databricks' spellings (databricks_query.go)
			tree, sql, err = t2, s2, nil
		} else if se, refused := err.(*sqlerr.Error); refused {
			return nil, se // a Databricks feature weir does not have, by name
		}
	}
	if isStackDepthError(err) {
		return nil, sqlerr.StackDepthExceeded()
	}
	if err != nil {
		return nil, syntaxError(sql, err)
	}
	out := make([]Statement, 0, len(tree.Stmts))
	for _, raw := range tree.Stmts {
		start := int(raw.StmtLocation)
		end := len(sql)
		if raw.StmtLen > 0 {
			end = start + int(raw.StmtLen)
		}
		if start > len(sql) {
			start = len(sql)
		}
		if end > len(sql) {
			end = len(sql)
		}
		out = append(out, Statement{Node: raw.Stmt, Text: sql[start:end], Offset: start})
	}
	return out, nil
}

// syntaxError converts a pg_query error into a 42601 with the 1-based
// character position PostgreSQL would report.
func syntaxError(sql string, err error) error {
	var pe *parser.Error
	if errors.As(err, &pe) {
		pos := 0
		if pe.Cursorpos > 0 {
			pos = charPos(sql, pe.Cursorpos)
		}
		code := sqlerr.SyntaxError
		msg := pe.Message
		if strings.HasPrefix(msg, "unterminated") {
			code = sqlerr.SyntaxError
		}
		if strings.Contains(msg, "out of range") {
			code = sqlerr.NumericValueOutOfRange
		}
		return &sqlerr.Error{Code: code, Message: msg, Position: pos}
	}
	return sqlerr.New(sqlerr.SyntaxError, "%s", err.Error())
}

// charPos converts a 1-based byte offset into a 1-based character offset.
func charPos(s string, bytePos int) int {
	if bytePos > len(s) {
		bytePos = len(s) + 1
	}
	n := 0
	for i := range s {
		if i >= bytePos-1 {
			break
		}
		n++
	}
	return n + 1
}
