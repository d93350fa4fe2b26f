package engine

import (
	"fmt"
	"sync"
	"time"

	"github.com/weir-sql/weir/catalog/auditlog"
	"github.com/weir-sql/weir/sql/sqlerr"
)

// Audit events are written by one goroutine, not by the session that
// records them: a login or a DDL statement only puts its event on a
// bounded queue. The writer waits up to auditLinger after the first event
// of a batch for more (up to auditBatchMax), then appends them in one
// transaction. Without the wait every DDL statement would cost two
// commits and two fsyncs (the catalog's, then its event's), the second
// delaying the next statement's; with it, the events of ten milliseconds
// share one. So an event is committed at most auditLinger plus one commit after
// it is recorded: that is all a kill -9 can lose. A read of audit_log
// does not wait (its flush marker ends the batch), and Close drains the
// queue before the store closes.
//
// A full queue makes the recorder wait for room rather than drop an
// event: an audit log that silently loses events under load is worse
// than a login that waits for a commit. An event the store refuses (the
// disk is full) is written to the server's log instead.
//
// A goroutine of its own applies the log's bounds, every auditTrimEvery:
// a long first trim (after the bounds were lowered) must not hold up the
// writer and, through its queue, the logins.

const (
	auditQueueSize = 4096
	auditBatchMax  = 1024
	auditLinger    = 10 * time.Millisecond
	auditTrimEvery = 10 * time.Second
)

// Defaults of the audit log's bounds (weir serve --audit-log-retention,
// --audit-log-max-rows).
const (
	DefaultAuditLogRetention = 30 * 24 * time.Hour
	DefaultAuditLogMaxRows   = 100000
)

type auditWriter struct {
	log  *auditlog.Log
	age  time.Duration // <= 0: no age limit
	rows int           // <= 0: no row cap

	// mu guards closed against the queue's close: recorders hold it
	// shared while they send.
	mu     sync.RWMutex
	closed bool
	queue  chan auditItem
	done   chan struct{} // closed when the writer has written its last batch
	// trimmed is closed when the trim loop has stopped (on e.closing).
	trimmed chan struct{}
}

// auditItem is one queued event, or (flushed set) a marker whose channel
// the writer closes once everything queued before it is written.
type auditItem struct {
	ev      auditlog.Event
	flushed chan struct{}
}

// startAuditWriter starts e's audit writer (Open).
func (e *Engine) startAuditWriter(age time.Duration, rows int) {
	if age == 0 {
		age = DefaultAuditLogRetention
	}
	if rows == 0 {
		rows = DefaultAuditLogMaxRows
	}
	e.auditLog = &auditWriter{log: auditlog.Open(e.store), age: age, rows: rows,
		queue: make(chan auditItem, auditQueueSize), done: make(chan struct{}), trimmed: make(chan struct{})}
	go e.auditLog.run(e)
	go e.auditTrimLoop()
}

// auditTrimLoop trims the audit log every auditTrimEvery until the engine
// closes.
func (e *Engine) auditTrimLoop() {
	defer close(e.auditLog.trimmed)
	tick := time.NewTicker(auditTrimEvery)
	defer tick.Stop()
	for {
		select {
		case <-e.closing:
			return
		case now := <-tick.C:
			e.trimAuditLog(now)
		}
	}
}

// stopAuditWriter writes what is queued and stops the writer (Close,
// after e.closing is closed: the trim loop stops too).
func (e *Engine) stopAuditWriter() {
	w := e.auditLog
	<-w.trimmed
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.queue)
	}
	w.mu.Unlock()
	<-w.done
}

// enqueue queues it; false once the writer has stopped.
func (w *auditWriter) enqueue(it auditItem) bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		return false
	}
	w.queue <- it
	return true
}

// flushAudit waits until every event recorded before it is in the store
// (a read of audit_log sees what its own session did).
func (e *Engine) flushAudit() {
	done := make(chan struct{})
	if e.auditLog.enqueue(auditItem{flushed: done}) {
		<-done
	}
}

func (w *auditWriter) run(e *Engine) {
	defer close(w.done)
	batch := make([]auditItem, 0, auditBatchMax)
	for it := range w.queue {
		batch = append(batch[:0], it)
		linger := time.NewTimer(auditLinger)
	gather:
		for it.flushed == nil && len(batch) < auditBatchMax {
			select {
			case next, ok := <-w.queue:
				if !ok {
					break gather // written now; the range then ends
				}
				it = next
				batch = append(batch, it)
			case <-linger.C:
				break gather
			}
		}
		linger.Stop()
		w.write(e, batch)
	}
}

// write appends batch's events in one transaction, then releases its
// flush markers.
func (w *auditWriter) write(e *Engine, batch []auditItem) {
	evs := make([]auditlog.Event, 0, len(batch))
	for _, it := range batch {
		if it.flushed == nil {
			evs = append(evs, it.ev)
		}
	}
	if err := w.log.Append(evs); err != nil {
		msg := sqlerr.From(err).Message
		for _, ev := range evs {
			e.logger().Warn("audit log: could not record an event: "+msg, auditAttrs(ev)...)
		}
	}
	for _, it := range batch {
		if it.flushed != nil {
			close(it.flushed)
		}
	}
}

// trimAuditLog applies the audit log's bounds and reports how many events
// it deleted.
func (e *Engine) trimAuditLog(now time.Time) int {
	w := e.auditLog
	var before time.Time
	if w.age > 0 {
		before = now.Add(-w.age)
	}
	n, err := w.log.Trim(before, w.rows)
	if err != nil {
		e.logger().Warn("audit log: could not trim it: " + sqlerr.From(err).Message)
		return 0
	}
	if n > 0 {
		e.logger().Info(fmt.Sprintf("audit log: deleted %d events past its retention", n),
			"audit_log_retention", w.age.String(), "audit_log_max_rows", w.rows)
	}
	return n
}

// TrimAuditLog applies the audit log's bounds now (tests; the writer does
// it every ten seconds) and returns how many events it deleted.
func (e *Engine) TrimAuditLog() int {
	e.flushAudit()
	return e.trimAuditLog(time.Now())
}
