package kafka

import (
	"context"
	"encoding/binary"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/sql/sqlerr"
)

func appendVarint(b []byte, v int64) []byte { return binary.AppendVarint(b, v) }

// cachedBatches is how many decoded batches Read keeps for a re-read (a
// prefetching reader's, an epoch's retry) without fetching again.
const cachedBatches = 16

// Read implements connector.Source.
func (s *Source) Read(ctx context.Context, from int64, max int) (connector.Read, error) {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	s.mu.Lock()
	end := int64(len(s.batches))
	if from > end {
		from = end
	}
	if from < 0 {
		from = 0
	}
	if from < end {
		n := end - from
		if max > 0 && n > int64(max) {
			n = int64(max)
		}
		entries := append([]batchEntry(nil), s.batches[from:from+n]...)
		var after int64
		for _, b := range s.batches[from+n:] {
			after += b.Rows
		}
		backlog := after + s.backlogLocked()
		s.mu.Unlock()
		out, err := s.reread(ctx, from, entries)
		if err != nil {
			return connector.Read{}, err
		}
		return connector.Read{Batches: out, From: from, Next: from + n, Backlog: backlog}, nil
	}
	entries, recs := s.takeLocked(max)
	s.mu.Unlock()
	if len(entries) == 0 {
		s.mu.Lock()
		rd := connector.Read{From: from, Next: from, Backlog: s.backlogLocked()}
		rd.Watermark, rd.HasWatermark = s.watermarkLocked()
		s.mu.Unlock()
		return rd, nil
	}
	// Log the batches before returning any of them.
	txn := s.st.Begin(true)
	for i, e := range entries {
		if err := txn.Set(batchKey(s.logKey, from+int64(i)), encodeBatch(e)); err != nil {
			txn.Discard()
			s.putBack(recs)
			return connector.Read{}, err
		}
	}
	if err := txn.Commit(); err != nil {
		s.putBack(recs)
		return connector.Read{}, err
	}
	s.mu.Lock()
	s.batches = append(s.batches, entries...)
	for _, e := range entries {
		for _, sp := range e.Spans {
			s.pos[sp.topicPart] = sp.To
		}
	}
	for _, rs := range recs {
		for _, r := range rs {
			tp := topicPart{r.Topic, r.Partition}
			if us := r.Timestamp.UnixMicro(); us > s.maxTS[tp] {
				s.maxTS[tp] = us
			}
		}
	}
	rd := connector.Read{From: from, Next: from + int64(len(entries)), Backlog: s.backlogLocked()}
	rd.Watermark, rd.HasWatermark = s.watermarkLocked()
	s.mu.Unlock()
	for i, rs := range recs {
		b, _, err := s.dec.decode(rs)
		if err != nil {
			return connector.Read{}, errDecode(err)
		}
		s.remember(from+int64(i), b)
		rd.Batches = append(rd.Batches, b)
	}
	return rd, nil
}

// takeLocked takes buffered records for at most max batches (max <= 0:
// any number), MaxOffsetsPerTrigger records in all, and leaves the buffer
// without them (putBack restores them when logging fails).
//
// Partitions are read aligned on their records' timestamps: a Read takes
// records in timestamp order, and only up to the frontier — the smallest,
// over the partitions that still have records to give, of the newest
// timestamp buffered — so that a partition whose records are fetched
// late does not find the table's watermark already past them (its rows
// would be late). A partition gives nothing to wait for when it is caught
// up (nothing buffered, its end reached) or idle (no record for
// IdleTimeout while it has a backlog: a stuck partition does not stall
// the others).
func (s *Source) takeLocked(max int) ([]batchEntry, [][]*kgo.Record) {
	limit := int64(s.buffered)
	if s.o.MaxOffsetsPerTrigger > 0 && limit > s.o.MaxOffsetsPerTrigger {
		limit = s.o.MaxOffsetsPerTrigger
	}
	if max > 0 && limit > int64(max)*int64(s.tune.BatchRows) {
		limit = int64(max) * int64(s.tune.BatchRows)
	}
	if limit == 0 {
		return nil, nil
	}
	now := time.Now()
	frontier := int64(math.MaxInt64)
	for tp := range s.pos {
		rs := s.buf[tp]
		if len(rs) > 0 {
			frontier = min(frontier, rs[len(rs)-1].Timestamp.UnixMicro())
			continue
		}
		end, known := s.ends[tp]
		behind := !known || end > s.bufEnd[tp]
		idle := s.o.IdleTimeout > 0 && now.Sub(s.lastRecordOrStart(tp, now)) > s.o.IdleTimeout
		if behind && !idle {
			return nil, nil // its records are on the way: wait for them
		}
	}
	// Merge the partitions by timestamp up to the frontier and the limit.
	parts := sortedParts(s.buf)
	take := make([]int, len(parts))
	taken := int64(0)
	for taken < limit {
		best := -1
		var bestTS int64
		for i, tp := range parts {
			rs := s.buf[tp]
			if take[i] >= len(rs) {
				continue
			}
			if ts := rs[take[i]].Timestamp.UnixMicro(); ts <= frontier && (best < 0 || ts < bestTS) {
				best, bestTS = i, ts
			}
		}
		if best < 0 {
			break
		}
		take[best]++
		taken++
	}
	var entries []batchEntry
	var recs [][]*kgo.Record
	var cur batchEntry
	var curRecs []*kgo.Record
	flush := func() {
		if len(curRecs) > 0 {
			entries = append(entries, cur)
			recs = append(recs, curRecs)
		}
		cur, curRecs = batchEntry{}, nil
	}
	for i, tp := range parts {
		rs := s.buf[tp][:take[i]]
		for len(rs) > 0 {
			n := min(len(rs), s.tune.BatchRows-len(curRecs))
			part := rs[:n]
			cur.Spans = append(cur.Spans, span{topicPart: tp, From: part[0].Offset, To: part[n-1].Offset + 1, Rows: int64(n)})
			cur.Rows += int64(n)
			curRecs = append(curRecs, part...)
			rs = rs[n:]
			if len(curRecs) == s.tune.BatchRows {
				flush()
			}
		}
		if rest := s.buf[tp][take[i]:]; len(rest) == 0 {
			delete(s.buf, tp)
		} else {
			s.buf[tp] = rest
		}
	}
	flush()
	s.buffered -= int(taken)
	s.resumeLocked()
	return entries, recs
}

// lastRecordOrStart is when tp last gave a record (now when it never
// did: a partition is not idle before it had a chance).
func (s *Source) lastRecordOrStart(tp topicPart, now time.Time) time.Time {
	if t, ok := s.lastRecord[tp]; ok {
		return t
	}
	if _, ok := s.assignedAt[tp]; !ok {
		s.assignedAt[tp] = now
	}
	return s.assignedAt[tp]
}

func (s *Source) putBack(recs [][]*kgo.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.putBackLocked(recs)
	for _, rs := range recs {
		s.buffered += len(rs)
	}
}

// putBackLocked returns records to the front of their partitions' buffers.
func (s *Source) putBackLocked(recs [][]*kgo.Record) {
	byTP := map[topicPart][]*kgo.Record{}
	var order []topicPart
	for _, rs := range recs {
		for _, r := range rs {
			tp := topicPart{r.Topic, r.Partition}
			if _, ok := byTP[tp]; !ok {
				order = append(order, tp)
			}
			byTP[tp] = append(byTP[tp], r)
		}
	}
	for _, tp := range order {
		s.buf[tp] = append(byTP[tp], s.buf[tp]...)
	}
}

func (s *Source) remember(seq int64, b arrow.RecordBatch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.cache[seq]; ok {
		return
	}
	s.cache[seq] = b
	s.cacheOrder = append(s.cacheOrder, seq)
	for len(s.cacheOrder) > cachedBatches {
		delete(s.cache, s.cacheOrder[0]) // not released: a reader may hold it
		s.cacheOrder = s.cacheOrder[1:]
	}
}

// rereadTimeout bounds fetching logged ranges again.
const rereadTimeout = 60 * time.Second

// reread returns logged batches from..from+len(entries)-1: from the cache,
// else fetched again from Kafka, exactly their logged ranges.
func (s *Source) reread(ctx context.Context, from int64, entries []batchEntry) ([]arrow.RecordBatch, error) {
	out := make([]arrow.RecordBatch, len(entries))
	var missing []int
	s.mu.Lock()
	for i := range entries {
		if b, ok := s.cache[from+int64(i)]; ok {
			out[i] = b
		} else {
			missing = append(missing, i)
		}
	}
	s.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	// The ranges to fetch, per partition: from the smallest From to the
	// largest To of the missing batches.
	lo, hi := map[topicPart]int64{}, map[topicPart]int64{}
	for _, i := range missing {
		for _, sp := range entries[i].Spans {
			if v, ok := lo[sp.topicPart]; !ok || sp.From < v {
				lo[sp.topicPart] = sp.From
			}
			if sp.To > hi[sp.topicPart] {
				hi[sp.topicPart] = sp.To
			}
		}
	}
	got, err := fetchUpTo(ctx, s.o, lo, hi)
	if err != nil {
		return nil, err
	}
	for _, i := range missing {
		var recs []*kgo.Record
		for _, sp := range entries[i].Spans {
			var n int64
			for _, r := range got[sp.topicPart] {
				if r.Offset >= sp.From && r.Offset < sp.To {
					recs = append(recs, r)
					n++
				}
			}
			if n != sp.Rows {
				return nil, sqlerr.New(sqlerr.DataCorrupted, "Kafka no longer holds the records of batch %d of this source: %s/%d offsets %d to %d hold %d records, %d were read",
					from+int64(i), sp.Topic, sp.Part, sp.From, sp.To-1, n, sp.Rows).
					WithHint("The topic's retention removed records a checkpoint still needs; reset the table (CREATE OR REFRESH ... FULL) to read from what Kafka holds.")
			}
		}
		b, _, err := s.dec.decode(recs)
		if err != nil {
			return nil, errDecode(err)
		}
		s.remember(from+int64(i), b)
		out[i] = b
	}
	return out, nil
}
