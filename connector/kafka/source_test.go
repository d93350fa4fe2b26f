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
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weir-sql/weir/connector/files"
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

func mustOptions(t testing.TB, m map[string]string) Options {
	t.Helper()
	o, err := ParseOptions(m)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

var ordersSchema = files.Schema{Columns: []files.Column{{Name: "id", Type: types.Int8}, {Name: "amount", Type: types.Numeric}}, Rescued: "_rescued_data"}

// Records read, a restart, and the same offsets read again: the same
// rows in the same batches, fetched from Kafka by the logged ranges.
func TestSourceRereadsLoggedBatchesAfterRestart(t *testing.T) {
	c := newCluster(t, 3, "orders")
	dir := t.TempDir()
	st := newStore(t, dir)
	o := mustOptions(t, map[string]string{"bootstrapServers": strings.Join(c.ListenAddrs(), ","), "subscribe": "orders", "startingOffsets": "earliest", "format": "json"})
	var recs []*kgo.Record
	for i := 0; i < 300; i++ {
		recs = append(recs, rec("orders", int32(i%3), "", fmt.Sprintf(`{"id": %d, "amount": %d.5}`, i, i)))
	}
	recs = append(recs, rec("orders", 1, "", `{"id": "not a number", "amount": 1}`), rec("orders", 2, "", `not json`))
	produce(t, c, recs...)
	key := []byte("o/kafkatest/")
	src, err := Open(st, key, o, ordersSchema, Tuning{BatchRows: 64, Discover: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	first, next := readUntil(t, src, 0, 302)
	if next < 5 {
		t.Fatalf("%d batches, want batches of 64 rows", next)
	}
	got := rowsText(first)
	if !slices.Contains(got, `NULL|1|{"id": "not a number", "_line": 100, "_file_path": "orders/1"}`) {
		t.Errorf("the bad id is not rescued with its partition and offset: %v", got[len(got)-3:])
	}
	if !slices.Contains(got, `NULL|NULL|{"_line": 100, "_file_path": "orders/2", "_corrupt_record": "not json"}`) {
		t.Errorf("the malformed message is not rescued whole")
	}
	src.Close()
	st.Close()

	st = newStore(t, dir)
	defer st.Close()
	src, err = Open(st, key, o, ordersSchema, Tuning{BatchRows: 64, Discover: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for _, from := range []int64{0, 2, next - 1} {
		rd, err := src.Read(context.Background(), from, 0)
		if err != nil {
			t.Fatal(err)
		}
		if rd.From != from || rd.Next != next {
			t.Fatalf("Read(%d) after a restart: From %d Next %d, want Next %d", from, rd.From, rd.Next, next)
		}
		for i, b := range rd.Batches {
			if !array.RecordEqual(b, first[from+int64(i)]) {
				t.Fatalf("batch %d differs after a restart:\n%v\n%v", from+int64(i), b, first[from+int64(i)])
			}
		}
	}
	// New records continue after the logged ones, none twice.
	produce(t, c, rec("orders", 0, "", `{"id": 1000, "amount": 1}`))
	more, _ := readUntil(t, src, next, 1)
	if g := rowsText(more); len(g) != 1 || g[0] != "1000|1|NULL" {
		t.Errorf("after the restart read %v, want the one new record", g)
	}
}

// read_committed: an aborted transaction's records are never read; a
// committed one's are, once it commits.
func TestSourceReadCommitted(t *testing.T) {
	c := newCluster(t, 1, "tx")
	st := newStore(t, t.TempDir())
	defer st.Close()
	o := mustOptions(t, map[string]string{"bootstrapServers": c.ListenAddrs()[0], "subscribe": "tx", "startingOffsets": "earliest"})
	src, err := Open(st, []byte("o/k/"), o, files.Schema{}, Tuning{Discover: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	txp, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.TransactionalID("t1"), kgo.DefaultProduceTopic("tx"))
	if err != nil {
		t.Fatal(err)
	}
	defer txp.Close()
	ctx := context.Background()
	for i, commit := range []kgo.TransactionEndTry{kgo.TryAbort, kgo.TryCommit} {
		if err := txp.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := txp.ProduceSync(ctx, kgo.StringRecord(fmt.Sprintf("v%d", i))).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := txp.EndTransaction(ctx, commit); err != nil {
			t.Fatal(err)
		}
	}
	produce(t, c, rec("tx", 0, "k", "plain"))
	bs, _ := readUntil(t, src, 0, 2)
	var vals []string
	for _, b := range bs {
		v := b.Column(1).(*array.Binary)
		for i := 0; i < v.Len(); i++ {
			vals = append(vals, string(v.Value(i)))
		}
	}
	if !slices.Equal(vals, []string{"v1", "plain"}) {
		t.Errorf("read_committed read %v, want [v1 plain]", vals)
	}
	// The raw columns, as read_kafka gives them.
	b := bs[len(bs)-1]
	if b.Schema().NumFields() != len(RawColumns) || b.Schema().Field(6).Name != "timestamptype" {
		t.Errorf("raw schema %v", b.Schema())
	}
}

// startingOffsets latest: only what arrives after the source first
// assigns a partition; a partition added later is read from its start;
// lag per partition.
func TestSourceLatestNewPartitionsAndLag(t *testing.T) {
	c := newCluster(t, 1, "ev")
	produce(t, c, rec("ev", 0, "", "old"))
	st := newStore(t, t.TempDir())
	defer st.Close()
	o := mustOptions(t, map[string]string{"bootstrapServers": c.ListenAddrs()[0], "topic": "ev", "startup": "latest"})
	src, err := Open(st, []byte("o/k/"), o, files.Schema{}, Tuning{Discover: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	waitFor(t, "partition 0 assigned", func() bool { return len(src.Lag()) == 1 })
	produce(t, c, rec("ev", 0, "", "new"))
	bs, next := readUntil(t, src, 0, 1)
	if v := string(bs[0].Column(1).(*array.Binary).Value(0)); v != "new" || bs[0].NumRows() != 1 {
		t.Fatalf("latest read %q first", v)
	}
	adm := kadm.NewClient(src.cl)
	if _, err := adm.CreatePartitions(context.Background(), 1, "ev"); err != nil {
		t.Fatal(err)
	}
	produce(t, c, rec("ev", 1, "", "p1"))
	waitFor(t, "partition 1 assigned", func() bool { return len(src.Lag()) == 2 })
	bs, _ = readUntil(t, src, next, 1)
	if v := string(bs[0].Column(1).(*array.Binary).Value(0)); v != "p1" {
		t.Fatalf("the new partition read %q", v)
	}
	var sawNotice bool
	for _, n := range src.Notices() {
		sawNotice = sawNotice || n.Kind == "partition"
	}
	if !sawNotice {
		t.Error("no notice of the new partition")
	}
	// Lag: records Kafka holds past the position. Produce without
	// reading: the lag shows them.
	produce(t, c, rec("ev", 0, "", "a"), rec("ev", 0, "", "b"))
	waitFor(t, "lag 2 on partition 0", func() bool {
		l := src.Lag()
		return l[0].Lag == 2 && l[1].Lag == 0
	})
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// What CREATE SOURCE checks: an unreachable broker is 08001, a missing
// topic 42P01, bad options 22023.
func TestCheckAndOptions(t *testing.T) {
	c := newCluster(t, 1, "there")
	ctx := context.Background()
	if err := Check(ctx, mustOptions(t, map[string]string{"bootstrapServers": c.ListenAddrs()[0], "subscribe": "there"})); err != nil {
		t.Fatal(err)
	}
	if err := Check(ctx, mustOptions(t, map[string]string{"bootstrapServers": c.ListenAddrs()[0], "subscribe": "missing"})); sqlerr.Code(err) != sqlerr.UndefinedTable {
		t.Errorf("missing topic: %v", err)
	}
	if err := Check(ctx, mustOptions(t, map[string]string{"bootstrapServers": "127.0.0.1:1", "subscribe": "x"})); sqlerr.Code(err) != CodeCannotConnect {
		t.Errorf("unreachable broker: %v (%s)", err, sqlerr.Code(err))
	}
	for _, bad := range []map[string]string{
		{"subscribe": "x"},
		{"bootstrapServers": "h:1"},
		{"bootstrapServers": "h:1", "subscribe": "x", "subscribePattern": "y"},
		{"bootstrapServers": "h:1", "subscribe": "x", "startingOffsets": "middle"},
		{"bootstrapServers": "h:1", "subscribe": "x", "bogus": "1"},
	} {
		if _, err := ParseOptions(bad); sqlerr.Code(err) != sqlerr.InvalidParameterValue {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

var _ arrow.RecordBatch
