package engine

import (
	"fmt"
	"strconv"
	"strings"
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
}

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

// inputTrimmed records that retention removed chunks of table rel's log
// (retention.go).
func (e *Engine) inputTrimmed(rel uint32, chunks int64) {
	r, ok := e.cat.RelationByOID(rel)
	if !ok || chunks <= 0 {
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
