package engine

import (
	"context"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/exec"
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
	if err := s.checkSubscribe(ss); err != nil { // privilege_checks_stmt.go
		return nil, err
	}
	if rel, err := s.eng.cat.LookupRelation(s.searchPath(), ss.Schema, ss.Name); err == nil && rel.Kind == catalog.KindStreamingTable && rel.Streaming.NoQuery {
		return s.subscribeTarget(ctx, rel, ss, io) // flows_subscribe.go: a target of flows follows its log
	}
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
	if res.rls, err = s.subscribeSecurity(r.oid); err != nil { // row_security_subscribe.go
		return nil, err
	}
	if rel, ok := s.eng.cat.RelationByOID(r.oid); ok {
		if res.mask, err = s.subscribeMask(rel); err != nil { // column_masks.go
			return nil, err
		}
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

// subscription is a never-ending result: Next waits for the table's next
// epoch and returns the rows that changed, as its sink computes them.
type subscription struct {
	r       *runner
	sink    *subscribeSink
	seq     uint64 // the job's publication count the client has seen
	started bool
	// job is the job whose publications the client follows (nil until the
	// first read): the changes of its later epochs apply to what the
	// client holds; another job's (REFRESH replaced the table) do not.
	// unfollow tells it the client no longer follows (exec.StreamJob.Follow).
	job      *exec.StreamJob
	unfollow func()
	// rls is what row-level security lets the subscriber see (nil: all);
	// err is a failure applying it, which ends the subscription.
	rls *subscribeSecurity
	err error
	// mask applies the table's column masks to the rows sent (nil: none
	// is masked; column_masks.go).
	mask func(arrow.RecordBatch) (arrow.RecordBatch, error)
}

// subscribeSink is SUBSCRIBE's connector.Sink. It is fed in two ways.
// Mostly by the table's changelog: WriteChanges gets the root's changes of
// the epochs published since the client's last one (exec.StreamJob's
// ChangesSince), folds them (a row inserted and deleted again in between
// is not sent) and makes them the next change to send. When the job no
// longer holds those epochs' changes (the client fell too far behind, or
// the job was reset or restored, or this is the first read), the table's
// whole contents are given to Write instead, and Committed diffs them
// against what the client holds. The subscriber's goroutine feeds it at
// each publication it sees, and tx is not used: what it sends is the
// table's committed contents, already durable.
type subscribeSink struct {
	cols []wire.Column
	// held is what the client holds, as of the last diff: for each batch
	// of that snapshot, its distinct rows by text. An update-mode table
	// republishes the batches of unchanged segments as they were, so only
	// batches that are new or gone need to be read and compared. extra is
	// what changes applied since then added (count > 0) or removed
	// (count < 0), by text.
	held   map[arrow.RecordBatch]map[string]*heldRow
	extra  map[string]*heldRow
	staged []arrow.RecordBatch
	epoch  int64             // the epoch of the last change computed
	change arrow.RecordBatch // the change ready for the client (nil: none)
	// diffs counts the changes computed by diffing whole contents (the
	// others came from the changelog).
	diffs int
	fs    types.FormatSettings
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
	s.diffs++
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
func (s *subscription) Close() {
	if s.unfollow != nil {
		s.unfollow()
		s.unfollow = nil
	}
}
func (s *subscription) Streaming() bool { return true }

// Next returns the next change: it waits for the table's next publication
// and sends the changes of the epochs published since the client's last
// one, or, when the job no longer holds them, the diff of the table's
// contents against what the client holds.
func (s *subscription) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		r := s.r.eng.runnerFor(s.r.oid) // REFRESH may have replaced the runner
		if r == nil || r.job == nil {
			r = s.r
		}
		seq, epoch, next := r.job.Publication() // taken before reading, so no publication is missed
		if !s.started || seq != s.seq || r.job != s.job {
			s.started, s.seq = true, seq
			if b := s.catchUp(ctx, r, epoch); b != nil {
				if s.mask != nil {
					return s.mask(b)
				}
				return b, nil
			}
			if s.err != nil {
				return nil, s.err
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

// catchUp brings the client to the table as published at epoch (or
// later) and returns the change to send (nil: none).
func (s *subscription) catchUp(ctx context.Context, r *runner, epoch int64) arrow.RecordBatch {
	if s.job == r.job {
		if changes, ok := r.job.ChangesSince(s.sink.epoch, epoch); ok {
			if changes, s.err = s.rls.changes(ctx, changes); s.err != nil {
				return nil
			}
			s.sink.WriteChanges(epoch, changes)
			return s.sink.take()
		}
	}
	if err := r.eng.waitStreamingTable(ctx, r); err != nil {
		return nil
	}
	if s.unfollow == nil || s.job != r.job {
		// Follow before reading: the epochs after the read keep their
		// changes.
		s.Close()
		s.unfollow = r.job.Follow()
	}
	err := r.job.ReadPublished(func(at int64) error {
		rows, err := r.eng.publishedRows(r)
		if err != nil {
			return err
		}
		if rows, err = s.rls.contents(ctx, rows); err != nil {
			s.err = err
			return err
		}
		s.sink.Write(nil, at, rows)
		return s.sink.Committed(at)
	})
	if err != nil {
		return nil
	}
	s.job = r.job
	return s.sink.take()
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
	// The client also holds what changes added since the last diff, and
	// lacks what they removed.
	for k, h := range s.extra {
		switch {
		case h.count > 0:
			mergeHeld(removed, map[string]*heldRow{k: h})
		case h.count < 0:
			mergeHeld(added, map[string]*heldRow{k: {vals: h.vals, count: -h.count}})
		}
	}
	s.extra = nil
	out := newChangeOut(s.cols, s.epoch)
	emit := out.add
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
	return out.finish()
}

// WriteChanges folds the changes of the epochs up to epoch (the table's
// changelog since the client's last epoch) into the next change to send:
// per distinct row, its deletions and insertions net out, and the rest is
// sent as deletions, then insertions, each with the epoch.
func (s *subscribeSink) WriteChanges(epoch int64, changes []exec.ChangeBatch) {
	net := map[string]*heldRow{}
	var order []string // first-seen order, so the output does not depend on map order
	var buf []byte
	for _, c := range changes {
		b := c.Rows
		for i := 0; i < int(b.NumRows()); i++ {
			buf = s.appendRowText(buf[:0], b, i)
			h := net[string(buf)]
			if h == nil {
				h = &heldRow{vals: rowValues(b, i)}
				net[string(buf)] = h
				order = append(order, string(buf))
			}
			if c.Diff != nil && c.Diff[i] == exec.ChangeDelete {
				h.count--
			} else {
				h.count++
			}
		}
	}
	s.epoch = epoch
	out := newChangeOut(s.cols, epoch)
	for _, k := range order {
		if h := net[k]; h.count < 0 {
			out.add(h, -1, -h.count)
		}
	}
	for _, k := range order {
		if h := net[k]; h.count > 0 {
			out.add(h, 1, h.count)
		}
	}
	if s.extra == nil {
		s.extra = map[string]*heldRow{}
	}
	for _, k := range order {
		h := net[k]
		if h.count == 0 {
			continue
		}
		if e := s.extra[k]; e != nil {
			e.count += h.count
			if e.count == 0 {
				delete(s.extra, k)
			}
		} else {
			s.extra[k] = h
		}
	}
	s.change = out.finish()
}

// changeOut builds a change batch for the client: weir_epoch, weir_diff,
// then the table's columns.
type changeOut struct {
	cols  []wire.Column
	epoch int64
	bs    []array.Builder
	n     int
}

func newChangeOut(cols []wire.Column, epoch int64) *changeOut {
	o := &changeOut{cols: cols, epoch: epoch, bs: make([]array.Builder, len(cols))}
	for i, c := range cols {
		o.bs[i] = expr.NewBuilder(nil, c.Type)
	}
	return o
}

// add appends times copies of row h with diff.
func (o *changeOut) add(h *heldRow, diff int64, times int) {
	for t := 0; t < times; t++ {
		expr.AppendDatum(o.bs[0], o.epoch)
		expr.AppendDatum(o.bs[1], diff)
		for c, v := range h.vals {
			expr.AppendDatum(o.bs[c+2], v)
		}
		o.n++
	}
}

// finish returns the batch (nil when empty) and releases the builders.
func (o *changeOut) finish() arrow.RecordBatch {
	defer func() {
		for _, b := range o.bs {
			b.Release()
		}
	}()
	if o.n == 0 {
		return nil
	}
	arrs := make([]arrow.Array, len(o.bs))
	fields := make([]arrow.Field, len(o.bs))
	for i, b := range o.bs {
		arrs[i] = b.NewArray()
		fields[i] = arrow.Field{Name: o.cols[i].Name, Type: o.cols[i].Type.Arrow(), Nullable: true}
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(o.n))
}

// appendRowText appends row i of b as text, the identity of a row the
// client holds.
func (s *subscribeSink) appendRowText(buf []byte, b arrow.RecordBatch, i int) []byte {
	for c := 0; c < int(b.NumCols()); c++ {
		if b.Column(c).IsNull(i) {
			buf = append(buf, 0xff)
		} else {
			buf = types.AppendText(buf, s.cols[c+2].Type, b.Column(c), i, &s.fs)
		}
		buf = append(buf, 0)
	}
	return buf
}

func rowValues(b arrow.RecordBatch, i int) []expr.Datum {
	vals := make([]expr.Datum, b.NumCols())
	for c := range vals {
		vals[c] = expr.DatumAt(b.Column(c), i)
	}
	return vals
}

// rowsOf returns the distinct rows of a batch by their text, with counts.
func (s *subscribeSink) rowsOf(b arrow.RecordBatch) map[string]*heldRow {
	m := map[string]*heldRow{}
	var buf []byte
	for i := 0; i < int(b.NumRows()); i++ {
		buf = s.appendRowText(buf[:0], b, i)
		h := m[string(buf)]
		if h == nil {
			h = &heldRow{vals: rowValues(b, i)}
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
