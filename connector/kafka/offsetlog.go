package kafka

import (
	"encoding/binary"
	"sort"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// The offset log: what each batch of a Kafka source holds, in weir's
// store under the source's log key, so that the batch can be fetched
// again exactly after a restart.
//
//	<logKey>b<seq u64 BE>                      batch seq: its spans (encodeBatch)
//	<logKey>p<topic>\x00<partition u32 BE>     a partition's start: the offset it was first read from
//
// Batch seq is offset seq of the connector.Source contract. A batch's
// spans say, for each partition it holds records of, the first record's
// offset and the offset after its last record: with read_committed,
// offsets inside a span that are no record (transaction markers, aborted
// records) are never returned, so fetching the span again gives the same
// records. A batch is written (committed) before Read returns it. A
// partition's start is written when the source first assigns it, so that
// "latest" or a timestamp means one offset across restarts.

// topicPart is one partition of one topic.
type topicPart struct {
	Topic string
	Part  int32
}

func (a topicPart) less(b topicPart) bool {
	if a.Topic != b.Topic {
		return a.Topic < b.Topic
	}
	return a.Part < b.Part
}

// span is the records of one partition in one batch: offsets From up to
// To (exclusive), Rows of them.
type span struct {
	topicPart
	From, To int64
	Rows     int64
}

// batchEntry is one batch of the log.
type batchEntry struct {
	Spans []span
	Rows  int64
}

const batchFormat = 1

func batchKey(logKey []byte, seq int64) []byte {
	k := append(append([]byte(nil), logKey...), 'b')
	return binary.BigEndian.AppendUint64(k, uint64(seq))
}

func startKey(logKey []byte, tp topicPart) []byte {
	k := append(append([]byte(nil), logKey...), 'p')
	k = append(append(k, tp.Topic...), 0)
	return binary.BigEndian.AppendUint32(k, uint32(tp.Part))
}

func encodeBatch(e batchEntry) []byte {
	b := []byte{batchFormat}
	b = binary.AppendUvarint(b, uint64(len(e.Spans)))
	for _, s := range e.Spans {
		b = binary.AppendUvarint(b, uint64(len(s.Topic)))
		b = append(b, s.Topic...)
		b = binary.AppendVarint(b, int64(s.Part))
		b = binary.AppendVarint(b, s.From)
		b = binary.AppendVarint(b, s.To)
		b = binary.AppendVarint(b, s.Rows)
	}
	return b
}

func decodeBatch(b []byte) (batchEntry, bool) {
	if len(b) < 1 || b[0] != batchFormat {
		return batchEntry{}, false
	}
	b = b[1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return batchEntry{}, false
	}
	b = b[k:]
	var e batchEntry
	for i := uint64(0); i < n; i++ {
		tl, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < tl {
			return batchEntry{}, false
		}
		var s span
		s.Topic = string(b[k : k+int(tl)])
		b = b[k+int(tl):]
		var vals [4]int64
		for j := range vals {
			v, k := binary.Varint(b)
			if k <= 0 {
				return batchEntry{}, false
			}
			vals[j], b = v, b[k:]
		}
		s.Part, s.From, s.To, s.Rows = int32(vals[0]), vals[1], vals[2], vals[3]
		if s.To < s.From || s.Rows < 0 {
			return batchEntry{}, false
		}
		e.Spans = append(e.Spans, s)
		e.Rows += s.Rows
	}
	return e, true
}

// loadedLog is a log as Open reads it.
type loadedLog struct {
	batches []batchEntry
	starts  map[topicPart]int64
}

func loadLog(st *state.Store, logKey []byte) (loadedLog, error) {
	txn := st.Begin(false)
	defer txn.Discard()
	l := loadedLog{starts: map[topicPart]int64{}}
	bp := append(append([]byte(nil), logKey...), 'b')
	err := txn.IteratePrefix(bp, func(key, val []byte) error {
		seq := int64(binary.BigEndian.Uint64(key[len(bp):]))
		e, ok := decodeBatch(val)
		if !ok || seq != int64(len(l.batches)) {
			return sqlerr.New(sqlerr.DataCorrupted, "the offset log of a Kafka source is damaged at batch %d", seq)
		}
		l.batches = append(l.batches, e)
		return nil
	})
	if err != nil {
		return loadedLog{}, err
	}
	pp := append(append([]byte(nil), logKey...), 'p')
	err = txn.IteratePrefix(pp, func(key, val []byte) error {
		rest := key[len(pp):]
		if len(rest) < 5 || rest[len(rest)-5] != 0 {
			return sqlerr.New(sqlerr.DataCorrupted, "the offset log of a Kafka source has a damaged partition start")
		}
		tp := topicPart{Topic: string(rest[:len(rest)-5]), Part: int32(binary.BigEndian.Uint32(rest[len(rest)-4:]))}
		v, k := binary.Varint(val)
		if k <= 0 {
			return sqlerr.New(sqlerr.DataCorrupted, "the offset log of a Kafka source has a damaged partition start")
		}
		l.starts[tp] = v
		return nil
	})
	if err != nil {
		return loadedLog{}, err
	}
	return l, nil
}

// positions are where each partition's next record to log is: its start,
// or after the last span of it logged.
func (l loadedLog) positions() map[topicPart]int64 {
	pos := make(map[topicPart]int64, len(l.starts))
	for tp, s := range l.starts {
		pos[tp] = s
	}
	for _, b := range l.batches {
		for _, s := range b.Spans {
			if s.To > pos[s.topicPart] {
				pos[s.topicPart] = s.To
			}
		}
	}
	return pos
}

// sortedParts are the keys of m in topic, partition order.
func sortedParts[V any](m map[topicPart]V) []topicPart {
	out := make([]topicPart, 0, len(m))
	for tp := range m {
		out = append(out, tp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].less(out[j]) })
	return out
}

// OffsetRange is one partition's records in one logged batch, as the
// engine shows them.
type OffsetRange struct {
	Topic     string
	Partition int32
	From, To  int64
}

// LoggedBatches is the offset log under logKey: each batch's ranges.
func LoggedBatches(st *state.Store, logKey []byte) ([][]OffsetRange, error) {
	l, err := loadLog(st, logKey)
	if err != nil {
		return nil, err
	}
	out := make([][]OffsetRange, len(l.batches))
	for i, b := range l.batches {
		for _, s := range b.Spans {
			out[i] = append(out[i], OffsetRange{s.Topic, s.Part, s.From, s.To})
		}
	}
	return out, nil
}
