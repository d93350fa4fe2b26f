package engine

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/wire"
)

// batchResult is a finished statement's output held in memory.
type batchResult struct {
	cols    []wire.Column
	batches []arrow.RecordBatch
	next    int
	tag     string
	onClose func() // gives back the statement's memory
}

var _ wire.Result = (*batchResult)(nil)

func (r *batchResult) Columns() []wire.Column { return r.cols }
func (r *batchResult) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if ctx.Err() != nil {
		// A cancel while the rows are being sent stops the sending.
		return nil, errQueryCanceled()
	}
	for r.next < len(r.batches) {
		b := r.batches[r.next]
		r.next++
		if b.NumRows() > 0 {
			return b, nil
		}
	}
	return nil, nil
}
func (r *batchResult) Tag() string { return r.tag }
func (r *batchResult) Close() {
	r.batches = nil
	if r.onClose != nil {
		r.onClose()
		r.onClose = nil
	}
}

// commandResult is a statement without rows.
func commandResult(tag string) *batchResult { return &batchResult{tag: tag} }

func errQueryCanceled() error {
	return sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
}
