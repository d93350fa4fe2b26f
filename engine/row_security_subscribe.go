package engine

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/exec"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/expr"
)

// SUBSCRIBE reads a streaming table's rows as they are published, not
// through a query, so its row-level security is applied here: at
// SUBSCRIBE the table's row filters for the subscriber are bound (or the
// row_security = off refusal made), and every batch of contents and every
// change is run through them before the subscription diffs it. The
// policies are those in force when SUBSCRIBE starts, as a query's are
// those in force when it starts.

// subscribeSecurity is a subscriber's view of the table; nil when no
// policy or mask applies to the subscriber, and its methods then pass the
// rows through.
type subscribeSecurity struct {
	s    *Session
	plan planner.Node // over givenRowsScan
	// seen maps each contents batch of the last read to what the
	// subscriber sees of it, so that a batch republished unchanged (an
	// update-mode table's untouched segments) stays the same batch and
	// the subscription need not compare it again.
	seen map[arrow.RecordBatch][]arrow.RecordBatch
}

// subscribeSecurity binds the row filters of oid's table for the
// subscriber. (Its column masks are applied to what is sent, by
// subscribeMask in column_masks.go, after these filters, as a scan applies
// them.)
func (s *Session) subscribeSecurity(oid uint32) (*subscribeSecurity, error) {
	cr, ok := s.eng.cat.RelationByOID(oid)
	if !ok {
		return nil, nil
	}
	rel := plannerRelation(cr)
	v := s.catalogView()
	var sec planner.ScanSecurity
	if err := v.rowSecurity(rel, &sec); err != nil || len(sec.RowFilters) == 0 {
		return nil, err
	}
	var plan planner.Node = givenRowsScan(rel)
	for _, f := range sec.RowFilters {
		pred, err := planner.BindRowExpr(v, rel, f)
		if err != nil {
			return nil, err
		}
		plan = &planner.Filter{Input: plan, Pred: pred}
	}
	return &subscribeSecurity{s: s, plan: plan, seen: map[arrow.RecordBatch][]arrow.RecordBatch{}}, nil
}

// contents returns what the subscriber sees of a table's contents.
func (sec *subscribeSecurity) contents(ctx context.Context, rows []arrow.RecordBatch) ([]arrow.RecordBatch, error) {
	if sec == nil {
		return rows, nil
	}
	seen := make(map[arrow.RecordBatch][]arrow.RecordBatch, len(rows))
	var out []arrow.RecordBatch
	for _, b := range rows {
		vis, ok := sec.seen[b]
		if !ok {
			var err error
			if vis, err = sec.s.runOverRows(ctx, sec.plan, []arrow.RecordBatch{b}); err != nil {
				return nil, err
			}
		}
		seen[b] = vis
		out = append(out, vis...)
	}
	sec.seen = seen
	return out, nil
}

// changes returns what the subscriber sees of a changelog: the inserted
// and the deleted rows of each change batch, each through the plan.
func (sec *subscribeSecurity) changes(ctx context.Context, changes []exec.ChangeBatch) ([]exec.ChangeBatch, error) {
	if sec == nil {
		return changes, nil
	}
	var out []exec.ChangeBatch
	for _, c := range changes {
		if c.Diff == nil {
			vis, err := sec.s.runOverRows(ctx, sec.plan, []arrow.RecordBatch{c.Rows})
			if err != nil {
				return nil, err
			}
			for _, b := range vis {
				out = append(out, exec.Inserts(b))
			}
			continue
		}
		var ins, del []int
		for i, d := range c.Diff {
			if d == exec.ChangeDelete {
				del = append(del, i)
			} else {
				ins = append(ins, i)
			}
		}
		for _, part := range []struct {
			idx []int
			del bool
		}{{del, true}, {ins, false}} {
			if len(part.idx) == 0 {
				continue
			}
			vis, err := sec.s.runOverRows(ctx, sec.plan, []arrow.RecordBatch{expr.TakeRows(c.Rows, part.idx)})
			if err != nil {
				return nil, err
			}
			for _, b := range vis {
				cb := exec.Inserts(b)
				if part.del {
					cb.Diff = make([]int8, b.NumRows())
					for i := range cb.Diff {
						cb.Diff[i] = exec.ChangeDelete
					}
				}
				out = append(out, cb)
			}
		}
	}
	return out, nil
}

// one returns what the subscriber sees of one batch (nil: none of it).
func (sec *subscribeSecurity) one(ctx context.Context, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	if sec == nil {
		return b, nil
	}
	vis, err := sec.s.runOverRows(ctx, sec.plan, []arrow.RecordBatch{b})
	if err != nil || len(vis) == 0 {
		return nil, err
	}
	if len(vis) == 1 {
		return vis[0], nil
	}
	// A filter and a projection make one batch of one; join them anyway.
	cols := make([]arrow.Array, vis[0].NumCols())
	var n int64
	for _, v := range vis {
		n += v.NumRows()
	}
	for c := range cols {
		parts := make([]arrow.Array, len(vis))
		for i, v := range vis {
			parts[i] = v.Column(c)
		}
		arr, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		cols[c] = arr
	}
	return array.NewRecordBatch(vis[0].Schema(), cols, n), nil
}
