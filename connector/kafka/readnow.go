package kafka

import (
	"context"
	"regexp"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weir-sql/weir/connector/files"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// ReadNow is a batch query's read of a Kafka source: every record the
// topics hold now (from the start, or from startingTimestamp), up to each
// partition's end (its last stable offset under read_committed), as
// Databricks' batch read_kafka reads from earliest to latest. maxRows
// bounds it (0: no bound): more is 54000-like program_limit_exceeded.
func ReadNow(ctx context.Context, o Options, s files.Schema, batchRows int, maxRows int64) ([]arrow.RecordBatch, error) {
	if batchRows <= 0 {
		batchRows = 8192
	}
	cl, err := kgo.NewClient(clientOpts(o)...)
	if err != nil {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid Kafka client settings: %v", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var match *regexp.Regexp
	if o.Pattern != "" {
		match = regexp.MustCompile(o.Pattern)
	}
	found, missing, err := partitionsOf(lctx, adm, o, match)
	if err != nil {
		return nil, brokerError(o.Brokers, err)
	}
	if missing != "" {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "Kafka topic \"%s\" does not exist", missing)
	}
	var topics []string
	seen := map[string]bool{}
	for tp := range found {
		if !seen[tp.Topic] {
			seen[tp.Topic] = true
			topics = append(topics, tp.Topic)
		}
	}
	if len(topics) == 0 {
		return nil, nil
	}
	var starts, ends kadm.ListedOffsets
	if o.Starting == "timestamp" {
		starts, err = adm.ListOffsetsAfterMilli(lctx, o.StartingMillis, topics...)
	} else {
		starts, err = adm.ListStartOffsets(lctx, topics...)
	}
	if err == nil {
		if o.ReadCommitted {
			ends, err = adm.ListCommittedOffsets(lctx, topics...)
		} else {
			ends, err = adm.ListEndOffsets(lctx, topics...)
		}
	}
	if err != nil {
		return nil, brokerError(o.Brokers, err)
	}
	lo, hi := map[topicPart]int64{}, map[topicPart]int64{}
	var total int64
	for tp := range found {
		st, ok1 := starts.Lookup(tp.Topic, tp.Part)
		en, ok2 := ends.Lookup(tp.Topic, tp.Part)
		if !ok1 || !ok2 || st.Err != nil || en.Err != nil || st.Offset < 0 || en.Offset <= st.Offset {
			continue
		}
		lo[tp], hi[tp] = st.Offset, en.Offset
		total += en.Offset - st.Offset
	}
	if maxRows > 0 && total > maxRows {
		return nil, sqlerr.New("54000", "the Kafka source holds about %d records, more than a batch query reads (%d)", total, maxRows).
			WithHint("Read it incrementally with a streaming table (FROM STREAM ...).")
	}
	if len(lo) == 0 {
		return nil, nil
	}
	got, err := fetchUpTo(ctx, o, lo, hi)
	if err != nil {
		return nil, err
	}
	dec := newDecoder(o, s)
	var out []arrow.RecordBatch
	var cur []*kgo.Record
	for _, tp := range sortedParts(got) {
		for _, r := range got[tp] {
			cur = append(cur, r)
			if len(cur) == batchRows {
				b, _, err := dec.decode(cur)
				if err != nil {
					return nil, errDecode(err)
				}
				out = append(out, b)
				cur = nil
			}
		}
	}
	if len(cur) > 0 {
		b, _, err := dec.decode(cur)
		if err != nil {
			return nil, errDecode(err)
		}
		out = append(out, b)
	}
	return out, nil
}

// fetchUpTo fetches each partition's records from lo up to hi with a
// client of its own. Control records (transaction markers) are kept by
// the client and dropped here: seeing them tells that a partition whose
// last offsets before hi are markers is done. A broker that cannot be
// reached within rereadTimeout is 58030 (a streaming table pauses and
// retries).
func fetchUpTo(ctx context.Context, o Options, lo, hi map[topicPart]int64) (map[topicPart][]*kgo.Record, error) {
	parts := map[string]map[int32]kgo.Offset{}
	for tp, off := range lo {
		if parts[tp.Topic] == nil {
			parts[tp.Topic] = map[int32]kgo.Offset{}
		}
		parts[tp.Topic][tp.Part] = kgo.NewOffset().At(off)
	}
	opts := append(clientOpts(o), kgo.ConsumePartitions(parts), kgo.FetchMaxWait(100*time.Millisecond), kgo.KeepControlRecords())
	if o.ReadCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid Kafka client settings: %v", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, rereadTimeout)
	defer cancel()
	got := map[topicPart][]*kgo.Record{}
	done := map[topicPart]bool{}
	for len(done) < len(lo) {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil, sqlerr.New(sqlerr.IOError, "could not read Kafka at %v: %v", o.Brokers, ctx.Err())
		}
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			tp := topicPart{p.Topic, p.Partition}
			for _, r := range p.Records {
				if r.Offset < hi[tp] && !r.Attrs.IsControl() {
					got[tp] = append(got[tp], r)
				}
				if r.Offset >= hi[tp]-1 {
					done[tp] = true
				}
			}
		})
	}
	return got, nil
}
