package kafka

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// fetchLoop consumes the assigned partitions into the buffer, pausing
// while it is over Tuning.Buffer records (Read resumes it).
func (s *Source) fetchLoop(ctx context.Context) {
	defer s.wg.Done()
	for ctx.Err() == nil {
		fs := s.cl.PollRecords(ctx, s.tune.BatchRows)
		if ctx.Err() != nil || fs.IsClientClosed() {
			return
		}
		fs.EachError(func(t string, p int32, err error) {
			if errors.Is(err, context.Canceled) {
				return
			}
			s.mu.Lock()
			key := fmt.Sprintf("fetch %s/%d %v", t, p, err)
			if !s.noticed[key] {
				s.noticed[key] = true
				s.noticeLocked("broker", fmt.Sprintf("fetching %s/%d: %v", t, p, err))
			}
			s.mu.Unlock()
		})
		now := time.Now()
		s.mu.Lock()
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			tp := topicPart{p.Topic, p.Partition}
			if _, ok := s.pos[tp]; !ok {
				return
			}
			if s.o.ReadCommitted {
				s.ends[tp] = p.LastStableOffset
			} else {
				s.ends[tp] = p.HighWatermark
			}
			for _, r := range p.Records {
				if r.Offset < s.bufEnd[tp] {
					continue // fetched again: buffered or logged already
				}
				if r.Attrs.IsControl() {
					s.bufEnd[tp] = r.Offset + 1
					continue
				}
				s.buf[tp] = append(s.buf[tp], r)
				s.bufEnd[tp] = r.Offset + 1
				s.buffered++
				s.lastRecord[tp] = now
			}
		})
		// Each partition pauses on its own once it holds its share of
		// the buffer: a partition behind the others must still be
		// fetched, or the aligned take (takeLocked) would wait for it
		// forever.
		share := s.shareLocked()
		var pause map[string][]int32
		for tp, rs := range s.buf {
			if len(rs) >= share && !s.paused[tp] {
				if pause == nil {
					pause = map[string][]int32{}
				}
				s.paused[tp] = true
				pause[tp.Topic] = append(pause[tp.Topic], tp.Part)
			}
		}
		if pause != nil {
			s.cl.PauseFetchPartitions(pause)
		}
		s.mu.Unlock()
	}
}

// shareLocked is the records one partition may hold in the buffer.
func (s *Source) shareLocked() int {
	return max(s.tune.Buffer/max(len(s.pos), 1), 1024)
}

// resumeLocked lets a paused partition's fetching go on once Read
// drained it to half its share.
func (s *Source) resumeLocked() {
	share := s.shareLocked()
	var resume map[string][]int32
	for tp := range s.paused {
		if len(s.buf[tp]) < share/2 {
			if resume == nil {
				resume = map[string][]int32{}
			}
			delete(s.paused, tp)
			resume[tp.Topic] = append(resume[tp.Topic], tp.Part)
		}
	}
	if resume != nil {
		s.cl.ResumeFetchPartitions(resume)
	}
}

// discoverLoop lists the topics now and every Tuning.Discover, assigning
// the partitions that appeared.
func (s *Source) discoverLoop(ctx context.Context) {
	defer s.wg.Done()
	for {
		s.discover(ctx)
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
		case <-time.After(s.tune.Discover):
		}
	}
}

// Rediscover lists the topics at once (tests; CREATE OR REFRESH).
func (s *Source) Rediscover() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func (s *Source) discover(ctx context.Context) {
	// A broker that does not answer within 5 s is reported (and tried
	// again at the next discovery).
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	found, missing, err := partitionsOf(ctx, s.adm, s.o, s.match)
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return
	}
	if err != nil {
		s.setTrouble("broker", sqlerr.From(brokerError(s.o.Brokers, err)).Message+"; retrying")
		return
	}
	if missing != "" {
		s.setTrouble("topic", fmt.Sprintf("Kafka topic \"%s\" does not exist; looking again every %s", missing, s.tune.Discover))
	} else {
		s.setTrouble("broker", "")
	}
	s.mu.Lock()
	var fresh []topicPart
	for tp := range found {
		if _, ok := s.pos[tp]; !ok {
			fresh = append(fresh, tp)
		}
	}
	first := !s.hadStarts
	s.mu.Unlock()
	s.refreshEnds(ctx)
	if len(fresh) == 0 {
		return
	}
	mode := "earliest" // a partition appearing later is read whole
	if first {
		mode = s.o.Starting
	}
	starts, err := s.startOffsets(ctx, mode, fresh)
	if err != nil {
		s.setTrouble("broker", sqlerr.From(brokerError(s.o.Brokers, err)).Message+"; retrying")
		return
	}
	if err := s.assign(starts, !first); err != nil {
		s.setTrouble("broker", sqlerr.From(err).Message)
	}
	s.refreshEnds(ctx)
}

// partitionsOf lists the partitions o reads now; missing is a topic it
// names that does not exist ("" when none).
func partitionsOf(ctx context.Context, adm *kadm.Client, o Options, match *regexp.Regexp) (map[topicPart]bool, string, error) {
	var td kadm.TopicDetails
	var err error
	want := o.Topics
	if o.Assign != nil {
		want = nil
		for t := range o.Assign {
			want = append(want, t)
		}
	}
	if match != nil {
		td, err = adm.ListTopics(ctx)
	} else {
		td, err = adm.ListTopics(ctx, want...)
	}
	if err != nil {
		return nil, "", err
	}
	found := map[topicPart]bool{}
	var missing string
	for _, t := range want {
		d, ok := td[t]
		if !ok || d.Err != nil {
			if missing == "" {
				missing = t
			}
			continue
		}
		for p := range d.Partitions {
			if o.Assign != nil && !containsPart(o.Assign[t], p) {
				continue
			}
			found[topicPart{t, p}] = true
		}
	}
	if match != nil {
		for t, d := range td {
			if d.IsInternal || d.Err != nil || !match.MatchString(t) {
				continue
			}
			for p := range d.Partitions {
				found[topicPart{t, p}] = true
			}
		}
	}
	return found, missing, nil
}

// refreshEnds looks up the assigned partitions' ends: a partition the
// fetcher has no answer for yet (no record) has its end known too, so
// that its lag shows and takeLocked knows whether to wait for it.
func (s *Source) refreshEnds(ctx context.Context) {
	s.mu.Lock()
	var topics []string
	seen := map[string]bool{}
	for tp := range s.pos {
		if !seen[tp.Topic] {
			seen[tp.Topic] = true
			topics = append(topics, tp.Topic)
		}
	}
	s.mu.Unlock()
	if len(topics) == 0 {
		return
	}
	var lo kadm.ListedOffsets
	var err error
	if s.o.ReadCommitted {
		lo, err = s.adm.ListCommittedOffsets(ctx, topics...)
	} else {
		lo, err = s.adm.ListEndOffsets(ctx, topics...)
	}
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	lo.Each(func(l kadm.ListedOffset) {
		tp := topicPart{l.Topic, l.Partition}
		if _, ok := s.pos[tp]; !ok || l.Err != nil || l.Offset < 0 {
			return
		}
		if e, ok := s.ends[tp]; !ok || l.Offset > e {
			s.ends[tp] = l.Offset
		}
	})
}

func containsPart(ps []int32, p int32) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// startOffsets resolves where fresh partitions start.
func (s *Source) startOffsets(ctx context.Context, mode string, fresh []topicPart) (map[topicPart]int64, error) {
	topics := map[string]bool{}
	for _, tp := range fresh {
		topics[tp.Topic] = true
	}
	var ts []string
	for t := range topics {
		ts = append(ts, t)
	}
	var lo kadm.ListedOffsets
	var err error
	switch mode {
	case "earliest":
		lo, err = s.adm.ListStartOffsets(ctx, ts...)
	case "timestamp":
		lo, err = s.adm.ListOffsetsAfterMilli(ctx, s.o.StartingMillis, ts...)
	default:
		if s.o.ReadCommitted {
			lo, err = s.adm.ListCommittedOffsets(ctx, ts...)
		} else {
			lo, err = s.adm.ListEndOffsets(ctx, ts...)
		}
	}
	if err != nil {
		return nil, err
	}
	out := map[topicPart]int64{}
	for _, tp := range fresh {
		l, ok := lo.Lookup(tp.Topic, tp.Part)
		if !ok {
			continue // not known yet: the next discovery tries again
		}
		if l.Err != nil {
			if errors.Is(l.Err, kerr.UnknownTopicOrPartition) || errors.Is(l.Err, kerr.NotLeaderForPartition) || errors.Is(l.Err, kerr.LeaderNotAvailable) {
				continue
			}
			return nil, l.Err
		}
		off := l.Offset
		if off < 0 {
			// No record at or after the timestamp: start at the end.
			end, err := s.adm.ListEndOffsets(ctx, tp.Topic)
			if err != nil {
				return nil, err
			}
			e, _ := end.Lookup(tp.Topic, tp.Part)
			off = max(e.Offset, 0)
		}
		out[tp] = off
	}
	return out, nil
}

// assign records fresh partitions' starts durably, then consumes them.
func (s *Source) assign(starts map[topicPart]int64, later bool) error {
	if len(starts) == 0 {
		return nil
	}
	txn := s.st.Begin(true)
	defer txn.Discard()
	for tp, off := range starts {
		if err := txn.Set(startKey(s.logKey, tp), appendVarint(nil, off)); err != nil {
			return err
		}
	}
	if err := txn.Commit(); err != nil {
		return err
	}
	assign := map[string]map[int32]kgo.Offset{}
	s.mu.Lock()
	s.hadStarts = true
	for _, tp := range sortedParts(starts) {
		off := starts[tp]
		s.pos[tp] = off
		s.bufEnd[tp] = off
		if assign[tp.Topic] == nil {
			assign[tp.Topic] = map[int32]kgo.Offset{}
		}
		assign[tp.Topic][tp.Part] = kgo.NewOffset().At(off)
		if later {
			s.noticeLocked("partition", fmt.Sprintf("reading new partition %s/%d from offset %d", tp.Topic, tp.Part, off))
		}
	}
	s.mu.Unlock()
	s.cl.AddConsumePartitions(assign)
	return nil
}
