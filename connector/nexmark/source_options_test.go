package nexmark

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/sourcetest"
	"github.com/weir-sql/weir/sql/sqlerr"
)

func settings(kv ...string) []connector.Setting {
	var out []connector.Setting
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, connector.Setting{Name: kv[i], Value: kv[i+1]})
	}
	return out
}

func TestSourceOptions(t *testing.T) {
	o, err := ParseSourceOptions(settings("connector", "nexmark", "table", "bid", "max_events", "1000"))
	if err != nil || !o.Paced || o.Table != Bid || o.Config.MaxEvents != 1000 || o.BatchRows != 920 {
		t.Fatalf("%+v, %v", o, err)
	}
	// A slow feed has small batches (a tenth of a second of rows), a
	// fast or unpaced one the default size.
	for _, tc := range []struct {
		s    []connector.Setting
		rows int
	}{
		{settings("table", "person", "events_per_second", "10"), 1},
		{settings("table", "bid", "events_per_second", "10000000"), DefaultBatchEvents},
		{settings("table", "bid", "paced", "false"), DefaultBatchEvents},
		{settings("table", "bid", "batch_size", "7"), 7},
	} {
		if o, err := ParseSourceOptions(tc.s); err != nil || o.BatchRows != tc.rows {
			t.Errorf("%v: batch of %d rows (%v), want %d", tc.s, o.BatchRows, err, tc.rows)
		}
	}
	// RisingWave's spellings.
	o, err = ParseSourceOptions(settings("connector", "nexmark", "nexmark.table.type", "Auction", "nexmark.event.num", "5000",
		"nexmark.max.chunk.size", "512", "nexmark.min.event.gap.in.ns", "100", "nexmark.split.num", "2", "nexmark.use.real.time", "false"))
	if err != nil || o.Paced || o.Table != Auction || o.Config.MaxEvents != 5000 || o.BatchRows != 512 || o.Config.EventsPerSecond != 10_000_000 {
		t.Fatalf("%+v, %v", o, err)
	}
	for _, bad := range []struct {
		s    []connector.Setting
		name string // the option the message must name
	}{
		{settings("table", "bid", "events_per_second", "-5"), "events_per_second"},
		{settings("table", "bids"), "table"},
		{settings("nexmark.table.type", "Bids"), "nexmark.table.type"},
		{settings("table", "bid", "batch_size", "100000000"), "batch_size"},
		{settings("table", "bid", "nexmark.max.chunk.size", "100000000"), "nexmark.max.chunk.size"},
		{settings("table", "bid", "max_events", "lots"), "max_events"},
		{settings("table", "bid", "seed", "1.5"), "seed"},
		{settings("table", "bid", "paced", "maybe"), "paced"},
		{settings("table", "bid", "nexmark.min.event.gap.in.ns", "0"), "nexmark.min.event.gap.in.ns"},
		{settings("table", "bid", "nexmark.split.num", "-1"), "nexmark.split.num"},
		{settings("table", "bid", "nexmark.table.type", "bid"), "nexmark.table.type"},
		{settings("table", "bid", "topic", "x"), "topic"},
		{settings("table", "bid", "late_fraction", "2"), "late_fraction"},
	} {
		_, err := ParseSourceOptions(bad.s)
		if sqlerr.Code(err) != sqlerr.InvalidParameterValue || !strings.Contains(sqlerr.From(err).Message, `"`+bad.name+`"`) {
			t.Errorf("%v: %v, want 22023 naming %s", bad.s, err, bad.name)
		}
	}
	_, err = ParseSourceOptions(settings("table", "bid", "topic", "x"))
	if h := sqlerr.From(err).Hint; !strings.Contains(h, "events_per_second") || !strings.Contains(h, "nexmark.event.num") {
		t.Errorf("unknown option hint %q lists not the options", h)
	}
}

// A paced source's feed is counted from its start time: opened long ago,
// it holds everything, and passes the conformance suite.
func TestPacedSourceConformance(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
		o, err := ParseSourceOptions(settings("table", "bid", "max_events", "4000", "batch_size", "50", "events_per_second", "1000", "disorder", "2 seconds"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewSourceAt(o, time.Now().Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return sourcetest.Fixture{Source: s}
	})
}

// Re-reading committed offsets does not depend on the clock: a source
// restarted with a clock that offers less than a checkpoint recorded still
// returns From = the offset asked (not a truncation), then the same rows
// once offered.
func TestReadDoesNotDependOnClock(t *testing.T) {
	o, err := ParseSourceOptions(settings("table", "bid", "events_per_second", "1000", "batch_size", "46", "seed", "3"))
	if err != nil {
		t.Fatal(err)
	}
	first, _ := NewSourceAt(o, time.Now().Add(-10*time.Second))
	all, err := first.Read(context.Background(), 0, 0)
	if err != nil || all.Next < 150 || !all.HasWatermark {
		t.Fatalf("after 10s: Next %d, %v", all.Next, err)
	}
	restarted, _ := NewSourceAt(o, time.Now())
	clock := restarted.opened
	restarted.now = func() time.Time { return clock }
	rd, err := restarted.Read(context.Background(), 100, 0)
	if err != nil || rd.From != 100 || rd.Next != 100 || len(rd.Batches) != 0 {
		t.Fatalf("restarted before the committed offset: From %d Next %d, %d batches, %v", rd.From, rd.Next, len(rd.Batches), err)
	}
	clock = clock.Add(10 * time.Second)
	rd, _ = restarted.Read(context.Background(), 100, 5)
	for i, b := range rd.Batches {
		if !array.RecordEqual(b, all.Batches[100+i]) {
			t.Fatalf("batch %d differs after the restart", 100+i)
		}
	}
	if len(rd.Batches) != 5 {
		t.Fatalf("%d batches", len(rd.Batches))
	}
}

// A bounded source's watermark hint ends at EndOfInput once all is read;
// before that it is the next event's time less the disorder bound.
func TestEndOfInputWatermark(t *testing.T) {
	o, err := ParseSourceOptions(settings("table", "person", "max_events", "1000", "batch_size", "7", "paced", "false", "disorder", "1 second"))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := NewSource(o)
	rd, _ := s.Read(context.Background(), 0, 1)
	if want := BaseTime.UnixMicro() + EventOf(Person, 7)*1_000_000/10_000 - 1_000_000; !rd.HasWatermark || rd.Watermark != want {
		t.Fatalf("after one batch: watermark %d (%v), want %d", rd.Watermark, rd.HasWatermark, want)
	}
	rd, _ = s.Read(context.Background(), 0, 0)
	if !rd.HasWatermark || rd.Watermark != EndOfInput || rd.Backlog != 0 {
		t.Fatalf("at the end: watermark %d (%v), backlog %d", rd.Watermark, rd.HasWatermark, rd.Backlog)
	}
}
