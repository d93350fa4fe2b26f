package kafka

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weir-sql/weir/sql/types"
	"github.com/weir-sql/weir/state"
)

// newCluster is an in-process Kafka cluster (franz-go's kfake, which
// franz-go's own tests use) with topics seeded, listening on TCP.
func newCluster(t testing.TB, partitions int32, topics ...string) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, topics...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func newStore(t testing.TB, dir string) *state.Store {
	t.Helper()
	st, err := state.Open(dir, state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// produce writes records synchronously (not transactional).
func produce(t testing.TB, c *kfake.Cluster, recs ...*kgo.Record) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

func rec(topic string, part int32, key, value string) *kgo.Record {
	r := &kgo.Record{Topic: topic, Partition: part, Value: []byte(value)}
	if key != "" {
		r.Key = []byte(key)
	}
	return r
}

// readUntil reads from off until the source has returned rows rows,
// within a deadline: the fetcher fills the buffer in the background.
func readUntil(t testing.TB, s *Source, off int64, rows int) ([]arrow.RecordBatch, int64) {
	t.Helper()
	var out []arrow.RecordBatch
	n := 0
	deadline := time.Now().Add(20 * time.Second)
	for n < rows {
		if time.Now().After(deadline) {
			t.Fatalf("read %d of %d rows before the deadline", n, rows)
		}
		rd, err := s.Read(context.Background(), off, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range rd.Batches {
			n += int(b.NumRows())
		}
		out = append(out, rd.Batches...)
		off = rd.Next
		if len(rd.Batches) == 0 {
			time.Sleep(10 * time.Millisecond) // polling a condition, with the deadline above
		}
	}
	return out, off
}

// rowsText renders batches' rows as text, one line a row.
func rowsText(bs []arrow.RecordBatch) []string {
	var out []string
	for _, b := range bs {
		for r := 0; r < int(b.NumRows()); r++ {
			var cells []string
			for c := 0; c < int(b.NumCols()); c++ {
				col := b.Column(c)
				if col.IsNull(r) {
					cells = append(cells, "NULL")
					continue
				}
				cells = append(cells, fmt.Sprint(col.ValueStr(r)))
			}
			out = append(out, strings.Join(cells, "|"))
		}
	}
	return out
}

var _ = types.Text
