package exec

// Placeholder until the retracting join lands (stream_join_retract.go):
// a join that reads a changelog is refused when it runs.

import (
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

type RetractingJoin struct {
	Kind                JoinKindOf
	LeftKeys, RightKeys []expr.Expr
	Cond                expr.Expr
	LeftCols, RightCols []planner.Column
	RetractingAggregate
}

func (j *RetractingJoin) Inputs() int { return 2 }
func (j *RetractingJoin) Push(sc *StreamCtx, input int, c ChangeBatch) error {
	return sqlerr.New(sqlerr.FeatureNotSupported, "a join that reads a changelog is not supported yet")
}
