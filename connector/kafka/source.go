package kafka

import (
	"context"
	"log/slog"
	"regexp"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/files"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// Source is a Kafka source as a connector.Source.
//
// A background fetcher consumes the partitions the source is assigned
// (direct assignment, never a consumer group: offsets live in weir's
// store) into a bounded buffer; Read never waits for Kafka: at the end of
// the offset log it takes what is buffered — at most MaxOffsetsPerTrigger
// records, BatchRows a batch, partitions in topic and partition order —
// records the batches' offset ranges in the offset log (durably) and only
// then returns them. Reading an offset before the log's end fetches the
// logged ranges again (offsetlog.go), so an epoch re-run after a restart
// sees the same records in the same batches.
//
// A discovery loop lists the topics every Tuning.Discover: new partitions
// (and, for subscribePattern, new topics) are assigned as they appear; a
// broker that cannot be reached, or a topic that does not exist, is
// reported (Trouble, Notices) and tried again, never a failed Read.
//
// How the engine uses it: Open when the streaming table reading it
// starts, with a log key of its own (each reader keeps its own offsets);
// Read from the offset its checkpoint recorded; Notices and Trouble into
// the event log and the table's status, Lag into streaming_progress;
// Close when the table stops.
type Source struct {
	st     *state.Store
	logKey []byte
	o      Options
	tune   Tuning
	dec    *decoder
	match  *regexp.Regexp

	readMu sync.Mutex

	mu         sync.Mutex
	batches    []batchEntry
	pos        map[topicPart]int64 // next offset to log
	hadStarts  bool                // the log has partition starts (not the first run)
	buf        map[topicPart][]*kgo.Record
	bufEnd     map[topicPart]int64 // offset after the last buffered record
	buffered   int
	paused     map[topicPart]bool  // partitions whose fetching is paused (their buffer is full)
	ends       map[topicPart]int64 // the partition's end (LSO or HWM) last seen
	maxTS      map[topicPart]int64 // largest record timestamp logged, µs
	lastRecord map[topicPart]time.Time
	assignedAt map[topicPart]time.Time // when takeLocked first waited for a partition with no record yet
	trouble    string
	noticed    map[string]bool
	notices    []Notice
	cache      map[int64]arrow.RecordBatch
	cacheOrder []int64

	cl     *kgo.Client
	adm    *kadm.Client
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
	kick   chan struct{}
}

var _ connector.Source = (*Source)(nil)

// Tuning adjusts a Source beyond its options; zero fields take defaults.
type Tuning struct {
	BatchRows int           // records a batch (8192)
	Discover  time.Duration // how often topics are listed (2s)
	// Buffer is the records fetched ahead of Read (4 batches); fetching
	// pauses above it.
	Buffer int
	// TimestampWatermark: the rows' event time is the record timestamp
	// (raw format, WATERMARK FOR timestamp): Read gives a watermark hint,
	// the smallest of the partitions' largest timestamps read, partitions
	// with no record for IdleTimeout left out.
	TimestampWatermark bool
}

func (t Tuning) withDefaults() Tuning {
	if t.BatchRows <= 0 {
		t.BatchRows = 8192
	}
	if t.Discover <= 0 {
		t.Discover = 2 * time.Second
	}
	if t.Buffer <= 0 {
		t.Buffer = 4 * t.BatchRows
	}
	return t
}

// Notice is something the source met that the event log should show.
type Notice struct {
	Time    time.Time
	Kind    string // "broker", "topic", "partition"
	Message string
}

// Open opens a Kafka source whose offset log is under logKey; s is the
// schema of a json or csv source (ignored for raw).
func Open(st *state.Store, logKey []byte, o Options, s files.Schema, t Tuning) (*Source, error) {
	if len(logKey) == 0 {
		return nil, sqlerr.New(sqlerr.InternalError, "kafka source opened without a log key")
	}
	l, err := loadLog(st, logKey)
	if err != nil {
		return nil, err
	}
	t = t.withDefaults()
	src := &Source{
		st: st, logKey: append([]byte(nil), logKey...), o: o, tune: t, dec: newDecoder(o, s),
		batches: l.batches, pos: l.positions(), hadStarts: len(l.starts) > 0,
		buf: map[topicPart][]*kgo.Record{}, bufEnd: map[topicPart]int64{}, ends: map[topicPart]int64{},
		maxTS: map[topicPart]int64{}, lastRecord: map[topicPart]time.Time{}, assignedAt: map[topicPart]time.Time{}, noticed: map[string]bool{},
		cache: map[int64]arrow.RecordBatch{}, kick: make(chan struct{}, 1), paused: map[topicPart]bool{},
	}
	if o.Pattern != "" {
		src.match = regexp.MustCompile(o.Pattern) // ParseOptions checked it
	}
	// Control records (transaction markers) are kept so that the
	// buffer's end passes them: a partition whose last offsets are
	// markers is caught up, not behind (takeLocked).
	opts := append(clientOpts(o), kgo.FetchMaxWait(200*time.Millisecond), kgo.KeepControlRecords())
	if o.ReadCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	src.cl, err = kgo.NewClient(opts...)
	if err != nil {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid Kafka client settings: %v", err)
	}
	src.adm = kadm.NewClient(src.cl)
	if len(src.pos) > 0 {
		assign := map[string]map[int32]kgo.Offset{}
		for tp, p := range src.pos {
			if assign[tp.Topic] == nil {
				assign[tp.Topic] = map[int32]kgo.Offset{}
			}
			assign[tp.Topic][tp.Part] = kgo.NewOffset().At(p)
			src.bufEnd[tp] = p
		}
		src.cl.AddConsumePartitions(assign)
	}
	ctx, cancel := context.WithCancel(context.Background())
	src.cancel = cancel
	src.wg.Add(2)
	go src.fetchLoop(ctx)
	go src.discoverLoop(ctx)
	return src, nil
}

// Close stops fetching and discovery; Read must not be called after.
func (s *Source) Close() error {
	s.once.Do(func() {
		s.cancel()
		s.wg.Wait()
		s.cl.Close()
	})
	return nil
}

// Start is 0: the offset log is never trimmed (Kafka's retention may
// still remove what a logged batch holds: re-reading it then fails).
func (s *Source) Start() (int64, error) { return 0, nil }

// Schema is the Arrow schema of the source's batches.
func (s *Source) Schema() *arrow.Schema { return s.dec.arrow }

// Trouble is what keeps the source from reading now ("" when nothing):
// an unreachable broker, a missing topic.
func (s *Source) Trouble() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.trouble
}

// Notices returns the notices given since the last call, oldest first.
func (s *Source) Notices() []Notice {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.notices
	s.notices = nil
	return out
}

func (s *Source) noticeLocked(kind, msg string) {
	slog.Warn("kafka source: "+msg, "kind", kind)
	if len(s.notices) < 1000 {
		s.notices = append(s.notices, Notice{Time: time.Now(), Kind: kind, Message: msg})
	}
}

// setTrouble records what keeps the source from reading; a notice is
// given when it changes.
func (s *Source) setTrouble(kind, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.trouble == msg {
		return
	}
	s.trouble = msg
	if msg != "" {
		s.noticeLocked(kind, msg)
	} else {
		s.noticeLocked(kind, "reading again")
	}
}

// PartitionLag is one partition's position and end.
type PartitionLag struct {
	Topic     string
	Partition int32
	Position  int64 // the next offset to read
	End       int64 // the partition's end (last stable offset under read_committed); -1 when not known yet
	Lag       int64 // End - Position, 0 when not known
}

// Lag is every assigned partition's lag, in topic, partition order.
func (s *Source) Lag() []PartitionLag {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]PartitionLag, 0, len(s.pos))
	for _, tp := range sortedParts(s.pos) {
		l := PartitionLag{Topic: tp.Topic, Partition: tp.Part, Position: s.pos[tp], End: -1}
		if e, ok := s.ends[tp]; ok {
			l.End = e
			l.Lag = max(0, e-l.Position)
		}
		out = append(out, l)
	}
	return out
}

// backlogLocked is the records after the log's end: the partitions' lag.
func (s *Source) backlogLocked() int64 {
	var n int64
	for tp, p := range s.pos {
		if e, ok := s.ends[tp]; ok && e > p {
			n += e - p
		}
	}
	return n
}

// watermarkLocked is the watermark hint (TimestampWatermark).
func (s *Source) watermarkLocked() (int64, bool) {
	if !s.tune.TimestampWatermark {
		return 0, false
	}
	now := time.Now()
	wm, has, newest := int64(0), false, int64(0)
	for tp, ts := range s.maxTS {
		newest = max(newest, ts)
		if s.o.IdleTimeout > 0 && now.Sub(s.lastRecord[tp]) > s.o.IdleTimeout {
			continue // idle: it does not hold the others back
		}
		if !has || ts < wm {
			wm, has = ts, true
		}
	}
	if !has && newest > 0 {
		return newest, true // every partition idle
	}
	return wm, has
}
