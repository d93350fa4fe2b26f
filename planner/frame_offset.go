package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// frameOffsetVarFree rejects a window frame offset that refers to a
// column: the offset is evaluated once per partition, not per row, so
// PostgreSQL requires it to be free of variables (42P10). weir also
// rejects references to an enclosing query's columns, which it cannot
// evaluate where frames are computed.
func frameOffsetVarFree(e expr.Expr, frameOptions int32, n *pg_query.Node) error {
	hasVar := false
	walkExpr(e, func(x expr.Expr) {
		switch x.(type) {
		case *expr.ColumnRef, *expr.OuterRef:
			hasVar = true
		}
	})
	if !hasVar {
		return nil
	}
	what := "RANGE"
	switch {
	case frameOptions&frameRows != 0:
		what = "ROWS"
	case frameOptions&frameGroups != 0:
		what = "GROUPS"
	}
	pos := 0
	walkParse(n.ProtoReflect(), func(m protoreflect.Message) bool {
		if c, ok := m.Interface().(*pg_query.ColumnRef); ok && pos == 0 {
			pos = int(c.Location) + 1
		}
		return pos == 0
	})
	return sqlerr.At(sqlerr.InvalidColumnReference, pos, "argument of %s must not contain variables", what)
}

// frameGroups is FRAMEOPTION_GROUPS of PostgreSQL's parsenodes.h.
const frameGroups = 0x8
