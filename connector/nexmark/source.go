package nexmark

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/connector"
)

// Source is one Nexmark table as a connector.Source. Offset o is the
// table's rows o*BatchRows .. (o+1)*BatchRows-1, so a Read is computed
// from its offsets alone: the source keeps no log and never removes
// input (Start is 0). Only whole batches are readable until the table's
// last (possibly short) one, so a batch never changes once read.
type Source struct {
	gen    *Generator
	opts   Options
	schema *arrow.Schema
	mem    memory.Allocator
	opened time.Time
	now    func() time.Time
}

var _ connector.Source = (*Source)(nil)

// NewSource opens a source of o. A paced (or unbounded) source makes rows
// readable as the wall clock passes their event time's distance from
// event 0, counted from now.
func NewSource(o Options) (*Source, error) { return NewSourceAt(o, time.Now()) }

// NewSourceAt opens a source of o whose pacing counts from start: a named
// source's is its CREATE SOURCE time, so that every streaming table that
// reads it, and every restart, sees the same feed, which only grows with
// the clock. (What an offset holds never depends on the clock: only how
// far Read offers offsets does.)
func NewSourceAt(o Options, start time.Time) (*Source, error) {
	g, err := NewGenerator(o.Config)
	if err != nil {
		return nil, err
	}
	return &Source{gen: g, opts: o, schema: Schema(o.Table), mem: memory.DefaultAllocator, opened: start, now: time.Now}, nil
}

// EndOfInput is the watermark a bounded source gives once everything is
// read (9999-12-31 23:59:59 in microseconds since 1970): no row follows,
// so every window may close, as a bounded stream ends in Flink.
const EndOfInput int64 = 253402300799_000000

// Options is what the source was opened with.
func (s *Source) Options() Options { return s.opts }

// Schema is the schema of the source's batches.
func (s *Source) Schema() *arrow.Schema { return s.schema }

// readable is how many of the table's rows can be read now, and whether
// that is all of them.
func (s *Source) readable() (rows int64, all bool) {
	total := s.gen.Rows(s.opts.Table)
	if !s.opts.Paced && total >= 0 {
		return total, true
	}
	elapsed := max(s.now().Sub(s.opened), 0)
	cfg := s.gen.Config()
	events := int64(elapsed/time.Second)*cfg.EventsPerSecond + int64(elapsed%time.Second)*cfg.EventsPerSecond/int64(time.Second)
	if cfg.MaxEvents > 0 && events >= cfg.MaxEvents {
		return total, true
	}
	rows = RowsIn(s.opts.Table, events)
	return rows - rows%int64(s.opts.BatchRows), false
}

// Read generates the batches from offset from on (see connector.Source).
func (s *Source) Read(ctx context.Context, from int64, limit int) (connector.Read, error) {
	rows, _ := s.readable()
	b := int64(s.opts.BatchRows)
	end := (rows + b - 1) / b // offsets readable now
	from = max(from, 0)
	if total := s.gen.Rows(s.opts.Table); total >= 0 {
		from = min(from, (total+b-1)/b) // past the end of a bounded source
	}
	if from > end {
		// An offset a checkpoint recorded is never taken back because
		// the clock reads earlier now (a restart, a clock step): the
		// feed only ever grows.
		end = from
		rows = from * b
	}
	next := end
	if limit > 0 && from+int64(limit) < end {
		next = from + int64(limit)
	}
	rd := connector.Read{From: from, Next: next, Backlog: rows - min(next*b, rows)}
	for off := from; off < next; off++ {
		if err := ctx.Err(); err != nil {
			return connector.Read{}, err
		}
		first := off * b
		batch, err := s.Batch(first, int(min(b, rows-first)))
		if err != nil {
			return connector.Read{}, err
		}
		rd.Batches = append(rd.Batches, batch)
	}
	// No row after Next is earlier than its event time less the disorder
	// bound. With late rows there is no such bound (their lateness is the
	// point), so no hint.
	total := s.gen.Rows(s.opts.Table)
	switch nextRow := next * b; {
	case total >= 0 && nextRow >= total:
		rd.Watermark, rd.HasWatermark = EndOfInput, true
	case s.opts.Config.LateFraction == 0:
		rd.Watermark = s.gen.EventTime(EventOf(s.opts.Table, nextRow)) - int64(s.opts.Config.Disorder/time.Microsecond)
		rd.HasWatermark = true
	}
	return rd, nil
}

// Batch generates the table's rows first..first+n-1 as one batch.
func (s *Source) Batch(first int64, n int) (arrow.RecordBatch, error) {
	return NewBatch(s.gen, s.opts.Table, s.mem, first, n)
}

// NewBatch generates table t's rows first..first+n-1 of g as one batch.
func NewBatch(g *Generator, t Table, mem memory.Allocator, first int64, n int) (arrow.RecordBatch, error) {
	schema := Schema(t)
	bs := make([]array.Builder, len(schema.Fields()))
	for i, f := range schema.Fields() {
		bs[i] = array.NewBuilder(mem, f.Type)
		defer bs[i].Release()
	}
	if err := g.AppendRows(t, first, n, bs); err != nil {
		return nil, err
	}
	cols := make([]arrow.Array, len(bs))
	for i, b := range bs {
		cols[i] = b.NewArray()
	}
	return array.NewRecordBatch(schema, cols, int64(n)), nil
}

// Start is 0: a generator holds all its rows.
func (s *Source) Start() (int64, error) { return 0, nil }
