package nexmark

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weir-sql/weir/connector"
	"github.com/weir-sql/weir/connector/sourcetest"
	"github.com/weir-sql/weir/sql/sqlerr"
)

func gen(t testing.TB, cfg Config) *Generator {
	g, err := NewGenerator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func batch(t testing.TB, g *Generator, tb Table, first int64, n int) arrow.RecordBatch {
	b, err := NewBatch(g, tb, memory.DefaultAllocator, first, n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// RowsIn and EventOf agree: the k-th row's event is among the first
// RowsIn events, and the proportions are 1:3:46.
func TestEventNumbering(t *testing.T) {
	for _, tb := range []Table{Person, Auction, Bid} {
		seen := int64(0)
		for n := int64(0); n < 500; n++ {
			if seen < RowsIn(tb, n+1) {
				if got := EventOf(tb, seen); got != n {
					t.Fatalf("%s row %d: event %d, want %d", tb, seen, got, n)
				}
				seen++
			}
		}
	}
	if p, a, b := RowsIn(Person, 5000), RowsIn(Auction, 5000), RowsIn(Bid, 5000); p != 100 || a != 300 || b != 4600 {
		t.Fatalf("5000 events: %d people, %d auctions, %d bids", p, a, b)
	}
}

// The rows are a function of (seed, row): the same under any split into
// batches, different for another seed.
func TestDeterministicUnderSplits(t *testing.T) {
	cfg := Config{Seed: 7, EventsPerSecond: 1000, MaxEvents: 20_000, Disorder: 2 * time.Second, LateFraction: 0.1, LateBy: time.Minute}
	for _, tb := range []Table{Person, Auction, Bid} {
		g1, g2 := gen(t, cfg), gen(t, cfg)
		whole := batch(t, g1, tb, 0, 300)
		for _, split := range []int{1, 7, 64, 299} {
			var parts []arrow.RecordBatch
			for first := 0; first < 300; first += split {
				parts = append(parts, batch(t, g2, tb, int64(first), min(split, 300-first)))
			}
			// Compare column by column, row by row.
			row := 0
			for _, p := range parts {
				for i := 0; i < int(p.NumRows()); i, row = i+1, row+1 {
					for c := 0; c < int(p.NumCols()); c++ {
						if !array.SliceEqual(p.Column(c), int64(i), int64(i+1), whole.Column(c), int64(row), int64(row+1)) {
							t.Fatalf("%s split %d: row %d column %s differs", tb, split, row, Columns[tb][c].Name)
						}
					}
				}
			}
		}
		other := cfg
		other.Seed = 8
		if array.RecordEqual(batch(t, gen(t, other), tb, 0, 300), whole) {
			t.Errorf("%s: seeds 7 and 8 gave the same rows", tb)
		}
	}
}

// Event times advance at the rate from BaseTime; disorder stays within
// its bound; the late fraction is about what was asked.
func TestEventTimesDisorderLateness(t *testing.T) {
	const n = 46 * 1000
	dis, lateBy := 500*time.Millisecond, 30*time.Second
	g := gen(t, Config{Seed: 3, EventsPerSecond: 100, Disorder: dis, LateFraction: 0.05, LateBy: lateBy})
	b := batch(t, g, Bid, 0, n)
	ts := b.Column(5).(*array.Timestamp)
	late, disordered := 0, 0
	for k := 0; k < n; k++ {
		ev := EventOf(Bid, int64(k))
		want := BaseTime.UnixMicro() + ev*10_000
		if g.EventTime(ev) != want {
			t.Fatalf("event %d time %d, want %d", ev, g.EventTime(ev), want)
		}
		d := want - int64(ts.Value(k))
		switch {
		case d < 0:
			t.Fatalf("bid %d after its event time by %dus", k, -d)
		case d <= dis.Microseconds():
			if d > 0 {
				disordered++
			}
		case d <= (dis+lateBy).Microseconds()+dis.Microseconds():
			if d < (dis + lateBy).Microseconds() {
				t.Fatalf("late bid %d delayed %dus, less than disorder + late_by", k, d)
			}
			late++
		default:
			t.Fatalf("bid %d delayed %dus", k, d)
		}
	}
	if f := float64(late) / n; f < 0.04 || f > 0.06 {
		t.Errorf("late fraction %.4f, want about 0.05", f)
	}
	if disordered < n/2 {
		t.Errorf("only %d of %d bids disordered", disordered, n)
	}
	// Without the knobs every date_time is its event time.
	g0 := gen(t, Config{Seed: 3, EventsPerSecond: 100})
	ts0 := batch(t, g0, Bid, 0, 100).Column(5).(*array.Timestamp)
	for k := 0; k < 100; k++ {
		if int64(ts0.Value(k)) != g0.EventTime(EventOf(Bid, int64(k))) {
			t.Fatalf("ordered bid %d: %d", k, ts0.Value(k))
		}
	}
}

// Referential shape: bids name auctions and people that exist by then.
func TestReferences(t *testing.T) {
	g := gen(t, Config{Seed: 1, EventsPerSecond: 1000})
	b := batch(t, g, Bid, 0, 46*300)
	auc, bidder, price := b.Column(0).(*array.Int64), b.Column(1).(*array.Int64), b.Column(2).(*array.Int64)
	for k := 0; k < int(b.NumRows()); k++ {
		ev := EventOf(Bid, int64(k))
		if a := auc.Value(k); a < FirstID || a >= FirstID+RowsIn(Auction, ev) {
			t.Fatalf("bid %d (event %d) on auction %d of %d", k, ev, a, RowsIn(Auction, ev))
		}
		if p := bidder.Value(k); p < FirstID || p >= FirstID+RowsIn(Person, ev) {
			t.Fatalf("bid %d by person %d of %d", k, p, RowsIn(Person, ev))
		}
		if price.Value(k) <= 0 {
			t.Fatalf("bid %d price %d", k, price.Value(k))
		}
	}
	a := batch(t, g, Auction, 0, 900)
	seller, ini, res := a.Column(7).(*array.Int64), a.Column(3).(*array.Int64), a.Column(4).(*array.Int64)
	for k := 0; k < 900; k++ {
		if s := seller.Value(k); s < FirstID || s >= FirstID+RowsIn(Person, EventOf(Auction, int64(k))) {
			t.Fatalf("auction %d by seller %d", k, s)
		}
		if res.Value(k) <= ini.Value(k) {
			t.Fatalf("auction %d reserve %d <= initial bid %d", k, res.Value(k), ini.Value(k))
		}
	}
}

func TestSourceConformance(t *testing.T) {
	for _, tb := range []string{"person", "auction", "bid"} {
		t.Run(tb, func(t *testing.T) {
			sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
				o, err := ParseOptions([]connector.Setting{{Name: "table", Value: tb}, {Name: "max_events", Value: "5000"}, {Name: "batch_size", Value: "13"},
					{Name: "seed", Value: "5"}, {Name: "disorder", Value: "1 second"}})
				if err != nil {
					t.Fatal(err)
				}
				s, err := NewSource(o)
				if err != nil {
					t.Fatal(err)
				}
				return sourcetest.Fixture{Source: s}
			})
			sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
				o, err := ParseOptions([]connector.Setting{{Name: "table", Value: tb}, {Name: "max_events", Value: "5000"}, {Name: "batch_size", Value: "13"},
					{Name: "seed", Value: "5"}, {Name: "disorder", Value: "1 second"}})
				if err != nil {
					t.Fatal(err)
				}
				s, err := NewSource(o)
				if err != nil {
					t.Fatal(err)
				}
				return sourcetest.Fixture{Source: connector.Prefetch(s)} // reads run ahead
			})
		})
	}
}

// A restarted source (a new one, as after a crash) reads from any offset
// what the first one read there.
func TestRestartFromAnyOffset(t *testing.T) {
	settings := []connector.Setting{{Name: "table", Value: "bid"}, {Name: "max_events", Value: "3000"}, {Name: "batch_size", Value: "100"}, {Name: "seed", Value: "9"}}
	open := func() *Source {
		o, err := ParseOptions(settings)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewSource(o)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	all, err := open().Read(context.Background(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rows := RowsIn(Bid, 3000); all.Next != (rows+99)/100 || all.Batches[len(all.Batches)-1].NumRows() != rows%100 {
		t.Fatalf("3000 events: %d batches, last of %d rows", all.Next, all.Batches[len(all.Batches)-1].NumRows())
	}
	for off := int64(0); off < all.Next; off += 3 {
		rd, err := open().Read(context.Background(), off, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range rd.Batches {
			if !array.RecordEqual(b, all.Batches[off+int64(i)]) {
				t.Fatalf("restart at %d: batch %d differs", off, off+int64(i))
			}
		}
		if !rd.HasWatermark || rd.Watermark != BaseTime.UnixMicro()+EventOf(Bid, rd.Next*100)*1_000_000/10_000 {
			if rd.Next < all.Next {
				t.Errorf("restart at %d: watermark %d (%v)", off, rd.Watermark, rd.HasWatermark)
			}
		}
	}
}

// A paced source makes whole batches readable as the clock passes.
func TestPaced(t *testing.T) {
	o, err := ParseOptions([]connector.Setting{{Name: "table", Value: "bid"}, {Name: "events_per_second", Value: "1000"}, {Name: "batch_size", Value: "46"}, {Name: "paced", Value: "true"}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSource(o)
	if err != nil {
		t.Fatal(err)
	}
	clock := s.opened
	s.now = func() time.Time { return clock }
	if rd, _ := s.Read(context.Background(), 0, 0); len(rd.Batches) != 0 {
		t.Fatalf("at open: %d batches", len(rd.Batches))
	}
	clock = clock.Add(time.Second) // 1000 events: 20 epochs of 46 bids
	rd, _ := s.Read(context.Background(), 0, 0)
	if rd.Next != 20 || rd.Backlog != 0 {
		t.Fatalf("after 1s: Next %d, backlog %d", rd.Next, rd.Backlog)
	}
	clock = clock.Add(time.Second)
	if rd, _ := s.Read(context.Background(), 0, 5); rd.Next != 5 || rd.Backlog != 35*46 {
		t.Fatalf("after 2s, 5 batches: Next %d, backlog %d", rd.Next, rd.Backlog)
	}
}

func TestOptionErrors(t *testing.T) {
	for _, bad := range [][]connector.Setting{
		{{Name: "table", Value: "bids"}},
		{{Name: "max_events", Value: "10"}}, // no table
		{{Name: "table", Value: "bid"}, {Name: "max_events", Value: "ten"}},
		{{Name: "table", Value: "bid"}, {Name: "max_events", Value: "-1"}},
		{{Name: "table", Value: "bid"}, {Name: "events_per_second", Value: "0"}},
		{{Name: "table", Value: "bid"}, {Name: "batch_size", Value: "0"}},
		{{Name: "table", Value: "bid"}, {Name: "late_fraction", Value: "1.5"}},
		{{Name: "table", Value: "bid"}, {Name: "disorder", Value: "soon"}},
		{{Name: "table", Value: "bid"}, {Name: "sed", Value: "1"}},
		{{Name: "table", Value: "bid"}, {Name: "connector", Value: "kafka"}},
	} {
		if _, err := ParseOptions(bad); sqlerr.Code(err) != sqlerr.InvalidParameterValue {
			t.Errorf("%v: %v, want 22023", bad, err)
		}
	}
	o, err := ParseOptions([]connector.Setting{{Name: "connector", Value: "nexmark"}, {Name: "table", Value: "Auction"}, {Name: "events_per_second", Value: "100000"},
		{Name: "max_events", Value: "1000000"}, {Name: "seed", Value: "1"}, {Name: "disorder", Value: "5 seconds"}, {Name: "late_fraction", Value: "0.01"}, {Name: "late_by", Value: "1 minute"}})
	if err != nil || o.Table != Auction || o.Config.EventsPerSecond != 100000 || o.Config.MaxEvents != 1000000 ||
		o.Config.Disorder != 5*time.Second || o.Config.LateFraction != 0.01 || o.Config.LateBy != time.Minute {
		t.Fatalf("%+v, %v", o, err)
	}
}
