package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/planner"
)

// scanOp reads a relation from the TableSource and re-slices its batches
// to at most BatchSize rows.
type scanOp struct {
	env     *Env
	plan    *planner.Scan
	schema  *arrow.Schema
	loaded  bool
	batches []arrow.RecordBatch
	cur     int   // batch being sliced
	off     int64 // next row of batches[cur]
}

var _ Operator = (*scanOp)(nil)

func (s *scanOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := checkCancel(ctx, s.env); err != nil {
		return nil, err
	}
	if !s.loaded {
		s.loaded = true
		if s.env.Tables == nil {
			return nil, nil
		}
		bs, err := s.env.Tables.ScanTable(ctx, s.plan)
		if err != nil {
			return nil, err
		}
		s.batches = bs
	}
	for s.cur < len(s.batches) {
		b := s.batches[s.cur]
		n := b.NumRows()
		if s.off >= n {
			s.cur++
			s.off = 0
			continue
		}
		end := min(s.off+BatchSize, n)
		var out arrow.RecordBatch
		if s.off == 0 && end == n {
			out = b
		} else {
			out = b.NewSlice(s.off, end)
		}
		s.off = end
		return withSchema(s.schema, out), nil
	}
	return nil, nil
}

func (s *scanOp) Close() { s.batches = nil }
