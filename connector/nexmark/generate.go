package nexmark

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// BaseTime is the event time of event 0: 2015-07-15 00:00:00, the
// benchmark's customary base.
var BaseTime = time.Date(2015, 7, 15, 0, 0, 0, 0, time.UTC)

// maxEventSeconds bounds the event time a bounded generator reaches.
const maxEventSeconds = 100_000_000_000

// Config is what the rows depend on. Two generators of equal Configs give
// equal rows.
type Config struct {
	Seed            int64
	EventsPerSecond int64 // of event time; > 0
	// MaxEvents bounds the global event sequence (all three tables'
	// events); 0 is unbounded.
	MaxEvents int64
	// Disorder is the bound of the delay subtracted from each event's
	// time; LateFraction (0..1) of the events are LateBy later still.
	Disorder     time.Duration
	LateFraction float64
	LateBy       time.Duration
}

// DefaultConfig is the configuration when no option says otherwise.
func DefaultConfig() Config {
	return Config{Seed: 1, EventsPerSecond: 10_000, LateBy: time.Minute}
}

// Generator produces rows of a Config. It holds no state that reading
// changes: AppendRows may be called for any range in any order.
type Generator struct {
	cfg         Config
	base        int64 // BaseTime in microseconds
	disorderUS  uint64
	lateUS      int64
	lateCutoff  uint64 // an event is late when its draw is below this
	perEventNum int64  // event time of event n: base + n*1e6/rate
}

// NewGenerator checks cfg and returns its generator.
func NewGenerator(cfg Config) (*Generator, error) {
	if cfg.EventsPerSecond <= 0 {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"events_per_second\": %d", cfg.EventsPerSecond).
			WithHint("Use a positive integer.")
	}
	if cfg.MaxEvents < 0 {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"max_events\": %d", cfg.MaxEvents).
			WithHint("Use a non-negative integer (0 is unbounded).")
	}
	// Event times must stay timestamps: up to about 3000 years of event
	// time after 2015.
	if cfg.MaxEvents/cfg.EventsPerSecond > maxEventSeconds {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"max_events\": %d", cfg.MaxEvents).
			WithHint(fmt.Sprintf("At %d events per second of event time, max_events can be at most %d (timestamps run out).", cfg.EventsPerSecond, cfg.EventsPerSecond*maxEventSeconds))
	}
	if !(cfg.LateFraction >= 0 && cfg.LateFraction <= 1) {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "invalid value for option \"late_fraction\": %g", cfg.LateFraction).
			WithHint("Use a fraction between 0 and 1.")
	}
	if cfg.Disorder < 0 || cfg.LateBy < 0 {
		return nil, sqlerr.New(sqlerr.InvalidParameterValue, "disorder and late_by must not be negative")
	}
	g := &Generator{cfg: cfg, base: BaseTime.UnixMicro(), disorderUS: uint64(cfg.Disorder / time.Microsecond),
		lateUS: int64(cfg.LateBy / time.Microsecond)}
	g.lateCutoff = uint64(cfg.LateFraction * (1 << 32))
	if cfg.LateFraction >= 1 {
		g.lateCutoff = 1 << 32
	}
	return g, nil
}

// Config is the generator's configuration.
func (g *Generator) Config() Config { return g.cfg }

// Rows is how many rows table t has (-1: unbounded).
func (g *Generator) Rows(t Table) int64 {
	if g.cfg.MaxEvents == 0 {
		return -1
	}
	return RowsIn(t, g.cfg.MaxEvents)
}

// EventTime is event n's time in microseconds before disorder: base +
// n/rate seconds, computed without overflowing for any n below 2^63/1e6
// seconds' worth.
func (g *Generator) EventTime(n int64) int64 {
	r := g.cfg.EventsPerSecond
	return g.base + n/r*1_000_000 + n%r*1_000_000/r
}

// rng is one event's pseudo-random stream (splitmix64), seeded by a hash
// of (seed, event number): the same event draws the same values wherever
// and whenever it is generated.
type rng uint64

func newRNG(seed, n int64) rng {
	return rng(mix(uint64(seed)*0x9E3779B97F4A7C15 ^ uint64(n)))
}

func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func (r *rng) next() uint64 {
	*r += 0x9E3779B97F4A7C15
	return mix(uint64(*r))
}

// below is a draw in [0, n).
func (r *rng) below(n uint64) uint64 { return r.next() % n }

// dateTime is event n's date_time: its event time less its delay. The
// delay is drawn first from the event's stream, so that it does not depend
// on the table's other fields.
func (g *Generator) dateTime(n int64, r *rng) int64 {
	t := g.EventTime(n)
	d := r.next()
	if g.disorderUS > 0 {
		t -= int64(d % (g.disorderUS + 1))
	}
	if uint64(uint32(d>>32)) < g.lateCutoff {
		t -= int64(g.disorderUS) + g.lateUS
	}
	return t
}

var (
	firstNames = [...]string{"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"}
	lastNames  = [...]string{"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"}
	cities     = [...]string{"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"}
	states     = [...]string{"AZ", "CA", "ID", "OR", "WA", "WY"}
	channels   = [...]string{"Google", "Facebook", "Baidu", "Apple"}
	pow10      = [...]uint64{10, 100, 1000, 10_000, 100_000, 1_000_000}
)

const (
	// inFlight bounds how far back a bid's auction and an auction's seller
	// or a bid's bidder are drawn: most activity is on recent entities.
	inFlightAuctions = 100
	activePeople     = 1000
	categories       = 5
	firstCategory    = 10
)

// price is a money amount spread over six orders of magnitude.
func price(r *rng) int64 {
	v := r.next()
	return int64(1 + (v>>8)%pow10[v%uint64(len(pow10))])
}

// letters appends k pseudo-random lower-case letters to buf.
func letters(buf []byte, r *rng, k int) []byte {
	v := r.next()
	for i := 0; i < k; i++ {
		if i%12 == 11 {
			v = r.next()
		}
		buf = append(buf, byte('a'+v%26))
		v /= 26
	}
	return buf
}

// digits appends k pseudo-random decimal digits to buf.
func digits(buf []byte, r *rng, k int) []byte {
	v := r.next()
	for i := 0; i < k; i++ {
		if i%18 == 17 {
			v = r.next()
		}
		buf = append(buf, byte('0'+v%10))
		v /= 10
	}
	return buf
}

// recent draws an id among the last window of count entities (ids from
// FirstID).
func recent(r *rng, count, window int64) int64 {
	return FirstID + count - 1 - int64(r.below(uint64(min(count, window))))
}

// avgBytes is about how long each string column's values are, to reserve
// their bytes once per batch.
var avgBytes = [...][]int{
	Person:  {0, 12, 17, 19, 8, 2, 0, 0},
	Auction: {0, 12, 30, 0, 0, 0, 0, 0, 0, 0},
	Bid:     {0, 0, 0, 6, 52, 0, 0},
}

// AppendRows appends table t's rows first..first+n-1 to bs, builders of
// Schema(t)'s columns (Int64Builder, StringBuilder, TimestampBuilder in
// column order). Rows past MaxEvents are not the caller's to ask for.
func (g *Generator) AppendRows(t Table, first int64, n int, bs []array.Builder) error {
	if len(bs) != len(Columns[t]) {
		return sqlerr.New(sqlerr.InternalError, "nexmark %s: %d builders for %d columns", t, len(bs), len(Columns[t]))
	}
	for i, b := range bs {
		b.Reserve(n)
		if sb, ok := b.(*array.StringBuilder); ok {
			sb.ReserveData(n * avgBytes[t][i])
		}
	}
	var ok bool
	switch t {
	case Person:
		ok = g.appendPeople(first, n, bs)
	case Auction:
		ok = g.appendAuctions(first, n, bs)
	default:
		ok = g.appendBids(first, n, bs)
	}
	if !ok {
		return sqlerr.New(sqlerr.InternalError, "nexmark %s: builders of the wrong types", t)
	}
	return nil
}

func (g *Generator) appendPeople(first int64, n int, bs []array.Builder) bool {
	id, ok1 := bs[0].(*array.Int64Builder)
	name, ok2 := bs[1].(*array.StringBuilder)
	email, ok3 := bs[2].(*array.StringBuilder)
	card, ok4 := bs[3].(*array.StringBuilder)
	city, ok5 := bs[4].(*array.StringBuilder)
	state, ok6 := bs[5].(*array.StringBuilder)
	ts, ok7 := bs[6].(*array.TimestampBuilder)
	extra, ok8 := bs[7].(*array.StringBuilder)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && ok8) {
		return false
	}
	var buf [64]byte
	for k := first; k < first+int64(n); k++ {
		ev := EventOf(Person, k)
		r := newRNG(g.cfg.Seed, ev)
		ts.UnsafeAppend(arrow.Timestamp(g.dateTime(ev, &r)))
		id.UnsafeAppend(FirstID + k)
		b := append(buf[:0], firstNames[r.below(uint64(len(firstNames)))]...)
		b = append(b, ' ')
		b = append(b, lastNames[r.below(uint64(len(lastNames)))]...)
		name.BinaryBuilder.Append(b)
		b = letters(buf[:0], &r, 7)
		b = append(b, '@')
		b = letters(b, &r, 5)
		b = append(b, ".com"...)
		email.BinaryBuilder.Append(b)
		b = buf[:0]
		for i := 0; i < 4; i++ {
			if i > 0 {
				b = append(b, ' ')
			}
			b = digits(b, &r, 4)
		}
		card.BinaryBuilder.Append(b)
		city.Append(cities[r.below(uint64(len(cities)))])
		state.Append(states[r.below(uint64(len(states)))])
		extra.Append("")
	}
	return true
}

func (g *Generator) appendAuctions(first int64, n int, bs []array.Builder) bool {
	id, ok1 := bs[0].(*array.Int64Builder)
	item, ok2 := bs[1].(*array.StringBuilder)
	desc, ok3 := bs[2].(*array.StringBuilder)
	initial, ok4 := bs[3].(*array.Int64Builder)
	reserve, ok5 := bs[4].(*array.Int64Builder)
	ts, ok6 := bs[5].(*array.TimestampBuilder)
	expires, ok7 := bs[6].(*array.TimestampBuilder)
	seller, ok8 := bs[7].(*array.Int64Builder)
	category, ok9 := bs[8].(*array.Int64Builder)
	extra, ok10 := bs[9].(*array.StringBuilder)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && ok8 && ok9 && ok10) {
		return false
	}
	// An auction stays open for up to twice the event time of the
	// in-flight auctions' worth of events.
	span := g.EventTime(2*inFlightAuctions*epochEvents/auctionsEpoch) - g.base + 1
	var buf [64]byte
	for k := first; k < first+int64(n); k++ {
		ev := EventOf(Auction, k)
		r := newRNG(g.cfg.Seed, ev)
		dt := g.dateTime(ev, &r)
		ts.UnsafeAppend(arrow.Timestamp(dt))
		id.UnsafeAppend(FirstID + k)
		item.BinaryBuilder.Append(letters(buf[:0], &r, 12))
		desc.BinaryBuilder.Append(letters(buf[:0], &r, 30))
		ib := price(&r)
		initial.UnsafeAppend(ib)
		reserve.UnsafeAppend(ib + price(&r))
		expires.UnsafeAppend(arrow.Timestamp(g.EventTime(ev) + 1 + int64(r.below(uint64(span)))))
		seller.UnsafeAppend(recent(&r, RowsIn(Person, ev+1), activePeople))
		category.UnsafeAppend(firstCategory + int64(r.below(categories)))
		extra.Append("")
	}
	return true
}

func (g *Generator) appendBids(first int64, n int, bs []array.Builder) bool {
	auction, ok1 := bs[0].(*array.Int64Builder)
	bidder, ok2 := bs[1].(*array.Int64Builder)
	priceB, ok3 := bs[2].(*array.Int64Builder)
	channel, ok4 := bs[3].(*array.StringBuilder)
	url, ok5 := bs[4].(*array.StringBuilder)
	ts, ok6 := bs[5].(*array.TimestampBuilder)
	extra, ok7 := bs[6].(*array.StringBuilder)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) {
		return false
	}
	const prefix = "https://www.nexmark.com/"
	const suffix = "/item.htm?query=1"
	var buf [64]byte
	for k := first; k < first+int64(n); k++ {
		ev := EventOf(Bid, k)
		r := newRNG(g.cfg.Seed, ev)
		ts.UnsafeAppend(arrow.Timestamp(g.dateTime(ev, &r)))
		// A bid's epoch holds all three of its auctions already.
		auctions := (ev/epochEvents + 1) * auctionsEpoch
		auction.UnsafeAppend(recent(&r, auctions, inFlightAuctions))
		bidder.UnsafeAppend(recent(&r, RowsIn(Person, ev+1), activePeople))
		priceB.UnsafeAppend(price(&r))
		c := r.below(uint64(len(channels)))
		channel.Append(channels[c])
		b := append(buf[:0], prefix...)
		b = letters(b, &r, 5)
		b = append(b, '/')
		b = letters(b, &r, 5)
		b = append(b, suffix...)
		url.BinaryBuilder.Append(b)
		extra.Append("")
	}
	return true
}
