package engine

import (
	"github.com/apache/arrow-go/v18/arrow"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

func (s *Session) explain(st *statement, e *pg_query.ExplainStmt) (wire.Result, error) {
	for _, o := range e.Options {
		if d := o.GetDefElem(); d != nil && d.Defname == "analyze" {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "EXPLAIN ANALYZE is not supported")
		}
	}
	var plan planner.Node
	switch x := e.Query.GetNode().(type) {
	case *pg_query.Node_SelectStmt:
		q, err := planner.BindQuery(s.catalogView(), e.Query, nil)
		if err != nil {
			return nil, err
		}
		if err := s.checkAccesses(q.Accesses); err != nil { // privilege_checks.go: EXPLAIN checks as PostgreSQL's does
			return nil, err
		}
		plan = q.Plan
	case *pg_query.Node_InsertStmt:
		ins, err := planner.BindInsert(s.catalogView(), x.InsertStmt, nil)
		if err != nil {
			return nil, err
		}
		if err := s.checkAccesses(ins.Accesses); err != nil { // privilege_checks.go
			return nil, err
		}
		plan = ins.Plan
	default:
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "EXPLAIN of this statement is not supported")
	}
	lines := planner.Explain(plan)
	return &batchResult{cols: st.cols, batches: []arrow.RecordBatch{textBatch(lines)}, tag: "EXPLAIN"}, nil
}
