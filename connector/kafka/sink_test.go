package kafka

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weir-sql/weir/connector/files"
)

// changesBatch is an update-mode change batch: k text, n bigint,
// _change_type text.
func changesBatch(rows ...[3]string) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	kb, nb, cb := array.NewStringBuilder(mem), array.NewInt64Builder(mem), array.NewStringBuilder(mem)
	for _, r := range rows {
		kb.Append(r[0])
		var n int64
		fmt.Sscan(r[1], &n)
		nb.Append(n)
		cb.Append(r[2])
	}
	s := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String}, {Name: "n", Type: arrow.PrimitiveTypes.Int64}, {Name: "_change_type", Type: arrow.BinaryTypes.String}}, nil)
	return array.NewRecordBatch(s, []arrow.Array{kb.NewArray(), nb.NewArray(), cb.NewArray()}, int64(len(rows)))
}

func testJSON(buf []byte, cols []int, arrs []arrow.Array, i int) []byte {
	names := []string{"k", "n"}
	var parts []string
	for _, c := range cols {
		parts = append(parts, fmt.Sprintf("%q:%s", names[c], quoteIf(arrs[c].ValueStr(i), c == 0)))
	}
	return append(buf, "{"+strings.Join(parts, ",")+"}"...)
}

func quoteIf(s string, q bool) string {
	if q {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// consumeCommitted reads the topic as a read_committed consumer, from
// the start until it has want records (with a deadline).
func consumeCommitted(t *testing.T, addr, topic string, want int) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []string
	for len(out) < want {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d records: %v", len(out), want, out)
		}
		fs.EachRecord(func(r *kgo.Record) {
			v := "null"
			if r.Value != nil {
				v = string(r.Value)
			}
			out = append(out, fmt.Sprintf("%s=%s@%s", r.Key, v, r.Headers[0].Value))
		})
	}
	return out
}

func openTestSink(t *testing.T, addr string) *Sink {
	t.Helper()
	o := mustOptions(t, map[string]string{"bootstrapServers": addr, "topic": "out"})
	s, err := OpenSink(context.Background(), o, SinkConfig{Topic: "out", TransactionID: "weir-test-sink", Changes: true,
		ChangeTypeCol: 2, DataCols: []int{0, 1}, KeyCols: []int{0}, JSON: testJSON})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// An epoch staged and never committed (the process died between its
// Write and Committed): a read_committed consumer never sees it; the
// restarted sink says the epoch before is the last committed, and the
// epoch written again is seen once.
func TestSinkExactlyOnceAcrossRestart(t *testing.T) {
	c := newCluster(t, 2, "out")
	addr := c.ListenAddrs()[0]
	s := openTestSink(t, addr)
	if last, _ := s.LastCommitted(); last != 0 {
		t.Fatalf("a new sink's LastCommitted = %d", last)
	}
	e1 := changesBatch([3]string{"a", "1", "insert"}, [3]string{"b", "1", "insert"})
	if err := s.Write(nil, 1, []arrow.RecordBatch{e1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Committed(1); err != nil {
		t.Fatal(err)
	}
	// Epoch 2 updates a (delete then insert: one upsert) and deletes b
	// (a tombstone); it is staged, then the process "dies".
	e2 := changesBatch([3]string{"a", "1", "delete"}, [3]string{"a", "2", "insert"}, [3]string{"b", "1", "delete"})
	if err := s.Write(nil, 2, []arrow.RecordBatch{e2}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openTestSink(t, addr)
	defer s.Close()
	if last, _ := s.LastCommitted(); last != 1 {
		t.Fatalf("after the restart LastCommitted = %d, want 1", last)
	}
	if err := s.Write(nil, 2, []arrow.RecordBatch{e2}); err != nil {
		t.Fatal(err)
	}
	if err := s.Committed(2); err != nil {
		t.Fatal(err)
	}
	got := consumeCommitted(t, addr, "out", 4)
	slices.Sort(got)
	// Nothing else: everything up to the last stable offset.
	all, err := ReadNow(context.Background(), mustOptions(t, map[string]string{"bootstrapServers": addr, "topic": "out"}), files.Schema{}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := rowsText(all); len(n) != 4 {
		t.Errorf("the topic holds %d committed records, want 4: %q", len(n), n)
	}
	want := []string{`{"k":"a"}={"k":"a","n":1}@1`, `{"k":"a"}={"k":"a","n":2}@2`, `{"k":"b"}=null@2`, `{"k":"b"}={"k":"b","n":1}@1`}
	if !slices.Equal(got, want) {
		t.Errorf("read_committed consumer saw\n%q\nwant\n%q", got, want)
	}
	s2 := openTestSink(t, addr)
	defer s2.Close()
	if last, _ := s2.LastCommitted(); last != 2 {
		t.Errorf("LastCommitted after epoch 2 = %d", last)
	}
}
