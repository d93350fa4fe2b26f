package engine

import (
	"context"
	"errors"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

var errBadInt = errors.New("not an integer")

// statement is one prepared statement of a session.
type statement struct {
	sess       *Session
	parsed     parse.Statement
	paramTypes []types.T
	// stream is set for weir's streaming statements (parsed.Node is nil).
	stream *parse.StreamingStmt
	// watermark is CREATE TABLE's WATERMARK FOR element, cut out of the text.
	watermark *parse.WatermarkSpec
	// masks are CREATE TABLE's column MASK clauses, cut out of the text
	// (column_masks.go).
	masks []parse.ColumnMaskClause

	prepared   bool
	catVersion uint64
	// preparedAs is the current user it was bound as: the schemas a name
	// is looked up in depend on the user's USAGE (privilege_checks.go).
	preparedAs string
	secEnv     scanSecurityEnv // the row security and masks it was bound under (row_security.go)
	query      *planner.Query
	insert     *planner.Insert
	cols       []wire.Column
}

var _ wire.Statement = (*statement)(nil)

// prepare binds the statement against the current catalog.
func (st *statement) prepare() error {
	n := st.parsed.Node
	st.prepared = true
	st.catVersion = st.sess.eng.cat.Version()
	st.preparedAs = st.sess.user
	st.secEnv = st.sess.scanSecurityEnv()
	if err := st.checkDatabaseNames(); err != nil { // catalog.schema.table (database_names.go)
		st.prepared = false
		return err
	}
	if st.stream != nil {
		st.cols = streamingColumns(st.stream)
		return nil
	}
	switch x := n.GetNode().(type) {
	case *pg_query.Node_SelectStmt:
		q, err := planner.BindQuery(st.sess.catalogView(), n, st.paramTypes)
		if err != nil {
			return err
		}
		st.query = q
		st.paramTypes = q.ParamTypes
		st.cols = wireColumns(q.Plan.Columns())
	case *pg_query.Node_DeclareCursorStmt:
		// Bound like a SELECT, so that its parameters have types; DECLARE
		// itself returns no rows (cursor.go).
		q, err := planner.BindQuery(st.sess.catalogView(), x.DeclareCursorStmt.Query, st.paramTypes)
		if err != nil {
			return err
		}
		st.query = q
		st.paramTypes = q.ParamTypes
	case *pg_query.Node_InsertStmt:
		ins, err := planner.BindInsert(st.sess.catalogView(), x.InsertStmt, st.paramTypes)
		if err != nil {
			return err
		}
		st.insert = ins
		st.paramTypes = ins.ParamTypes
	case *pg_query.Node_VariableShowStmt:
		name := x.VariableShowStmt.Name
		if strings.EqualFold(name, "all") {
			st.cols = []wire.Column{{Name: "name", Type: types.Text}, {Name: "setting", Type: types.Text}, {Name: "description", Type: types.Text}}
		} else {
			colName := strings.ToLower(name)
			if name == "timezone" {
				colName = "TimeZone"
			} else if s, ok := lookupSetting(name); ok {
				colName = s.name
			}
			if strings.EqualFold(name, "transaction_isolation") {
				colName = "transaction_isolation"
			}
			st.cols = []wire.Column{{Name: colName, Type: types.Text}}
		}
	case *pg_query.Node_ExplainStmt:
		st.cols = []wire.Column{{Name: "QUERY PLAN", Type: types.Text}}
	}
	return nil
}

func wireColumns(cols []planner.Column) []wire.Column {
	out := make([]wire.Column, len(cols))
	for i, c := range cols {
		out[i] = wire.Column{Name: c.Name, TableOID: c.TableOID, AttNum: c.AttNum, Type: c.T}
	}
	return out
}

// ParamTypes implements wire.Statement.
func (st *statement) ParamTypes() []uint32 {
	out := make([]uint32, len(st.paramTypes))
	for i, t := range st.paramTypes {
		out[i] = t.OID
		if out[i] == 0 || out[i] == types.OidUnknown {
			out[i] = types.OidText
		}
	}
	return out
}

// Columns implements wire.Statement. A FETCH's are its cursor's, looked up
// when asked: the same FETCH text may read different cursors over time.
func (st *statement) Columns() []wire.Column {
	if f := st.parsed.Node.GetFetchStmt(); f != nil {
		return st.sess.fetchColumns(f)
	}
	return st.cols
}

// Execute implements wire.Statement.
func (st *statement) Execute(ctx context.Context, params []wire.Value, io wire.ExecIO) (res wire.Result, err error) {
	s := st.sess
	s.countStatement() // server_stats.go
	defer s.auditStatement(st, s.auditBefore(st), &err)
	defer func() { s.countError(err) }()
	// Functions that wait (pg_sleep) and pg_cancel_backend's WARNINGs
	// need the statement's cancellation and connection.
	s.runDone, s.runIO = ctx.Done(), io
	defer func() { s.runDone, s.runIO = nil, nil }()
	if s.tx.failed && (st.stream != nil || !isTxEnd(st.parsed.Node)) {
		return nil, sqlerr.New(sqlerr.InFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	}
	defer func() {
		if err != nil && s.tx.open {
			s.tx.failed = true
		}
	}()
	if !st.prepared || st.catVersion != s.eng.cat.Version() || st.preparedAs != s.user || st.secEnv != s.scanSecurityEnv() {
		if err := st.prepare(); err != nil {
			return nil, err
		}
	}
	datums, err := st.decodeParams(params)
	if err != nil {
		return nil, err
	}
	if st.stream != nil {
		return s.runStreaming(ctx, st, io)
	}
	if err := st.checkPrivileges(); err != nil { // privilege_checks_stmt.go
		return nil, err
	}
	return s.dispatch(ctx, st, datums, io)
}

func isTxEnd(n *pg_query.Node) bool {
	t := n.GetTransactionStmt()
	if t == nil {
		return false
	}
	switch t.Kind {
	case pg_query.TransactionStmtKind_TRANS_STMT_COMMIT, pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK,
		pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return true
	}
	return false
}
