package planner

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"strings"

	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// groupedScope is what a subquery sees of an aggregating query it is
// nested in, above the aggregation (select list, HAVING, ORDER BY): the
// aggregate's output row, whose first columns are the GROUP BY keys. A
// key that is a plain column keeps that column's name there; every other
// column of the FROM is gone, as it is from the row the subquery runs
// against. (Binding the subquery against the FROM's own columns made
// outer references index past the end of that row.)
func groupedScope(st *aggState) *scope {
	sc := &scope{parent: st.input.parent}
	for _, g := range st.groups {
		col := scopeCol{Name: "", T: g.Type(), Hidden: true}
		if cr, ok := g.(*expr.ColumnRef); ok && cr.Index < len(st.input.cols) {
			col = st.input.cols[cr.Index]
		}
		sc.cols = append(sc.cols, col)
	}
	return sc
}

// ungroupedOuterColumn turns "column does not exist" for a column the
// aggregating query's FROM does have into PostgreSQL's 42803.
func ungroupedOuterColumn(err error, st *aggState) error {
	se, ok := err.(*sqlerr.Error)
	if ok && se.Code == sqlerr.UndefinedTable && strings.HasPrefix(se.Message, "missing FROM-clause entry") {
		// A qualified reference whose table is only in the FROM below.
		for _, c := range st.input.cols {
			if c.Table != "" && strings.HasSuffix(se.Message, "\""+c.Table+"\"") {
				return &sqlerr.Error{Code: sqlerr.GroupingError, Position: se.Position,
					Message: "subquery uses ungrouped column of \"" + c.Table + "\" from outer query"}
			}
		}
	}
	if !ok || se.Code != sqlerr.UndefinedColumn {
		return err
	}
	for _, c := range st.input.cols {
		if c.Name == "" {
			continue
		}
		if strings.Contains(se.Message, "\""+c.Name+"\"") || strings.Contains(se.Message, "."+c.Name+"\"") {
			return &sqlerr.Error{Code: sqlerr.GroupingError, Position: se.Position,
				Message: "subquery uses ungrouped column \"" + qualified(c) + "\" from outer query"}
		}
	}
	return err
}

func qualified(c scopeCol) string {
	if c.Table == "" {
		return c.Name
	}
	return c.Table + "." + c.Name
}

// containsSubLink reports whether a parse tree holds a subquery.
func containsSubLink(n *pg_query.Node) bool {
	found := false
	walkParse(n.ProtoReflect(), func(m protoreflect.Message) bool {
		if _, ok := m.Interface().(*pg_query.SubLink); ok {
			found = true
		}
		return !found
	})
	return found
}
