package engine

import (
	"context"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/wire"
)

// operatorResult streams a running plan's batches to the wire as they are
// produced, instead of collecting the whole result first: a SELECT or COPY
// TO of any size holds one batch at a time (plus what its operators hold or
// spill), its first rows leave before the last are computed, and a cancel
// reaches the operators between batches.
//
// It lives as long as the result is being sent: for a portal suspended at
// an Execute row limit, across Executes until the wire layer closes it
// (Close of the portal, Sync or COMMIT ending its transaction, a new
// simple query, the session's end); for a SQL cursor (cursor.go), until
// CLOSE or the end of its block. Everything the statement holds (the
// operator tree and its spill files, the memory account) is released by
// Close, whichever of those comes first.
type operatorResult struct {
	cols []wire.Column
	op   exec.Operator
	rows int64 // rows produced so far
	done bool

	// sess, when set, is the session whose transaction block an error of
	// the running plan fails, as PostgreSQL aborts the block on an error
	// while fetching. (The wire layer refuses to continue a portal in a
	// failed block.)
	sess *Session
	// selectTag: Tag is "SELECT n" (a query); otherwise "" (COPY TO
	// words its own tag).
	selectTag bool
	// mem is the statement's memory account (nil for COPY TO, which
	// closes its own); Close closes it after the operator tree.
	mem *exec.QueryMemory
}

var _ wire.Result = (*operatorResult)(nil)

func (r *operatorResult) Columns() []wire.Column { return r.cols }

func (r *operatorResult) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if r.done || r.op == nil {
		return nil, nil
	}
	b, err := r.op.Next(ctx)
	if err != nil {
		r.done = true
		if r.sess != nil && r.sess.tx.open {
			r.sess.tx.failed = true
		}
		if r.sess != nil {
			r.sess.countError(err) // server_stats.go
		}
		return nil, err
	}
	if b == nil {
		r.done = true
		return nil, nil
	}
	r.rows += b.NumRows()
	return b, nil
}

func (r *operatorResult) Tag() string {
	if r.selectTag {
		return "SELECT " + strconv.FormatInt(r.rows, 10)
	}
	return ""
}

func (r *operatorResult) Close() {
	if r.op != nil {
		r.op.Close()
		r.op = nil
	}
	if r.mem != nil {
		r.mem.Close()
		r.mem = nil
	}
}
