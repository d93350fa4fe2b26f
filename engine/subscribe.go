package engine

import (
	"context"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/sql/expr"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
	"github.com/weir-sql/weir/wire"
)

// SUBSCRIBE TO name pushes a streaming table's contents, then every change
// as its epochs commit, until the client cancels. Each row carries the
// epoch it committed in (weir_epoch) and whether it was inserted (+1) or
// deleted (-1: an update-mode row replaced by its new value) (weir_diff).

func (s *Session) subscribe(ctx context.Context, ss *parse.StreamingStmt, io wire.ExecIO) (wire.Result, error) {
	r, err := s.streamingRunner(ss)
	if err != nil {
		return nil, err
	}
	if r.job == nil {
		return nil, sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "streaming table \"%s\" is not running", ss.Name)
	}
	cols := []wire.Column{{Name: "weir_epoch", Type: types.Int8}, {Name: "weir_diff", Type: types.Int4}}
	for _, c := range r.plan.Cols {
		t := c.T
		if t.OID == types.OidUnknown {
			t = types.Text
		}
		cols = append(cols, wire.Column{Name: c.Name, Type: t})
	}
	res := &subscription{r: r, sink: &subscribeSink{cols: cols, held: map[arrow.RecordBatch]map[string]*heldRow{}, fs: s.FormatSettings()}}
	if ss.CopyOut {
		n, err := io.CopyOut(ctx, wire.CopyOptions{Format: "text"}, res)
		if err != nil {
			return nil, err
		}
		return commandResult("COPY " + strconv.FormatInt(n, 10)), nil
	}
	return res, nil
}

// subscription is a never-ending result: Next waits for the table's next
// epoch and returns the rows that changed, as its sink computes them.
type subscription struct {
	r       *runner
	sink    *subscribeSink
	seq     uint64 // the job's publication count the client has seen
	started bool
}

// subscribeSink is SUBSCRIBE's connector.Sink. The changes it is given
// for an epoch are the table's whole contents after it (until the
// operators emit a changelog); Committed diffs them against what the
// client holds, and the next change to send is that diff. The subscriber's
// goroutine feeds it at each publication it sees, so the epochs of a
// client too slow to see each are folded into one change, and tx is not
// used: what it sends is the table's committed contents, already durable.
type subscribeSink struct {
	cols []wire.Column
	// held is what the client holds: for each batch of the last snapshot,
	// its distinct rows by text. An update-mode table republishes the
	// batches of unchanged segments as they were, so only batches that
	// are new or gone need to be read and compared.
	held   map[arrow.RecordBatch]map[string]*heldRow
	staged []arrow.RecordBatch
	epoch  int64             // the epoch of the last change computed
	change arrow.RecordBatch // the change ready for the client (nil: none)
	fs     types.FormatSettings
}

var _ connector.Sink = (*subscribeSink)(nil)

// Write stages the table's contents after epoch.
func (s *subscribeSink) Write(_ *state.Txn, epoch int64, contents []arrow.RecordBatch) error {
	s.staged = contents
	return nil
}

// Committed computes the change from what the client holds to the staged
// contents.
func (s *subscribeSink) Committed(epoch int64) error {
	s.epoch = epoch
	s.change = s.diff(s.staged)
	s.staged = nil
	return nil
}

// LastCommitted is the epoch of the last change computed.
func (s *subscribeSink) LastCommitted() (int64, error) { return s.epoch, nil }

// take returns the change ready for the client, if any.
func (s *subscribeSink) take() arrow.RecordBatch {
	b := s.change
	s.change = nil
	return b
}

// heldRow is one distinct row the client holds, and how many copies.
type heldRow struct {
	vals  []expr.Datum
	count int
}

var _ wire.StreamingResult = (*subscription)(nil)

func (s *subscription) Columns() []wire.Column { return s.sink.cols }
func (s *subscription) Tag() string            { return "SUBSCRIBE" }
func (s *subscription) Close()                 {}
func (s *subscription) Streaming() bool        { return true }

// Next returns the next change: it waits for the table's next publication
// and diffs the new contents against what the client holds.
func (s *subscription) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		seq, epoch, next := s.r.job.Publication() // taken before reading, so no publication is missed
		if !s.started || seq != s.seq {
			s.started, s.seq = true, seq
			if rows, err := s.r.eng.streamingTableRows(context.Background(), s.r.oid); err == nil {
				s.sink.Write(nil, epoch, rows)
				s.sink.Committed(epoch)
				if b := s.sink.take(); b != nil {
					return b, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil, sqlerr.New(sqlerr.QueryCanceled, "canceling statement due to user request")
		case <-next:
		case <-time.After(time.Second):
			// A job replaced by REFRESH publishes on its new channel.
		}
	}
}

// diff compares the table's contents with what the client holds and
// returns deletions then insertions.
func (s *subscribeSink) diff(rows []arrow.RecordBatch) arrow.RecordBatch {
	cur := make(map[arrow.RecordBatch]map[string]*heldRow, len(rows))
	added, removed := map[string]*heldRow{}, map[string]*heldRow{}
	for _, b := range rows {
		if m, ok := s.held[b]; ok {
			cur[b] = m
			continue
		}
		m := s.rowsOf(b)
		cur[b] = m
		mergeHeld(added, m)
	}
	for b, m := range s.held {
		if _, ok := cur[b]; !ok {
			mergeHeld(removed, m)
		}
	}
	bs := make([]array.Builder, len(s.cols))
	for i, c := range s.cols {
		bs[i] = expr.NewBuilder(nil, c.Type)
		defer bs[i].Release()
	}
	n := 0
	emit := func(h *heldRow, diff int64, times int) {
		for t := 0; t < times; t++ {
			expr.AppendDatum(bs[0], s.epoch)
			expr.AppendDatum(bs[1], diff)
			for c, v := range h.vals {
				expr.AppendDatum(bs[c+2], v)
			}
			n++
		}
	}
	for k, had := range removed {
		have := 0
		if h := added[k]; h != nil {
			have = h.count
		}
		if have < had.count {
			emit(had, -1, had.count-have)
		}
	}
	for k, h := range added {
		had := 0
		if old := removed[k]; old != nil {
			had = old.count
		}
		if h.count > had {
			emit(h, 1, h.count-had)
		}
	}
	s.held = cur
	if n == 0 {
		return nil
	}
	arrs := make([]arrow.Array, len(bs))
	fields := make([]arrow.Field, len(bs))
	for i, b := range bs {
		arrs[i] = b.NewArray()
		fields[i] = arrow.Field{Name: s.cols[i].Name, Type: s.cols[i].Type.Arrow(), Nullable: true}
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(n))
}

// rowsOf returns the distinct rows of a batch by their text, with counts.
func (s *subscribeSink) rowsOf(b arrow.RecordBatch) map[string]*heldRow {
	m := map[string]*heldRow{}
	var buf []byte
	for i := 0; i < int(b.NumRows()); i++ {
		buf = buf[:0]
		for c := 0; c < int(b.NumCols()); c++ {
			if b.Column(c).IsNull(i) {
				buf = append(buf, 0xff)
			} else {
				buf = types.AppendText(buf, s.cols[c+2].Type, b.Column(c), i, &s.fs)
			}
			buf = append(buf, 0)
		}
		h := m[string(buf)]
		if h == nil {
			vals := make([]expr.Datum, b.NumCols())
			for c := range vals {
				vals[c] = expr.DatumAt(b.Column(c), i)
			}
			h = &heldRow{vals: vals}
			m[string(buf)] = h
		}
		h.count++
	}
	return m
}

// mergeHeld adds the rows of m into into, summing counts.
func mergeHeld(into, m map[string]*heldRow) {
	for k, h := range m {
		if got := into[k]; got != nil {
			into[k] = &heldRow{vals: got.vals, count: got.count + h.count}
		} else {
			into[k] = h
		}
	}
}
