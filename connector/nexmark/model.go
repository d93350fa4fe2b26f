// Package nexmark is a deterministic generator of the Nexmark benchmark's
// events (people, auctions and bids of an online auction site) and a
// connector.Source over it.
//
// The model follows the benchmark's well-known shape (Beam's and Flink's
// generators; this code is weir's own): the global event sequence is cut
// into epochs of 50 events, of which the first is a person, the next 3 are
// auctions and the last 46 are bids (proportions 1:3:46). Every field of
// event n is a pure function of (seed, n): the event's own pseudo-random
// stream is seeded by a hash of the two, so any event can be generated
// without generating those before it, and a table's rows come out the same
// under any split into batches or after any restart.
//
// Event time advances from BaseTime at EventsPerSecond of event time
// (event n happens at BaseTime + n/rate), not at the wall clock's pace, so
// it is deterministic too. Disorder shifts each event's date_time back by
// a pseudo-random delay of at most Disorder; a LateFraction of the events
// is shifted back by Disorder + LateBy more, behind any watermark that
// allows only Disorder.
package nexmark

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/types"
)

// Table is one of the three Nexmark relations.
type Table int

const (
	Person Table = iota
	Auction
	Bid
)

func (t Table) String() string { return [...]string{"person", "auction", "bid"}[t] }

// TableByName is the table called name ("person", "auction", "bid").
func TableByName(name string) (Table, bool) {
	switch name {
	case "person":
		return Person, true
	case "auction":
		return Auction, true
	case "bid":
		return Bid, true
	}
	return 0, false
}

// Column is a column of a Nexmark table.
type Column struct {
	Name string
	T    types.T
}

// Columns are the tables' columns, RisingWave's snake_case spelling of
// the benchmark's schema: ids and money as bigint, times as timestamp
// (without time zone, as Flink's TIMESTAMP(3) and RisingWave's TIMESTAMP).
var Columns = [...][]Column{
	Person: {{"id", types.Int8}, {"name", types.Text}, {"email_address", types.Text}, {"credit_card", types.Text},
		{"city", types.Text}, {"state", types.Text}, {"date_time", types.Timestamp}, {"extra", types.Text}},
	Auction: {{"id", types.Int8}, {"item_name", types.Text}, {"description", types.Text}, {"initial_bid", types.Int8},
		{"reserve", types.Int8}, {"date_time", types.Timestamp}, {"expires", types.Timestamp}, {"seller", types.Int8},
		{"category", types.Int8}, {"extra", types.Text}},
	Bid: {{"auction", types.Int8}, {"bidder", types.Int8}, {"price", types.Int8}, {"channel", types.Text},
		{"url", types.Text}, {"date_time", types.Timestamp}, {"extra", types.Text}},
}

// Schema is the Arrow schema of table t's batches.
func Schema(t Table) *arrow.Schema {
	cols := Columns[t]
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.T.Arrow(), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// The epoch of 50 events: person at 0, auctions at 1..3, bids at 4..49.
const (
	epochEvents   = 50
	auctionsEpoch = 3
	bidsEpoch     = 46
	firstAuction  = 1 // position of the first auction in an epoch
	firstBid      = 4 // position of the first bid in an epoch
	// FirstID is the first person and auction id, as in the benchmark.
	FirstID = 1000
)

// EventOf is the global event number of table t's k-th row (from 0).
func EventOf(t Table, k int64) int64 {
	switch t {
	case Person:
		return k * epochEvents
	case Auction:
		return k/auctionsEpoch*epochEvents + firstAuction + k%auctionsEpoch
	default:
		return k/bidsEpoch*epochEvents + firstBid + k%bidsEpoch
	}
}

// RowsIn is how many rows of table t the first events events hold.
func RowsIn(t Table, events int64) int64 {
	if events <= 0 {
		return 0
	}
	e, rem := events/epochEvents, events%epochEvents
	switch t {
	case Person:
		return e + min(rem, 1)
	case Auction:
		return e*auctionsEpoch + min(max(rem-firstAuction, 0), auctionsEpoch)
	default:
		return e*bidsEpoch + max(rem-firstBid, 0)
	}
}
