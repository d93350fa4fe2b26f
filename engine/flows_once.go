package engine

import (
	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// createOnceFlow runs CREATE FLOW name AS INSERT INTO ONCE target ...
func (s *Session) createOnceFlow(st *parse.StreamingStmt, target *catalog.Relation, text string, io noticer) (wire.Result, error) {
	return nil, sqlerr.New(sqlerr.FeatureNotSupported, "INSERT INTO ONCE flows (backfills) are not supported yet").
		WithHint("Insert the backfill into the flow's input table instead.")
}

// runOnceFlow runs a ONCE flow again (REFRESH ... FULL).
func (s *Session) runOnceFlow(target *catalog.Relation, f catalog.Flow) error { return nil }
