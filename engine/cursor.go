package engine

import (
	"context"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// SQL cursors: DECLARE name [NO SCROLL] CURSOR [WITHOUT HOLD] FOR query,
// FETCH [FORWARD] [n | ALL | NEXT] [FROM] name, MOVE, CLOSE name | ALL, as
// psql's FETCH_COUNT uses them. A cursor is a streamed query result
// (operatorResult) kept by the transaction block: each FETCH pulls only
// the rows it returns, so a result of any size is read in pieces with a
// bounded heap. Cursors end with their block (txState.closeCursors), as in
// PostgreSQL without WITH HOLD. Only forward fetching is supported.

// PostgreSQL's CURSOR_OPT_* bits of DeclareCursorStmt.Options.
const (
	cursorBinary = 0x1
	cursorScroll = 0x2
	cursorHold   = 0x20
)

// sqlCursor is one declared cursor: its running result and where it
// stands in the current batch.
type sqlCursor struct {
	res   *operatorResult
	batch arrow.RecordBatch
	off   int64
	done  bool
}

func (c *sqlCursor) close() {
	c.res.Close()
	c.batch = nil
}

// closeCursors closes every cursor of the block.
func (tx *txState) closeCursors() {
	for name, c := range tx.cursors {
		c.close()
		delete(tx.cursors, name)
	}
}

// declareCursor runs DECLARE: st.query is its query, bound by prepare.
func (s *Session) declareCursor(ctx context.Context, st *statement, d *pg_query.DeclareCursorStmt, params []expr.Datum) (wire.Result, error) {
	switch {
	case d.Options&cursorHold != 0:
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "cursors WITH HOLD are not supported")
	case d.Options&cursorScroll != 0:
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "SCROLL cursors are not supported").
			WithHint("Declare it NO SCROLL and fetch forward.")
	case d.Options&cursorBinary != 0:
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "BINARY cursors are not supported")
	}
	if !s.tx.open {
		return nil, sqlerr.New("25P01", "DECLARE CURSOR can only be used in transaction blocks")
	}
	if _, ok := s.tx.cursors[d.Portalname]; ok {
		return nil, sqlerr.New("42P03", "cursor \"%s\" already exists", d.Portalname)
	}
	q := &statement{sess: s, query: st.query, cols: wireColumns(st.query.Plan.Columns())}
	res, err := s.runQuery(ctx, q, params)
	if err != nil {
		return nil, err
	}
	if s.tx.cursors == nil {
		s.tx.cursors = map[string]*sqlCursor{}
	}
	s.tx.cursors[d.Portalname] = &sqlCursor{res: res.(*operatorResult)}
	return commandResult("DECLARE CURSOR"), nil
}

func (s *Session) closeCursor(c *pg_query.ClosePortalStmt) (wire.Result, error) {
	if c.Portalname == "" {
		s.tx.closeCursors()
		return commandResult("CLOSE CURSOR ALL"), nil
	}
	cur, ok := s.tx.cursors[c.Portalname]
	if !ok {
		return nil, errNoCursor(c.Portalname)
	}
	cur.close()
	delete(s.tx.cursors, c.Portalname)
	return commandResult("CLOSE CURSOR"), nil
}

// CursorColumns implements wire.CursorSession.
func (s *Session) CursorColumns(name string) ([]wire.Column, bool) {
	c, ok := s.tx.cursors[name]
	if !ok {
		return nil, false
	}
	return c.res.cols, true
}

// fetchColumns are the columns a FETCH returns, known from its cursor: a
// FETCH is described (Describe, Bind's result formats) before it runs.
func (s *Session) fetchColumns(f *pg_query.FetchStmt) []wire.Column {
	if c, ok := s.tx.cursors[f.Portalname]; ok && !f.Ismove {
		return c.res.cols
	}
	return nil
}

func errNoCursor(name string) error {
	return sqlerr.New(sqlerr.InvalidCursorName, "cursor \"%s\" does not exist", name)
}

func (s *Session) fetch(ctx context.Context, f *pg_query.FetchStmt) (wire.Result, error) {
	cur, ok := s.tx.cursors[f.Portalname]
	if !ok {
		return nil, errNoCursor(f.Portalname)
	}
	if f.Direction != pg_query.FetchDirection_FETCH_FORWARD || f.HowMany < 0 {
		return nil, sqlerr.New("55000", "cursor can only scan forward").
			WithHint("weir's cursors fetch forward only (FETCH [FORWARD] n, NEXT or ALL).")
	}
	if f.HowMany == 0 {
		return nil, sqlerr.New(sqlerr.FeatureNotSupported, "FETCH of the current row (a count of 0) is not supported")
	}
	r := &fetchResult{cur: cur, left: f.HowMany, verb: "FETCH", cols: cur.res.cols}
	if f.Ismove {
		// MOVE reads the rows and keeps none.
		r.verb, r.cols = "MOVE", nil
	}
	if err := r.collect(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// fetchResult is the rows of one FETCH (or the rows MOVE skips): up to
// left rows of the cursor, sliced out of its batches. They are all read
// before the first is sent, as PostgreSQL collects a FETCH's rows: an
// error inside the FETCH sends no rows of it. Each FETCH holds only its
// own rows (counted against the cursor's query memory); MOVE holds none.
type fetchResult struct {
	cur  *sqlCursor
	cols []wire.Column // nil for MOVE
	left int64         // FETCH ALL arrives as HowMany = math.MaxInt64
	rows int64
	verb string
	held *exec.HeldBatches
	next int // next held batch to return
}

var (
	_ wire.Result        = (*fetchResult)(nil)
	_ wire.CursorSession = (*Session)(nil)
)

func (r *fetchResult) Columns() []wire.Column { return r.cols }

// collect reads the FETCH's rows from the cursor, before anything is
// sent (so an error inside it is the statement's error, with no
// RowDescription or rows, as in PostgreSQL).
func (r *fetchResult) collect(ctx context.Context) error {
	r.held = exec.NewHeldBatches(r.cur.res.mem, "the FETCH result")
	for {
		b, err := r.cur.take(ctx, r.left)
		if err == nil && b != nil && r.cols != nil {
			err = r.held.Add(b)
		}
		if err != nil {
			r.held.Release()
			return err
		}
		if b == nil {
			return nil
		}
		r.left -= b.NumRows()
		r.rows += b.NumRows()
	}
}

func (r *fetchResult) Next(ctx context.Context) (arrow.RecordBatch, error) {
	bs := r.held.Batches()
	if r.next >= len(bs) {
		return nil, nil
	}
	r.next++
	return bs[r.next-1], nil
}

// take returns the cursor's next rows, at most max of them, or nil at the
// end of the cursor or when max is 0.
func (c *sqlCursor) take(ctx context.Context, max int64) (arrow.RecordBatch, error) {
	for max > 0 && !c.done {
		if c.batch == nil || c.off >= c.batch.NumRows() {
			b, err := c.res.Next(ctx)
			if err != nil {
				c.done, c.batch = true, nil
				return nil, err
			}
			if b == nil {
				c.done, c.batch = true, nil
				break
			}
			c.batch, c.off = b, 0
			continue
		}
		n := min(max, c.batch.NumRows()-c.off)
		out := c.batch
		if c.off != 0 || n != c.batch.NumRows() {
			out = c.batch.NewSlice(c.off, c.off+n)
		}
		c.off += n
		return out, nil
	}
	return nil, nil
}

func (r *fetchResult) Tag() string { return r.verb + " " + strconv.FormatInt(r.rows, 10) }

// Close gives back the FETCH's rows; the cursor stays open until CLOSE or
// the end of its block.
func (r *fetchResult) Close() {
	if r.held != nil {
		r.held.Release()
	}
}
