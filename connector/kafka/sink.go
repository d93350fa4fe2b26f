package kafka

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// Sink writes a streaming table's epochs to a Kafka topic, exactly once
// for read_committed consumers.
//
// Each epoch is one Kafka transaction of a transactional producer whose
// transactional.id is the sink's own (stable across restarts): the
// epoch's records, and one record in the progress topic (key: the
// transactional id, value: the epoch number). Write produces them and
// flushes (nothing is visible yet); Committed, called once weir's
// checkpoint of the epoch committed, commits the transaction. At open the
// sink reads the progress topic up to its last stable offset: the last
// epoch committed there is LastCommitted, so that recovery re-runs and
// writes exactly the epochs after it. A transaction left open by a
// crash is aborted by the broker when the restarted producer initializes
// (the same transactional id fences the old one), so its records are
// never seen by read_committed consumers.
//
// Records: the key is the key columns' values as a JSON object (null
// when the sink has no key); the value the row as a JSON object (the
// table's columns, as row_to_json prints them). An update-mode table's
// changes are upserts: per key, an epoch's last change wins, an insert
// giving the new row and a delete with no insert after it a tombstone
// (null value). Headers: weir.epoch, the epoch number.
type Sink struct {
	o        Options
	cfg      SinkConfig
	cl       *kgo.Client
	mu       sync.Mutex
	last     int64
	inTxn    bool
	txEpoch  int64
	keyBuf   []byte
	valueBuf []byte
}

// SinkConfig is what a Kafka sink writes and how.
type SinkConfig struct {
	Topic         string
	ProgressTopic string // default DefaultProgressTopic
	TransactionID string // stable per sink
	// Changes: the batches carry _change_type (the table is not
	// append-only): rows are upserts by key, deletes tombstones.
	Changes bool
	// ChangeTypeCol is the column of _change_type in the batches (when
	// Changes); DataCols the columns written in the value.
	ChangeTypeCol int
	DataCols      []int
	KeyCols       []int
	// JSON appends row i of the given columns as a JSON object.
	JSON func(buf []byte, cols []int, arrs []arrow.Array, i int) []byte
}

// DefaultProgressTopic is where Kafka sinks record their epochs.
const DefaultProgressTopic = "_weir_sink_progress"

var _ connector.Sink = (*Sink)(nil)

// OpenSink opens a Kafka sink: it connects, makes the progress topic if
// it is missing (one partition, compacted), and reads the last epoch it
// committed.
func OpenSink(ctx context.Context, o Options, cfg SinkConfig) (*Sink, error) {
	if cfg.ProgressTopic == "" {
		cfg.ProgressTopic = DefaultProgressTopic
	}
	opts := append(clientOpts(o),
		kgo.TransactionalID(cfg.TransactionID),
		kgo.TransactionTimeout(60*time.Second),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)),
		kgo.ProducerLinger(0),
		kgo.MaxBufferedRecords(1<<20),
	)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid Kafka client settings: %v", err)
	}
	s := &Sink{o: o, cfg: cfg, cl: cl}
	if s.last, err = s.readProgress(ctx); err != nil {
		cl.Close()
		return nil, err
	}
	return s, nil
}

// CheckSink is what CREATE SINK knows before it stores a sink: the
// brokers answer and the topic exists.
func CheckSink(ctx context.Context, o Options, topic string) error {
	o.Topics, o.Pattern, o.Assign = []string{topic}, "", nil
	return Check(ctx, o)
}

// Close ends the sink's client (an open transaction is aborted by the
// broker when its timeout passes, or fenced by the next producer).
func (s *Sink) Close() error {
	s.cl.Close()
	return nil
}

// readProgress is the last epoch the progress topic holds for this sink.
func (s *Sink) readProgress(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	adm := kadm.NewClient(s.cl)
	td, err := adm.ListTopics(ctx, s.cfg.ProgressTopic)
	if err != nil {
		return 0, brokerError(s.o.Brokers, err)
	}
	if d, ok := td[s.cfg.ProgressTopic]; !ok || d.Err != nil {
		resp, err := adm.CreateTopic(ctx, 1, -1, map[string]*string{"cleanup.policy": ptr("compact")}, s.cfg.ProgressTopic)
		if err == nil {
			err = resp.Err
		}
		if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
			return 0, sqlerr.New(CodeCannotConnect, "could not create the Kafka sinks' progress topic %s: %v", s.cfg.ProgressTopic, err)
		}
		return 0, nil
	}
	// A transaction of this sink that is committing must finish first:
	// its epoch is then committed (and read below), not re-run.
	for {
		dt, err := adm.DescribeTransactions(ctx, s.cfg.TransactionID)
		if err != nil {
			break // not supported, or no such id: nothing is committing
		}
		t, ok := dt[s.cfg.TransactionID]
		if !ok || t.Err != nil || (t.State != "PrepareCommit" && t.State != "PrepareAbort") {
			break
		}
		select {
		case <-ctx.Done():
			return 0, sqlerr.New(CodeCannotConnect, "the last transaction of Kafka sink %s does not finish", s.cfg.TransactionID)
		case <-time.After(100 * time.Millisecond):
		}
	}
	o := s.o
	o.ReadCommitted = true
	starts, err := adm.ListStartOffsets(ctx, s.cfg.ProgressTopic)
	if err != nil {
		return 0, brokerError(s.o.Brokers, err)
	}
	ends, err := adm.ListCommittedOffsets(ctx, s.cfg.ProgressTopic)
	if err != nil {
		return 0, brokerError(s.o.Brokers, err)
	}
	lo, hi := map[topicPart]int64{}, map[topicPart]int64{}
	starts.Each(func(l kadm.ListedOffset) {
		e, ok := ends.Lookup(l.Topic, l.Partition)
		if ok && l.Err == nil && e.Err == nil && e.Offset > l.Offset {
			lo[topicPart{l.Topic, l.Partition}], hi[topicPart{l.Topic, l.Partition}] = l.Offset, e.Offset
		}
	})
	if len(lo) == 0 {
		return 0, nil
	}
	got, err := fetchUpTo(ctx, o, lo, hi)
	if err != nil {
		return 0, err
	}
	var last int64
	for _, rs := range got {
		for _, r := range rs {
			if string(r.Key) != s.cfg.TransactionID {
				continue
			}
			if n, err := strconv.ParseInt(string(r.Value), 10, 64); err == nil {
				last = n // in offset order: the last one wins
			}
		}
	}
	return last, nil
}

func ptr[T any](v T) *T { return &v }

// LastCommitted is the last epoch committed to Kafka.
func (s *Sink) LastCommitted() (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, nil
}

// Write produces epoch's records in a new transaction and flushes them;
// nothing is visible to read_committed consumers until Committed.
func (s *Sink) Write(_ *state.Txn, epoch int64, changes []arrow.RecordBatch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if s.inTxn {
		// The epoch staged before was never committed (its checkpoint
		// did not commit): drop it, the epoch is written again now.
		s.abortLocked(ctx)
	}
	if err := s.cl.BeginTransaction(); err != nil {
		return s.kafkaErr("begin a transaction", err)
	}
	s.inTxn, s.txEpoch = true, epoch
	var firstErr error
	var errMu sync.Mutex
	done := func(_ *kgo.Record, err error) {
		if err != nil {
			errMu.Lock()
			if firstErr == nil {
				firstErr = err
			}
			errMu.Unlock()
		}
	}
	hdr := []kgo.RecordHeader{{Key: "weir.epoch", Value: []byte(strconv.FormatInt(epoch, 10))}}
	for _, r := range s.records(changes) {
		r.Topic, r.Headers = s.cfg.Topic, hdr
		s.cl.Produce(ctx, r, done)
	}
	s.cl.Produce(ctx, &kgo.Record{Topic: s.cfg.ProgressTopic, Key: []byte(s.cfg.TransactionID), Value: []byte(strconv.FormatInt(epoch, 10))}, done)
	if err := s.cl.Flush(ctx); err != nil {
		s.abortLocked(ctx)
		return s.kafkaErr("produce", err)
	}
	if firstErr != nil {
		s.abortLocked(ctx)
		return s.kafkaErr("produce", firstErr)
	}
	return nil
}

// Committed commits epoch's transaction.
func (s *Sink) Committed(epoch int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.inTxn || s.txEpoch != epoch {
		return sqlerr.New(sqlerr.InternalError, "kafka sink: epoch %d committed without being written", epoch)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s.inTxn = false
	if err := s.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		s.abortLocked(ctx)
		return s.kafkaErr("commit a transaction", err)
	}
	s.last = epoch
	return nil
}

func (s *Sink) abortLocked(ctx context.Context) {
	s.cl.AbortBufferedRecords(ctx)
	s.cl.EndTransaction(ctx, kgo.TryAbort)
	s.inTxn = false
}

func (s *Sink) kafkaErr(what string, err error) error {
	return sqlerr.New(CodeCannotConnect, "kafka sink to topic %s: could not %s: %v", s.cfg.Topic, what, err)
}

// records are the Kafka records of an epoch's changes.
func (s *Sink) records(changes []arrow.RecordBatch) []*kgo.Record {
	var out []*kgo.Record
	if !s.cfg.Changes {
		for _, b := range changes {
			cols := b.Columns()
			for i := 0; i < int(b.NumRows()); i++ {
				out = append(out, &kgo.Record{Key: s.key(cols, i), Value: s.value(cols, i)})
			}
		}
		return out
	}
	// Upserts: per key, the epoch's last change.
	index := map[string]int{}
	for _, b := range changes {
		cols := b.Columns()
		ct, _ := cols[s.cfg.ChangeTypeCol].(*array.String)
		for i := 0; i < int(b.NumRows()); i++ {
			k := s.key(cols, i)
			var v []byte
			if ct == nil || ct.IsNull(i) || ct.Value(i) != "delete" {
				v = s.value(cols, i)
			}
			if j, ok := index[string(k)]; ok {
				out[j].Value = v
				continue
			}
			index[string(k)] = len(out)
			out = append(out, &kgo.Record{Key: k, Value: v})
		}
	}
	return out
}

func (s *Sink) key(cols []arrow.Array, i int) []byte {
	if len(s.cfg.KeyCols) == 0 {
		return nil
	}
	return s.cfg.JSON(nil, s.cfg.KeyCols, cols, i)
}

func (s *Sink) value(cols []arrow.Array, i int) []byte {
	return s.cfg.JSON(nil, s.cfg.DataCols, cols, i)
}
