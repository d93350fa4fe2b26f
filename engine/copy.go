package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/internal/failpoint"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
	"github.com/weir-sql/weir/wire"
)

func (s *Session) runCopy(ctx context.Context, c *pg_query.CopyStmt, io wire.ExecIO) (wire.Result, error) {
	if c.IsProgram {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "COPY to or from a program is not supported").
			WithHint("Use COPY ... FROM STDIN / TO STDOUT, e.g. psql's \\copy, or COPY to or from a server file.")
	}
	if c.Filename != "" {
		return s.copyServerFile(ctx, c, io) // copy_file.go
	}
	opts, err := copyOptions(c.Options)
	if err != nil {
		return nil, err
	}
	if c.IsFrom {
		return s.copyFrom(ctx, c, opts, io)
	}
	return s.copyTo(ctx, c, opts, io)
}

func copyOptions(defs []*pg_query.Node) (wire.CopyOptions, error) {
	o := wire.CopyOptions{Format: "text"}
	for _, n := range defs {
		d := n.GetDefElem()
		v, err := defElemString(d)
		if err != nil {
			return o, err
		}
		switch d.Defname {
		case "format":
			v = strings.ToLower(v)
			if v != "text" && v != "csv" && v != "binary" {
				return o, sqlerr.New(sqlerr.InvalidParameterValue, "COPY format \"%s\" not recognized", v)
			}
			o.Format = v
		case "delimiter":
			o.Delimiter = v
		case "null":
			o.Null = v
		case "header":
			b, err := checkBool(v)
			if err != nil {
				return o, sqlerr.New(sqlerr.InvalidParameterValue, "header requires a Boolean value")
			}
			o.Header = b == "on"
		case "quote":
			o.Quote = v
		case "escape":
			o.Escape = v
		case "encoding":
			if _, err := checkEncoding(v); err != nil {
				return o, err
			}
		case "freeze":
		default:
			return o, sqlerr.New(sqlerr.SyntaxError, "option \"%s\" not recognized", d.Defname)
		}
	}
	return o, nil
}

func (s *Session) copyFrom(ctx context.Context, c *pg_query.CopyStmt, opts wire.CopyOptions, io wire.ExecIO) (wire.Result, error) {
	rel, err := s.catalogView().LookupRelation(c.Relation.Schemaname, c.Relation.Relname)
	if err != nil {
		return nil, err
	}
	if rel.Kind != planner.StoredTable || rel.ViewSQL != "" || rel.Streaming || rel.Source {
		return nil, sqlerr.New(sqlerr.WrongObjectType, "cannot copy to relation \"%s\"", rel.Name)
	}
	if err := s.refuseCopyFromRowSecurity(rel); err != nil { // row_security.go
		return nil, err
	}
	// Which table columns the data holds.
	var idx []int
	if len(c.Attlist) == 0 {
		for i := range rel.Cols {
			idx = append(idx, i)
		}
	} else {
		for _, a := range stringNames(c.Attlist) {
			found := -1
			for i, col := range rel.Cols {
				if col.Name == a {
					found = i
				}
			}
			if found < 0 {
				return nil, sqlerr.New(sqlerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", a, rel.Name)
			}
			for _, k := range idx {
				if k == found {
					return nil, sqlerr.New(sqlerr.DuplicateColumn, "column \"%s\" specified more than once", a)
				}
			}
			idx = append(idx, found)
		}
	}
	colTypes := make([]types.T, len(idx))
	names := make([]string, len(idx))
	for i, j := range idx {
		colTypes[i], names[i] = rel.Cols[j].T, rel.Cols[j].Name
	}
	if err := s.checkAccesses([]planner.Access{{OID: rel.OID, Privs: planner.AccessInsert, Columns: names}}); err != nil { // privilege_checks.go
		return nil, err
	}
	var defaults []expr.Expr // for the columns the data does not hold
	if len(idx) < len(rel.Cols) {
		if defaults, err = planner.ColumnDefaults(s.catalogView(), rel); err != nil {
			return nil, err
		}
	}
	ectx := s.exprCtx(nil)
	opts.Table, opts.ColumnNames = rel.Name, names
	src, err := io.CopyIn(ctx, opts, colTypes)
	if err != nil {
		return nil, err
	}
	// The columns the data does not hold get their defaults.
	fill := columnFill{ectx: ectx, defaults: defaults}
	if s.tx.open {
		return s.copyIntoBlock(ctx, src, rel, idx, fill)
	}
	return s.copyStreaming(ctx, src, rel, idx, fill)
}

// copyFlushBytes is how much encoded COPY data a statement holds before it
// writes it to the store as a part of its (still invisible) commit.
const copyFlushBytes = 32 << 20

// copyStreaming is COPY FROM STDIN outside a transaction block: the rows go
// into one store transaction as they arrive, written out in parts every
// copyFlushBytes, so a COPY of gigabytes holds tens of MB. The parts belong
// to one multi-part commit whose record is written last: a bad line, a
// cancel or a vanished client anywhere commits nothing (the deferred
// Discard removes the parts; after a crash Open does).
func (s *Session) copyStreaming(ctx context.Context, src wire.CopySource, rel *planner.Relation, idx []int, fill columnFill) (wire.Result, error) {
	tx := s.eng.store.Begin(true)
	defer tx.Discard()
	n, err := copyChunks(ctx, tx, src, rel, idx, fill)
	if err != nil {
		return nil, err
	}
	failpoint.Hit("write-before-commit")
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	failpoint.Hit("write-after-commit")
	s.eng.noteCommitTime(rel.OID)
	s.eng.notifyCommit()
	return commandResult(fmt.Sprintf("COPY %d", n)), nil
}

// copyIntoBlock is COPY FROM STDIN inside BEGIN ... COMMIT: the rows
// stream into the block's own store transaction, flushed in parts as
// outside a block, and commit with the block. A COPY that fails marks the
// block failed (only ROLLBACK remains), so its rows never commit; ROLLBACK
// or a session that ends discards the parts.
func (s *Session) copyIntoBlock(ctx context.Context, src wire.CopySource, rel *planner.Relation, idx []int, fill columnFill) (wire.Result, error) {
	if s.tx.store == nil {
		s.tx.store = s.eng.store.Begin(true)
	}
	tx := s.tx.store
	if !slices.Contains(s.tx.streamed, rel.OID) {
		s.tx.streamed = append(s.tx.streamed, rel.OID)
	}
	n, err := copyChunks(ctx, tx, src, rel, idx, fill)
	if err != nil {
		return nil, err
	}
	return commandResult(fmt.Sprintf("COPY %d", n)), nil
}

// copyChunks reads the COPY stream into tx as table chunks of rel,
// flushing them to the store every copyFlushBytes, and returns the rows.
func copyChunks(ctx context.Context, tx *state.Txn, src wire.CopySource, rel *planner.Relation, idx []int, fill columnFill) (int64, error) {
	schema := planner.Schema(relColumns(rel))
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, errQueryCanceled()
		}
		b, err := src.Next()
		if err != nil {
			return n, err
		}
		if b == nil {
			return n, nil
		}
		w, err := widen(fill.ectx, b, rel, idx, fill.defaults)
		if err != nil {
			return n, err
		}
		if err := checkNotNull(rel, w); err != nil {
			return n, err
		}
		out := array.NewRecordBatch(schema, w.Columns(), w.NumRows())
		err = tx.AppendChunks(rel.OID, []arrow.RecordBatch{out})
		out.Release()
		if err != nil {
			return n, err
		}
		n += w.NumRows()
		if tx.PendingChunkBytes() >= copyFlushBytes {
			if err := tx.FlushChunks(); err != nil {
				return n, err
			}
		}
	}
}

// columnFill is how COPY fills the columns its data does not hold.
type columnFill struct {
	ectx     *expr.Ctx
	defaults []expr.Expr
}

// widen places COPY's columns at their table positions; the columns the
// COPY did not name get their DEFAULT (NULL without one), as PostgreSQL.
func widen(ectx *expr.Ctx, b arrow.RecordBatch, rel *planner.Relation, idx []int, defaults []expr.Expr) (arrow.RecordBatch, error) {
	if len(idx) == len(rel.Cols) {
		identity := true
		for i, j := range idx {
			identity = identity && i == j
		}
		if identity {
			return b, nil
		}
	}
	cols := make([]arrow.Array, len(rel.Cols))
	for i, j := range idx {
		cols[j] = b.Column(i)
	}
	for j := range cols {
		if cols[j] == nil {
			v, err := defaults[j].Eval(ectx, b)
			if err != nil {
				return nil, err
			}
			cols[j] = v
		}
	}
	return array.NewRecordBatch(planner.Schema(relColumns(rel)), cols, b.NumRows()), nil
}

func (s *Session) copyTo(ctx context.Context, c *pg_query.CopyStmt, opts wire.CopyOptions, io wire.ExecIO) (wire.Result, error) {
	var q *planner.Query
	var err error
	if c.Query != nil {
		q, err = planner.BindQuery(s.catalogView(), c.Query, nil)
	} else {
		sel := "SELECT * FROM " + quoteQualified(c.Relation.Schemaname, c.Relation.Relname)
		if len(c.Attlist) > 0 {
			cols := stringNames(c.Attlist)
			for i := range cols {
				cols[i] = quoteIdentIfNeeded(cols[i])
			}
			sel = "SELECT " + strings.Join(cols, ", ") + " FROM " + quoteQualified(c.Relation.Schemaname, c.Relation.Relname)
		}
		tree, perr := pg_query.Parse(sel)
		if perr != nil {
			return nil, sqlerr.New(sqlerr.SyntaxError, "%v", perr)
		}
		q, err = planner.BindQuery(s.catalogView(), tree.Stmts[0].Stmt, nil)
		err = withoutPosition(err) // privilege_checks.go: not a position in the COPY the client sent
	}
	if err != nil {
		return nil, err
	}
	if err := s.checkAccesses(q.Accesses); err != nil { // privilege_checks.go
		return nil, err
	}
	mem := s.queryMemory()
	defer mem.Close()
	s.auditMaskedScans(q.Accesses) // column_masks.go
	env := &exec.Env{Tables: s.catalogView(), Ctx: s.exprCtx(nil), Memory: mem}
	op, err := exec.Build(env, q.Plan)
	if err != nil {
		return nil, err
	}
	// Rows go out as the plan makes them: COPY TO of a huge table holds a
	// batch at a time, and a cancel stops the operators mid-way.
	res := &operatorResult{cols: wireColumns(q.Plan.Columns()), op: op}
	defer res.Close()
	n, err := io.CopyOut(ctx, opts, res)
	if err != nil {
		return nil, err
	}
	return commandResult(fmt.Sprintf("COPY %d", n)), nil
}

func quoteQualified(schema, name string) string {
	if schema == "" {
		return quoteIdentIfNeeded(name)
	}
	return quoteIdentIfNeeded(schema) + "." + quoteIdentIfNeeded(name)
}
