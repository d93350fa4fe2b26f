package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/internal/failpoint"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

func (s *Session) runInsert(ctx context.Context, st *statement, params []expr.Datum) (wire.Result, error) {
	mem := s.queryMemory()
	defer mem.Close()
	env := &exec.Env{Tables: s.catalogView(), Ctx: s.exprCtx(params), Memory: mem}
	batches, err := exec.Run(ctx, env, st.insert.Plan)
	if err != nil {
		return nil, err
	}
	if err := s.checkInsertRowSecurity(ctx, st.insert.Rel, batches); err != nil { // row_security.go
		return nil, err
	}
	n, err := s.appendRows(st.insert.Rel, batches)
	if err != nil {
		return nil, err
	}
	return commandResult(fmt.Sprintf("INSERT 0 %d", n)), nil
}

// appendRows checks NOT NULL columns and appends rows to a table: at once
// (durable when this returns) outside a transaction block, at COMMIT inside
// one.
func (s *Session) appendRows(rel *planner.Relation, batches []arrow.RecordBatch) (int64, error) {
	schema := planner.Schema(relColumns(rel))
	var rows int64
	out := make([]arrow.RecordBatch, 0, len(batches))
	for _, b := range batches {
		if b.NumRows() == 0 {
			continue
		}
		if err := checkNotNull(rel, b); err != nil {
			return 0, err
		}
		rows += b.NumRows()
		out = append(out, array.NewRecordBatch(schema, b.Columns(), b.NumRows()))
	}
	if len(out) == 0 {
		return 0, nil
	}
	if s.tx.open {
		if s.tx.pending == nil {
			s.tx.pending = map[uint32][]arrow.RecordBatch{}
		}
		if _, ok := s.tx.pending[rel.OID]; !ok {
			s.tx.order = append(s.tx.order, rel.OID)
		}
		s.tx.pending[rel.OID] = append(s.tx.pending[rel.OID], out...)
		return rows, nil
	}
	tx := s.eng.store.Begin(true)
	defer tx.Discard()
	if err := tx.AppendChunks(rel.OID, out); err != nil {
		return 0, err
	}
	failpoint.Hit("write-before-commit")
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	failpoint.Hit("write-after-commit")
	s.eng.noteCommitTime(rel.OID)
	s.eng.notifyCommit()
	return rows, nil
}

// checkNotNull fails with 23502 when b has a NULL in a NOT NULL column.
func checkNotNull(rel *planner.Relation, b arrow.RecordBatch) error {
	for i, c := range rel.Cols {
		if c.NotNull && b.Column(i).NullN() > 0 {
			return sqlerr.New(sqlerr.NotNullViolation, "null value in column \"%s\" of relation \"%s\" violates not-null constraint", c.Name, rel.Name)
		}
	}
	return nil
}

func relColumns(rel *planner.Relation) []planner.Column {
	cols := make([]planner.Column, len(rel.Cols))
	for i, c := range rel.Cols {
		cols[i] = planner.Column{Name: c.Name, T: c.T}
	}
	return cols
}

// commitPending writes a transaction block's rows in one store commit.
func (s *Session) commitPending() error {
	if len(s.tx.order) == 0 && s.tx.store == nil {
		return nil
	}
	tx := s.tx.store // holds what COPY streamed into the block
	if tx == nil {
		tx = s.eng.store.Begin(true)
		defer tx.Discard()
	}
	for _, rel := range s.tx.order {
		if err := tx.AppendChunks(rel, s.tx.pending[rel]); err != nil {
			return err
		}
	}
	failpoint.Hit("write-before-commit")
	if err := tx.Commit(); err != nil {
		return err
	}
	failpoint.Hit("write-after-commit")
	for _, rel := range s.tx.order {
		s.eng.noteCommitTime(rel)
	}
	for _, rel := range s.tx.streamed {
		s.eng.noteCommitTime(rel)
	}
	s.eng.notifyCommit()
	return nil
}

func lowerName(s string) string { return strings.ToLower(s) }
