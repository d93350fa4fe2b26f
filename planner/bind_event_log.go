package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// EventLogCatalog is implemented by a catalog that serves Databricks'
// event_log('table') table function: EventLogQuery resolves the table's
// name (as the statement's search path does) and returns the SELECT whose
// rows are its events, or the error naming what is wrong (42P01 no such
// table, 42809 not a streaming table). The query is bound as a view's
// body is, so its rows obey the reader's privileges as the relation it
// reads does.
type EventLogCatalog interface {
	EventLogQuery(table string) (string, error)
}

// bindEventLog binds event_log('name') in FROM. Databricks' other form,
// event_log(TABLE(name)), reaches here as a string too (the parser's
// Databricks spellings rewrite it).
func (b *binder) bindEventLog(rf *pg_query.RangeFunction, fc *pg_query.FuncCall, parent *scope) (Node, *scope, error) {
	pos := int(fc.Location) + 1
	ec, ok := b.cat.(EventLogCatalog)
	if !ok {
		return nil, nil, sqlerr.At(sqlerr.FeatureNotSupported, pos, "event_log is not supported here")
	}
	var target string
	if len(fc.Args) == 1 {
		if c := fc.Args[0].GetAConst(); c != nil && c.GetSval() != nil {
			target = c.GetSval().Sval
		}
	}
	if target == "" || rf.Ordinality {
		return nil, nil, sqlerr.At(sqlerr.UndefinedFunction, pos, "function event_log takes one argument, a streaming table's name").
			WithHint("SELECT * FROM event_log('my_table'), or event_log(TABLE(my_table)).")
	}
	q, err := ec.EventLogQuery(target)
	if err != nil {
		return nil, nil, sqlerr.PositionIfNone(err, pos)
	}
	stmts, err := parse.Parse(q)
	if err != nil || len(stmts) != 1 {
		return nil, nil, sqlerr.New(sqlerr.InternalError, "event_log: unreadable query")
	}
	saved := b.ctes
	b.ctes = nil
	plan, err := b.bindSelectNode(stmts[0].Node, nil)
	b.ctes = saved
	if err != nil {
		return nil, nil, err
	}
	alias, colnames := "event_log", []string(nil)
	if rf.Alias != nil {
		alias, colnames = rf.Alias.Aliasname, stringList(rf.Alias.Colnames)
	}
	return plan, scopeOf(plan.Columns(), alias, colnames, parent), nil
}
