package engine

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// transaction runs BEGIN / COMMIT / ROLLBACK. A transaction block buffers
// the rows it writes and commits them atomically; DDL inside a block takes
// effect at once (it is not transactional in weir).
func (s *Session) transaction(t *pg_query.TransactionStmt, io wire.ExecIO) (wire.Result, error) {
	switch t.Kind {
	case pg_query.TransactionStmtKind_TRANS_STMT_BEGIN, pg_query.TransactionStmtKind_TRANS_STMT_START:
		if s.tx.open {
			io.Notice("WARNING", sqlerr.ActiveTransaction, "there is already a transaction in progress")
			return commandResult("BEGIN"), nil
		}
		s.endTx(txState{open: true})
		return commandResult("BEGIN"), nil
	case pg_query.TransactionStmtKind_TRANS_STMT_COMMIT:
		if !s.tx.open {
			io.Notice("WARNING", sqlerr.NoActiveTransaction, "there is no transaction in progress")
			return commandResult("COMMIT"), nil
		}
		if s.tx.failed {
			s.endTx(txState{})
			return commandResult("ROLLBACK"), nil
		}
		err := s.commitPending()
		s.endTx(txState{})
		if err != nil {
			return nil, err
		}
		return commandResult("COMMIT"), nil
	case pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		if !s.tx.open {
			io.Notice("WARNING", sqlerr.NoActiveTransaction, "there is no transaction in progress")
		}
		s.endTx(txState{})
		return commandResult("ROLLBACK"), nil
	}
	return nil, sqlerr.New(sqlerr.FeatureNotSupported, "savepoints and two-phase commit are not supported")
}
