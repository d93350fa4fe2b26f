package engine

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// expectationsOID is the fixed OID of weir_catalog.expectations.
const expectationsOID uint32 = 14010

// weir_catalog.expectations: one row per expectation of each streaming
// table's job (a table's own query, or each flow of a table that flows
// fill), with the rows that passed and failed it, as committed with the
// epochs (a crash neither loses nor repeats a count).
var expectationsColumns = []planner.RelColumn{
	{Name: "table_name", T: types.Text},
	{Name: "flow", T: types.Text}, // NULL for a table's own query
	{Name: "expectation", T: types.Text},
	{Name: "action", T: types.Text}, // warn, drop, fail
	{Name: "condition", T: types.Text},
	{Name: "passed", T: types.Int8},
	{Name: "failed", T: types.Int8},
}

func expectationsRelation() *planner.Relation {
	return &planner.Relation{OID: expectationsOID, Schema: weirCatalogSchema, Name: "expectations", Kind: planner.VirtualTable, Cols: expectationsColumns}
}

// expectationRows builds weir_catalog.expectations.
func (e *Engine) expectationRows(sees func(*catalog.Relation) bool) ([]arrow.RecordBatch, error) {
	cols := make([][]any, len(expectationsColumns))
	tx := e.store.Begin(false)
	defer tx.Discard()
	for _, rel := range e.cat.Relations() {
		if rel.Kind != catalog.KindStreamingTable || rel.Streaming == nil || len(rel.Streaming.Expectations) == 0 || !sees(rel) { // sees: privilege_checks_monitor.go
			continue
		}
		type job struct {
			oid  uint32
			flow any
		}
		jobs := []job{{oid: rel.OID}}
		if rel.Streaming.NoQuery {
			jobs = nil
			for _, f := range rel.Streaming.Flows {
				jobs = append(jobs, job{oid: flowCheckpoint(rel, f), flow: f.Name})
			}
		}
		for _, j := range jobs {
			totals, err := readExpectationTotals(tx, j.oid)
			if err != nil {
				return nil, err
			}
			for _, ex := range rel.Streaming.Expectations {
				t := totals[ex.Name]
				appendRow(cols, []any{rel.Name, j.flow, ex.Name, planner.ExpectationAction(ex.OnViolation), ex.Expr, t[0], t[1]})
			}
		}
	}
	wc := make([]wire.Column, len(expectationsColumns))
	for i, c := range expectationsColumns {
		wc[i] = wire.Column{Name: c.Name, Type: c.T}
	}
	return []arrow.RecordBatch{anyBatch(wc, cols)}, nil
}
