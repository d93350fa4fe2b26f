package engine

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/weir-sql/weir/catalog/eventlog"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// The event log is bounded twice: events older than its retention go, and
// so do the oldest past its row cap (weir serve --event-log-retention,
// --event-log-max-rows). The retention loop trims it every
// eventLogTrimEvery; a trim that deleted events records a retention_trim
// event saying how many and why, so the log says where its history ends.

// eventLogLimit is the event log's bounds.
type eventLogLimit struct {
	age      time.Duration // <= 0: no age limit
	rows     int           // <= 0: no row cap
	lastTrim time.Time

	// Input retention may trim a busy table every second: its events are
	// gathered, one per table per inputTrimEvery at most, so that they do
	// not crowd the lifecycle events out of the capped log.
	trimsMu sync.Mutex
	trims   map[uint32]*inputTrims
}

// inputTrims are a table's input trims not yet recorded.
type inputTrims struct {
	chunks   int64
	recorded time.Time // when its latest event was written
}

// inputTrimEvery is how often a table's input trims are recorded at most.
const inputTrimEvery = time.Minute

func newEventLogLimit(age time.Duration, rows int) eventLogLimit {
	if age == 0 {
		age = DefaultEventLogRetention
	}
	if rows == 0 {
		rows = DefaultEventLogMaxRows
	}
	return eventLogLimit{age: age, rows: rows}
}

// trimEventLog applies the event log's bounds, at most every
// eventLogTrimEvery (the retention loop's goroutine calls it).
func (e *Engine) trimEventLog(now time.Time) {
	e.flushInputTrims(now, false)
	if now.Sub(e.eventLog.lastTrim) < eventLogTrimEvery {
		return
	}
	e.eventLog.lastTrim = now
	e.trimEventLogNow(now)
}

// trimEventLogNow applies the event log's bounds now and reports how many
// events it deleted.
func (e *Engine) trimEventLogNow(now time.Time) int {
	var before time.Time
	if e.eventLog.age > 0 {
		before = now.Add(-e.eventLog.age)
	}
	n, err := eventlog.Trim(e.store, before, e.eventLog.rows)
	if err != nil {
		e.logger().Warn("event log: could not trim it: "+sqlerr.From(err).Message, "event", eventlog.KindRetention)
		return 0
	}
	if n > 0 {
		kv := map[string]any{"deleted_events": n}
		if e.eventLog.age > 0 {
			kv["retention"] = e.eventLog.age.String()
		}
		if e.eventLog.rows > 0 {
			kv["max_rows"] = e.eventLog.rows
		}
		e.emit(eventlog.Event{Kind: eventlog.KindRetention, Name: "event_log",
			Message: fmt.Sprintf("event log: deleted %d events past its retention", n), Details: details(kv)})
	}
	return n
}

// inputTrimmed notes that retention removed chunks of table rel's log
// (retention.go); the event is written at once unless the table's
// previous one is younger than inputTrimEvery, and then by a later trim or
// the retention loop.
func (e *Engine) inputTrimmed(rel uint32, chunks int64) {
	if chunks <= 0 {
		return
	}
	l := &e.eventLog
	l.trimsMu.Lock()
	if l.trims == nil {
		l.trims = map[uint32]*inputTrims{}
	}
	p := l.trims[rel]
	if p == nil {
		p = &inputTrims{}
		l.trims[rel] = p
	}
	p.chunks += chunks
	l.trimsMu.Unlock()
	e.flushInputTrims(time.Now(), false)
}

// flushInputTrims writes the gathered input trims whose table's previous
// event is at least inputTrimEvery old (all: every one).
func (e *Engine) flushInputTrims(now time.Time, all bool) {
	l := &e.eventLog
	type due struct {
		rel    uint32
		chunks int64
	}
	var out []due
	l.trimsMu.Lock()
	for rel, p := range l.trims {
		if p.chunks > 0 && (all || now.Sub(p.recorded) >= inputTrimEvery) {
			out = append(out, due{rel, p.chunks})
			p.chunks, p.recorded = 0, now
		}
	}
	l.trimsMu.Unlock()
	for _, d := range out {
		e.recordInputTrim(d.rel, d.chunks)
	}
}

// recordInputTrim writes the event of chunks removed from rel's log.
func (e *Engine) recordInputTrim(rel uint32, chunks int64) {
	r, ok := e.cat.RelationByOID(rel)
	if !ok {
		return
	}
	kv := map[string]any{"deleted_chunks": chunks, "retention": retentionOf(r).String()}
	e.emit(eventlog.Event{Object: rel, Name: qualifiedName(r.Schema, r.Name), Kind: eventlog.KindRetention,
		Message: fmt.Sprintf("table %s: retention removed %d chunks of its input log", qualifiedName(r.Schema, r.Name), chunks), Details: details(kv)})
}

// ParseRetention reads a retention such as "7d", "12h", "90m", "30s" or a
// Go duration ("1h30m"); "0", "off" and "forever" are no limit (-1).
func ParseRetention(s string) (time.Duration, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	switch t {
	case "0", "off", "forever", "none":
		return -1, nil
	}
	if d, ok := strings.CutSuffix(t, "d"); ok {
		n, err := strconv.ParseFloat(d, 64)
		if err == nil && n > 0 {
			return time.Duration(n * float64(24*time.Hour)), nil
		}
	}
	d, err := time.ParseDuration(t)
	if err != nil || d <= 0 {
		return 0, sqlerr.New(sqlerr.InvalidParameterValue, "invalid retention %q: expected a duration such as 7d, 12h or 30m", s)
	}
	return d, nil
}

// TrimEventLog applies the event log's bounds now (tests; the retention
// loop does it every ten seconds) and returns how many events it deleted.
func (e *Engine) TrimEventLog() int { return e.trimEventLogNow(time.Now()) }
