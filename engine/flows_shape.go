package engine

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// A flow inserts BY NAME: each column its query gives goes to the target's
// column of that name, whatever the order; a target column the query does
// not give is NULL; a query column the target lacks is 42703 and a column
// of another type 42804, each naming the column. The target's columns are
// its declared ones, or else its first flow's. Every flow's rows are
// stored in the target's chunks, so they must have exactly the target's
// column types (the select list is rewritten into the target's order,
// with a typed NULL for each missing column).

// planFlow plans flow name's query (st, a CREATE FLOW) for target.
func (s *Session) planFlow(st *parse.StreamingStmt, target *catalog.Relation, name string) (*planner.StreamPlan, trigger, error) {
	sp, trig, err := s.planStreaming(st)
	if err != nil {
		return nil, trig, err
	}
	if st.Options["trigger"] == "" {
		trig = scheduledTrigger(target.Streaming.Schedule, trig)
	}
	if sp.Mode != planner.AppendMode {
		return nil, trig, sqlerr.New(sqlerr.FeatureNotSupported, "flow \"%s\" is in %s mode: an append flow's query must only add rows", name, sp.Mode).
			WithHint("Aggregate with a window and EMIT ON WINDOW CLOSE, or make the aggregation its own streaming table.")
	}
	for _, in := range streamInputs(sp) {
		if in == target.OID {
			return nil, trig, sqlerr.New("42P17", "flow \"%s\" reads its own target \"%s\"", name, target.Name).
				WithHint("A flow's query reads other tables: its target's rows would feed themselves.")
		}
	}
	cols := target.Columns
	if len(cols) == 0 {
		return sp, trig, nil // the first flow of an undeclared target gives the columns
	}
	if err := checkFlowColumns(target, name, sp.Cols); err != nil {
		return nil, trig, err
	}
	if flowInShape(cols, sp.Cols) {
		return sp, trig, nil
	}
	fill, err := nullFilled(target, name, sp.Cols)
	if err != nil {
		return nil, trig, err
	}
	q, ok := selectInDeclaredOrder(st.Query, sp.Cols, fill)
	if !ok {
		return nil, trig, sqlerr.New(sqlerr.InvalidColumnReference, "the query of flow \"%s\" gives its columns in another order than streaming table \"%s\" has them", name, target.Name).
			WithDetail("The table has: " + catalogColumnNames(cols) + "; the query gives: " + planColumnNames(sp.Cols) + ".").
			WithHint("List the query's columns in the table's order, each target column once (NULL AS col for one the flow does not fill).")
	}
	again := *st
	again.Query = q
	sp, trig, err = s.planStreaming(&again)
	if err != nil {
		return nil, trig, err
	}
	if st.Options["trigger"] == "" {
		trig = scheduledTrigger(target.Streaming.Schedule, trig)
	}
	if err := checkFlowColumns(target, name, sp.Cols); err != nil {
		return nil, trig, err
	}
	if !flowInShape(cols, sp.Cols) {
		return nil, trig, sqlerr.New(sqlerr.InvalidColumnReference, "the query of flow \"%s\" cannot be put in the column order of streaming table \"%s\"", name, target.Name).
			WithDetail("The table has: " + catalogColumnNames(cols) + "; the query gives: " + planColumnNames(sp.Cols) + ".")
	}
	*st = again
	return sp, trig, nil
}

// nullFilled is target's columns as the rewrite into the target's order
// takes them: each one the query does not give as a typed NULL (given as a
// generated column); a NOT NULL one it does not give is refused.
func nullFilled(target *catalog.Relation, flow string, got []planner.Column) ([]catalog.Column, error) {
	given := make(map[string]bool, len(got))
	for _, c := range got {
		given[c.Name] = true
	}
	notNull := notNullColumns(target)
	fill := append([]catalog.Column(nil), target.Columns...)
	for i := range fill {
		fill[i].Generated = ""
		if given[fill[i].Name] {
			continue
		}
		if slices.Contains(notNull, fill[i].Name) {
			return nil, sqlerr.New(sqlerr.InvalidColumnReference, "column \"%s\" of streaming table \"%s\" is NOT NULL and not in the query of flow \"%s\"", fill[i].Name, target.Name, flow).
				WithDetail("The query gives: " + planColumnNames(got) + ".").
				WithHint("Give it in the flow's select list (SELECT ... AS " + fill[i].Name + ").")
		}
		fill[i].Generated = fmt.Sprintf("CAST(NULL AS %s)", fill[i].Type)
	}
	return fill, nil
}

// checkFlowColumns refuses a flow column the target lacks (42703) or of
// another type than the target's (42804).
func checkFlowColumns(target *catalog.Relation, flow string, got []planner.Column) error {
	byName := make(map[string]catalog.Column, len(target.Columns))
	for _, c := range target.Columns {
		byName[c.Name] = c
	}
	for _, c := range got {
		d, ok := byName[c.Name]
		if !ok {
			return sqlerr.New(sqlerr.UndefinedColumn, "column \"%s\" of flow \"%s\" does not exist in streaming table \"%s\"", c.Name, flow, target.Name).
				WithDetail("The table has: " + catalogColumnNames(target.Columns) + ".").
				WithHint("A flow inserts BY NAME: rename the column (AS name) to one of the table's, or leave it out.")
		}
		if !sameType(d.Type, c.T) || !arrow.TypeEqual(d.Type.Arrow(), queryType(c.T).Arrow()) {
			return sqlerr.New(sqlerr.DatatypeMismatch, "column \"%s\" of streaming table \"%s\" is of type %s but flow \"%s\" gives %s", c.Name, target.Name, d.Type, flow, queryType(c.T)).
				WithHint(fmt.Sprintf("Cast it in the flow's query: CAST(... AS %s) AS %s.", d.Type, c.Name))
		}
	}
	return nil
}

// flowInShape: the query gives exactly the target's columns, in order.
func flowInShape(cols []catalog.Column, got []planner.Column) bool {
	if len(cols) != len(got) {
		return false
	}
	for i := range cols {
		if cols[i].Name != got[i].Name {
			return false
		}
	}
	return true
}
