package engine

import (
	"context"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// dispatch runs one bound statement.
func (s *Session) dispatch(ctx context.Context, st *statement, params []expr.Datum, io wire.ExecIO) (wire.Result, error) {
	n := st.parsed.Node
	switch x := n.GetNode().(type) {
	case *pg_query.Node_SelectStmt:
		return s.runQuery(ctx, st, params)
	case *pg_query.Node_InsertStmt:
		return s.runInsert(ctx, st, params)
	case *pg_query.Node_CopyStmt:
		return s.runCopy(ctx, x.CopyStmt, io)
	case *pg_query.Node_CreateStmt:
		if len(st.masks) > 0 {
			return s.createTableWithMasks(x.CreateStmt, st, io) // column_masks.go
		}
		return s.createTable(x.CreateStmt, st.watermark, io)
	case *pg_query.Node_ViewStmt:
		return s.createView(x.ViewStmt, st.parsed.Text)
	case *pg_query.Node_CreateSchemaStmt:
		return s.createSchema(x.CreateSchemaStmt, io)
	case *pg_query.Node_DropStmt:
		return s.drop(x.DropStmt, io)
	case *pg_query.Node_CreateFunctionStmt:
		return s.createFunction(x.CreateFunctionStmt) // functions.go
	case *pg_query.Node_CreateRoleStmt:
		return s.createRole(x.CreateRoleStmt)
	case *pg_query.Node_AlterRoleStmt:
		return s.alterRole(x.AlterRoleStmt)
	case *pg_query.Node_DropRoleStmt:
		return s.dropRole(x.DropRoleStmt, io)
	case *pg_query.Node_GrantRoleStmt:
		return s.grantRole(x.GrantRoleStmt, st.parsed, io)
	case *pg_query.Node_GrantStmt:
		return s.grant(x.GrantStmt, io) // grant.go
	case *pg_query.Node_AlterTableStmt:
		if isChangeOwner(x.AlterTableStmt) {
			return s.alterRelationOwner(x.AlterTableStmt) // alter_owner.go
		}
		if isRowSecurityAlter(x.AlterTableStmt) {
			return s.alterRowSecurity(x.AlterTableStmt, io) // row_security_ddl.go
		}
	case *pg_query.Node_AlterOwnerStmt:
		return s.alterOwner(x.AlterOwnerStmt) // alter_owner.go
	case *pg_query.Node_ReassignOwnedStmt:
		return s.reassignOwned(x.ReassignOwnedStmt) // owner_reassign.go
	case *pg_query.Node_DropOwnedStmt:
		return s.dropOwned(x.DropOwnedStmt, io) // owner_reassign.go
	case *pg_query.Node_VariableSetStmt:
		return s.set(x.VariableSetStmt, io)
	case *pg_query.Node_VariableShowStmt:
		return s.show(st, x.VariableShowStmt)
	case *pg_query.Node_TransactionStmt:
		return s.transaction(x.TransactionStmt, io)
	case *pg_query.Node_ExplainStmt:
		return s.explain(st, x.ExplainStmt)
	case *pg_query.Node_UpdateStmt:
		return nil, appendOnly("UPDATE")
	case *pg_query.Node_DeleteStmt:
		return nil, appendOnly("DELETE")
	case *pg_query.Node_TruncateStmt:
		return nil, appendOnly("TRUNCATE")
	case *pg_query.Node_MergeStmt:
		return nil, appendOnly("MERGE")
	case *pg_query.Node_DiscardStmt:
		return s.discard(x.DiscardStmt, io)
	case *pg_query.Node_DeclareCursorStmt:
		return s.declareCursor(ctx, st, x.DeclareCursorStmt, params)
	case *pg_query.Node_FetchStmt:
		return s.fetch(ctx, x.FetchStmt)
	case *pg_query.Node_ClosePortalStmt:
		return s.closeCursor(x.ClosePortalStmt)
	case *pg_query.Node_DeallocateStmt:
		return commandResult("DEALLOCATE"), nil
	case *pg_query.Node_CreatePolicyStmt: // row_security_ddl.go
		return s.createPolicy(x.CreatePolicyStmt, io)
	case *pg_query.Node_AlterPolicyStmt:
		return s.alterPolicy(x.AlterPolicyStmt, io)
	case *pg_query.Node_RenameStmt:
		if x.RenameStmt.RenameType == pg_query.ObjectType_OBJECT_POLICY {
			return s.renamePolicy(x.RenameStmt)
		}
	case *pg_query.Node_ListenStmt, *pg_query.Node_UnlistenStmt, *pg_query.Node_NotifyStmt:
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "LISTEN/NOTIFY is not supported; use SUBSCRIBE")
	}
	return nil, sqlerr.New(sqlerr.FeatureNotSupported, "%s is not supported", planner.NodeName(n))
}

func appendOnly(what string) error {
	return sqlerr.New(sqlerr.FeatureNotSupported, "%s is not supported: weir tables are append-only", what).
		WithHint("Input tables only accept INSERT and COPY; derive corrected results with a streaming table or a view.")
}

// exprCtx builds the evaluation context of one statement.
func (s *Session) exprCtx(params []expr.Datum) *expr.Ctx {
	return &expr.Ctx{
		Params:      params,
		Location:    s.loc,
		Now:         time.Now(),
		Catalog:     s.catalogView(),
		Settings:    s.currentSetting,
		User:        s.user,
		SessionUser: s.ids.session.name,
		Database:    s.db,
		BackendPID:  int32(s.pid),
		Done:        s.runDone,
		Backends:    sessionBackends{s: s, io: s.runIO},
	}
}

func (s *Session) currentSetting(name string) (string, bool) {
	st, ok := lookupSetting(name)
	if !ok {
		return "", false
	}
	return s.settings[lowerName(st.name)], true
}

// runQuery starts a query and returns its rows as a stream: the operator
// tree runs as the wire layer pulls batches (operator_result.go), so the
// result is never held whole and the first rows leave before the last are
// computed. The memory account lives until the result is closed.
func (s *Session) runQuery(ctx context.Context, st *statement, params []expr.Datum) (wire.Result, error) {
	mem := s.queryMemory()
	// The rows are read as they are sent, possibly across Executes and
	// other statements of the block: take the scanned tables' rows now,
	// as of the statement's start (scan_snapshot.go).
	tables, err := s.snapshotTables(ctx, st.query.Plan)
	if err != nil {
		mem.Close()
		return nil, err
	}
	s.auditMaskedScans(st.query.Accesses) // column_masks.go
	env := &exec.Env{Tables: tables, Ctx: s.exprCtx(params), Memory: mem}
	op, err := exec.Build(env, st.query.Plan)
	if err != nil {
		mem.Close()
		return nil, err
	}
	return &operatorResult{cols: st.cols, op: op, sess: s, selectTag: true, mem: mem}, nil
}
