package exec

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// ExpectationStage checks a streaming table's expectations
// (planner.Expectation) on the rows each epoch writes, before the epoch
// commits: every expectation is evaluated on every inserted row (a
// retraction is not a row written). A row passes when the condition is
// true or NULL; false, or an error evaluating it on that row (division by
// zero), is a failure of that row, not of the table.
//
//   - warn: the row is kept and counted failed.
//   - drop: the row is removed from the epoch's output, counted, and kept
//     for the quarantine table (Quarantined) with the names of every
//     expectation it failed.
//   - fail: the epoch fails with 23514 naming the expectation and the row;
//     nothing of it is committed (the engine fails the table).
//
// Contract: one goroutine (the job's) calls check; Epoch is read by the
// job's CommitEpoch for the epoch just checked, and stays valid until the
// next check. The counts are the epoch's own, not cumulative: the engine
// adds them to the durable totals in the epoch's transaction, so a re-run
// epoch (which does not commit) never counts twice.
type ExpectationStage struct {
	table      string
	list       []planner.Expectation
	names      []string // the table's columns, for a row's JSON
	ts         []types.T
	quarantine bool
	failAny    bool
	dropAny    bool

	// err fails every epoch (FailedExpectationStage).
	err error

	// Of the latest checked epoch.
	epoch ExpectationEpoch

	// Scratch reused across batches: a row's failures as one bit per
	// expectation, the kept rows, the dropped ones.
	fails   []uint64
	kept    []int32
	dropped []int
}

// ExpectationTally is one expectation's rows in one epoch.
type ExpectationTally struct {
	Passed, Failed int64
}

// ExpectationEpoch is what the checks found in one epoch.
type ExpectationEpoch struct {
	Counts        []ExpectationTally // one per expectation, in declaration order
	Rows, Dropped int64              // rows checked, rows dropped
	// Quarantined are the dropped rows (QuarantineColumns), when the
	// table has a quarantine table.
	Quarantined []arrow.RecordBatch
}

// ExpectationViolation is the SQLSTATE of a FAIL UPDATE expectation's
// failure: PostgreSQL's check_violation, the nearest of its codes to a
// row that breaks a declared rule.
const ExpectationViolation = "23514"

// FailedExpectationsColumn is the quarantine table's last column: the
// names of the expectations the row failed, in declaration order.
const FailedExpectationsColumn = "failed_expectations"

// QuarantineColumns are the columns of a quarantine table for a table of
// columns cols: the same columns, then failed_expectations text[].
func QuarantineColumns(cols []planner.Column) []planner.Column {
	out := append([]planner.Column(nil), cols...)
	return append(out, planner.Column{Name: FailedExpectationsColumn, T: types.ArrayOf(types.Text)})
}

// NewExpectationStage prepares the checks of table's expectations over
// rows of cols; quarantine keeps dropped rows for a quarantine table.
func NewExpectationStage(table string, list []planner.Expectation, cols []planner.Column, quarantine bool) *ExpectationStage {
	s := &ExpectationStage{table: table, list: list, quarantine: quarantine, epoch: ExpectationEpoch{Counts: make([]ExpectationTally, len(list))}}
	for _, c := range cols {
		s.names = append(s.names, c.Name)
		s.ts = append(s.ts, c.T)
	}
	for _, e := range list {
		s.failAny = s.failAny || e.Action == planner.ExpectFail
		s.dropAny = s.dropAny || e.Action == planner.ExpectDrop
	}
	return s
}

// Expectations are the checked expectations, in declaration order.
func (s *ExpectationStage) Expectations() []planner.Expectation { return s.list }

// FailedExpectationStage is a stage whose every check fails with err
// (expectations that no longer bind after a restart).
func FailedExpectationStage(err error) *ExpectationStage { return &ExpectationStage{err: err} }

// Epoch returns what the latest check found.
func (s *ExpectationStage) Epoch() ExpectationEpoch {
	if s == nil {
		return ExpectationEpoch{}
	}
	return s.epoch
}

// check checks the epoch's changes, removing the rows a drop expectation
// rejects (only append-only changes hold such rows: the engine refuses
// DROP ROW in other modes). A nil stage checks nothing.
func (s *ExpectationStage) check(ctx *expr.Ctx, changes []ChangeBatch) error {
	if s == nil {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	counts := s.epoch.Counts
	clear(counts)
	s.epoch = ExpectationEpoch{Counts: counts}
	for ci := range changes {
		c := &changes[ci]
		if c.Rows == nil || c.Rows.NumRows() == 0 {
			continue
		}
		out, err := s.checkBatch(ctx, c.Rows, c.Diff)
		if err != nil {
			return err
		}
		c.Rows = out
	}
	return nil
}

// checkBatch evaluates every expectation on b's inserted rows and returns
// b without the dropped ones.
func (s *ExpectationStage) checkBatch(ctx *expr.Ctx, b arrow.RecordBatch, diff []int8) (arrow.RecordBatch, error) {
	n := int(b.NumRows())
	if cap(s.fails) < n {
		s.fails = make([]uint64, n)
	}
	fails := s.fails[:n]
	clear(fails)
	for j, e := range s.list {
		bit := uint64(1) << uint(j)
		arr, err := e.Cond.Eval(ctx, b)
		if err != nil {
			// One row's value made the condition fail: find which, row by
			// row (this path only: the common one stays vectorised).
			s.failRowByRow(ctx, e.Cond, b, fails, bit)
		} else {
			pred, ok := arr.(*array.Boolean)
			if !ok {
				arr.Release()
				return nil, sqlerr.New(sqlerr.DatatypeMismatch, "expectation \"%s\" is not boolean", e.Name)
			}
			for i := 0; i < n; i++ {
				if pred.IsValid(i) && !pred.Value(i) {
					fails[i] |= bit
				}
			}
			arr.Release()
		}
		var failed int64
		inserted := int64(n)
		for i := 0; i < n; i++ {
			if diff != nil && diff[i] != ChangeInsert {
				fails[i] &^= bit
				inserted--
				continue
			}
			if fails[i]&bit != 0 {
				failed++
			}
		}
		s.epoch.Counts[j].Failed += failed
		s.epoch.Counts[j].Passed += inserted - failed
		if j == 0 {
			s.epoch.Rows += inserted
		}
	}
	if s.failAny {
		for i := 0; i < n; i++ {
			if fails[i] == 0 {
				continue
			}
			for j, e := range s.list {
				if e.Action == planner.ExpectFail && fails[i]&(uint64(1)<<uint(j)) != 0 {
					return nil, s.violation(ctx, e, b, i)
				}
			}
		}
	}
	if !s.dropAny {
		return b, nil
	}
	var dropMask uint64
	for j, e := range s.list {
		if e.Action == planner.ExpectDrop {
			dropMask |= uint64(1) << uint(j)
		}
	}
	s.kept, s.dropped = s.kept[:0], s.dropped[:0]
	for i := 0; i < n; i++ {
		if fails[i]&dropMask != 0 {
			s.dropped = append(s.dropped, i)
		} else {
			s.kept = append(s.kept, int32(i))
		}
	}
	if len(s.dropped) == 0 {
		return b, nil
	}
	s.epoch.Dropped += int64(len(s.dropped))
	if s.quarantine {
		s.epoch.Quarantined = append(s.epoch.Quarantined, s.quarantineRows(ctx, b, fails))
	}
	return takeBatch(ctx.Allocator(), b.Schema(), b, s.kept), nil
}

// failRowByRow marks the rows on which cond is false or fails.
func (s *ExpectationStage) failRowByRow(ctx *expr.Ctx, cond expr.Expr, b arrow.RecordBatch, fails []uint64, bit uint64) {
	for i := range fails {
		row := b.NewSlice(int64(i), int64(i+1))
		arr, err := cond.Eval(ctx, row)
		row.Release()
		if err != nil {
			fails[i] |= bit
			continue
		}
		if pred, ok := arr.(*array.Boolean); !ok || (pred.IsValid(0) && !pred.Value(0)) {
			fails[i] |= bit
		}
		arr.Release()
	}
}

// quarantineRows are b's dropped rows with the names of the expectations
// each failed.
func (s *ExpectationStage) quarantineRows(ctx *expr.Ctx, b arrow.RecordBatch, fails []uint64) arrow.RecordBatch {
	rows := expr.TakeRows(b, s.dropped)
	lb := array.NewBuilder(ctx.Allocator(), types.ArrayOf(types.Text).Arrow()).(*array.ListBuilder)
	defer lb.Release()
	vb := lb.ValueBuilder().(*array.StringBuilder)
	for _, i := range s.dropped {
		lb.Append(true)
		for j, e := range s.list {
			if fails[i]&(uint64(1)<<uint(j)) != 0 {
				vb.Append(e.Name)
			}
		}
	}
	names := lb.NewArray()
	cols := append(append([]arrow.Array(nil), rows.Columns()...), names)
	fields := append(append([]arrow.Field(nil), rows.Schema().Fields()...),
		arrow.Field{Name: FailedExpectationsColumn, Type: names.DataType(), Nullable: true})
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(len(s.dropped)))
}

// violation is FAIL UPDATE's error, in Databricks' words
// (EXPECTATION_VIOLATION): the table, the expectation, the row as JSON.
func (s *ExpectationStage) violation(ctx *expr.Ctx, e planner.Expectation, b arrow.RecordBatch, i int) error {
	names, ts := s.names, s.ts
	if len(names) != int(b.NumCols()) {
		names, ts = make([]string, b.NumCols()), make([]types.T, b.NumCols())
		for c := range names {
			names[c], ts[c] = b.Schema().Field(c).Name, typeOfArrow(b.Column(c).DataType())
		}
	}
	row := expr.RowJSONB(ctx, names, ts, b.Columns(), i)
	return sqlerr.New(ExpectationViolation, "[EXPECTATION_VIOLATION] streaming table '%s' failed to meet the expectation. Violated expectations: '%s'. Input data: '%s'", s.table, e.Name, row).
		WithDetail(fmt.Sprintf("Expectation %s: %s (ON VIOLATION FAIL UPDATE). Nothing of the epoch is committed.", e.Name, e.Text)).
		WithHint("Fix the input, or change the expectation (CREATE OR REFRESH STREAMING TABLE), then REFRESH STREAMING TABLE " + s.table + ".")
}

// IsExpectationViolation reports whether err is a FAIL UPDATE
// expectation's failure.
func IsExpectationViolation(err error) bool {
	return sqlerr.Code(err) == ExpectationViolation && strings.HasPrefix(sqlerr.From(err).Message, "[EXPECTATION_VIOLATION]")
}
