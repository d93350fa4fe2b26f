package engine

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/wire"
)

// operatorResult streams a running plan's batches to the wire as they are
// produced, instead of collecting the whole result first: COPY TO of a
// large table or query holds one batch at a time, and a cancel reaches the
// operators between batches. The operator tree is closed with the result.
type operatorResult struct {
	cols []wire.Column
	op   exec.Operator
	rows int64
	done bool
}

var _ wire.Result = (*operatorResult)(nil)

func (r *operatorResult) Columns() []wire.Column { return r.cols }

func (r *operatorResult) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if r.done {
		return nil, nil
	}
	b, err := r.op.Next(ctx)
	if err != nil || b == nil {
		r.done = true
		return nil, err
	}
	r.rows += b.NumRows()
	return b, nil
}

func (r *operatorResult) Tag() string { return "" }

func (r *operatorResult) Close() {
	if r.op != nil {
		r.op.Close()
		r.op = nil
	}
}
