package engine

import (
	"context"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/planner"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/wire"
)

// SUBSCRIBE TO a target of flows (flows.go). Its rows are only ever
// appended, by several jobs with epochs of their own, so the subscription
// follows the target's log instead of one job: first every stored chunk,
// then each chunk as a flow's commit adds it. weir_epoch is the chunk's
// position in the target's log (1 for the first chunk ever), which grows
// with every commit of any flow; weir_diff is always +1.

type targetSubscription struct {
	eng     *Engine
	src     connector.Source
	cols    []wire.Column
	schema  *arrow.Schema
	next    int64
	pending []arrow.RecordBatch
	at      int64 // the log position of pending[0] minus one
	out     arrow.RecordBatch
	rls     *subscribeSecurity // row_security_subscribe.go; nil: every row
	// mask applies the target's column masks (nil: none; column_masks.go).
	mask func(arrow.RecordBatch) (arrow.RecordBatch, error)
}

var _ wire.StreamingResult = (*targetSubscription)(nil)

func (s *Session) subscribeTarget(ctx context.Context, rel *catalog.Relation, ss *parse.StreamingStmt, io wire.ExecIO) (wire.Result, error) {
	cols := []wire.Column{{Name: "weir_epoch", Type: types.Int8}, {Name: "weir_diff", Type: types.Int4}}
	pc := make([]planner.Column, len(rel.Columns))
	for i, c := range rel.Columns {
		cols = append(cols, wire.Column{Name: c.Name, Type: c.Type})
		pc[i] = planner.Column{Name: c.Name, T: c.Type}
	}
	schema := planner.Schema(pc)
	src := s.eng.logs.Source(rel.OID, schema)
	start, err := src.Start()
	if err != nil {
		return nil, err
	}
	res := &targetSubscription{eng: s.eng, src: src, cols: cols, schema: schema, next: start}
	if res.rls, err = s.subscribeSecurity(rel.OID); err != nil { // row_security_subscribe.go
		return nil, err
	}
	if res.mask, err = s.subscribeMask(rel); err != nil { // column_masks.go
		return nil, err
	}
	if ss.CopyOut {
		defer res.Close()
		n, err := io.CopyOut(ctx, wire.CopyOptions{Format: "text"}, res)
		if err != nil {
			return nil, err
		}
		return commandResult("COPY " + strconv.FormatInt(n, 10)), nil
	}
	return res, nil
}

func (t *targetSubscription) Columns() []wire.Column { return t.cols }
func (t *targetSubscription) Tag() string            { return "SUBSCRIBE" }
func (t *targetSubscription) Streaming() bool        { return true }
func (t *targetSubscription) Close() {
	if t.out != nil {
		t.out.Release()
		t.out = nil
	}
}

// Next returns the next chunk of the target, waiting for a flow's commit
// when every stored one was sent.
func (t *targetSubscription) Next(ctx context.Context) (arrow.RecordBatch, error) {
	t.Close()
	for {
		if len(t.pending) > 0 {
			b := t.pending[0]
			t.pending = t.pending[1:]
			t.at++
			b, err := t.rls.one(ctx, b)
			if err != nil {
				return nil, err
			}
			if b == nil {
				continue
			}
			t.out = t.wrap(b, t.at)
			if t.mask != nil {
				masked, err := t.mask(t.out)
				if err != nil {
					return nil, err
				}
				t.out.Release()
				t.out = masked
			}
			return t.out, nil
		}
		wake := t.eng.commitSignal() // taken before reading, so no commit is missed
		rd, err := t.src.Read(ctx, t.next, 0)
		if err != nil {
			return nil, err
		}
		if len(rd.Batches) > 0 {
			t.pending, t.at, t.next = rd.Batches, rd.From, rd.Next
			continue
		}
		select {
		case <-ctx.Done():
			return nil, sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
		case <-wake:
		case <-time.After(time.Second):
		}
	}
}

// wrap prefixes a chunk's rows with weir_epoch = at and weir_diff = +1.
func (t *targetSubscription) wrap(b arrow.RecordBatch, at int64) arrow.RecordBatch {
	n := int(b.NumRows())
	eb := array.NewInt64Builder(memory.DefaultAllocator)
	db := array.NewInt32Builder(memory.DefaultAllocator)
	for i := 0; i < n; i++ {
		eb.Append(at)
		db.Append(1)
	}
	ea, da := eb.NewArray(), db.NewArray()
	defer ea.Release()
	defer da.Release()
	fields := []arrow.Field{{Name: "weir_epoch", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "weir_diff", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}
	arrs := []arrow.Array{ea, da}
	for i := 0; i < int(b.NumCols()); i++ {
		fields = append(fields, b.Schema().Field(i))
		arrs = append(arrs, b.Column(i))
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(n))
}
