package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weir-sql/weir/connector/files"
)

// Partitions of very different sizes, read in small reads: each Read's
// records are no older than the newest of the Read before (the table's
// watermark never passes a partition's records before they are read),
// and every record is read once.
func TestSourceAlignsPartitionsOnTimestamps(t *testing.T) {
	c := newCluster(t, 3, "ev")
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var recs []*kgo.Record
	for p, n := range []int{600, 150, 30} {
		for i := 0; i < n; i++ {
			// Partition p's records span the same hour, at its own rate.
			at := base.Add(time.Duration(i) * time.Hour / time.Duration(n))
			recs = append(recs, &kgo.Record{Topic: "ev", Partition: int32(p), Timestamp: at, Value: []byte(fmt.Sprint(i))})
		}
	}
	produce(t, c, recs...)
	st := newStore(t, t.TempDir())
	defer st.Close()
	o := mustOptions(t, map[string]string{"bootstrapServers": c.ListenAddrs()[0], "subscribe": "ev", "startingOffsets": "earliest", "maxOffsetsPerTrigger": "50"})
	src, err := Open(st, []byte("o/k/"), o, files.Schema{}, Tuning{BatchRows: 20, Discover: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var off int64
	total, reads := 0, 0
	var prevMax int64 = -1 << 62
	deadline := time.Now().Add(20 * time.Second)
	for total < 780 {
		if time.Now().After(deadline) {
			t.Fatalf("read %d of 780 records", total)
		}
		rd, err := src.Read(context.Background(), off, 0)
		if err != nil {
			t.Fatal(err)
		}
		off = rd.Next
		if len(rd.Batches) == 0 {
			time.Sleep(10 * time.Millisecond) // polling, with the deadline above
			continue
		}
		reads++
		lo, hi := tsRange(rd.Batches)
		if lo < prevMax {
			t.Fatalf("read %d holds a record of %v, older than the newest of the read before (%v)", reads, time.UnixMicro(lo).UTC(), time.UnixMicro(prevMax).UTC())
		}
		prevMax = hi
		for _, b := range rd.Batches {
			total += int(b.NumRows())
		}
	}
	if total != 780 || reads < 780/50 {
		t.Errorf("%d records in %d reads", total, reads)
	}
}

func tsRange(bs []arrow.RecordBatch) (lo, hi int64) {
	lo, hi = 1<<62, -1<<62
	for _, b := range bs {
		col := b.Column(5)
		for i := 0; i < col.Len(); i++ {
			v := int64(col.(interface{ Value(int) arrow.Timestamp }).Value(i))
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	return lo, hi
}
