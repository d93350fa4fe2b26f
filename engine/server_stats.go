package engine

import (
	"sync/atomic"
	"time"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/state"
)

// The server-wide figures of /metrics (ServerStats): connections,
// statements, errors by SQLSTATE class, commit and fsync latency, store
// size. Sessions count into serverCounters with single atomic adds (no
// lock on a statement's path); Monitor reads them at scrape time.

// serverCounters are the engine's running counts (Engine.stats).
type serverCounters struct {
	connsOpened atomic.Int64
	statements  atomic.Int64
	// errors is indexed by SQLSTATE class (errorClassIndex): a class is
	// two characters of 0-9A-Z, so every class has its slot and counting
	// needs no map and no lock.
	errors [errorClasses + 1]atomic.Int64
	commit latencyHistogram
	fsync  latencyHistogram
}

// The store reports its commits and group fsyncs to serverCounters.
var _ state.Observer = (*serverCounters)(nil)

func (c *serverCounters) CommitDone(d time.Duration) { c.commit.observe(d) }
func (c *serverCounters) SyncDone(d time.Duration)   { c.fsync.observe(d) }

// errorClasses is the number of two-character classes of 0-9A-Z; the
// slot after them counts codes of any other form.
const errorClasses = 36 * 36

func classDigit(b byte) (int, bool) {
	switch {
	case b >= '0' && b <= '9':
		return int(b - '0'), true
	case b >= 'A' && b <= 'Z':
		return int(b-'A') + 10, true
	}
	return 0, false
}

const classAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// errorClassIndex is code's slot in serverCounters.errors.
func errorClassIndex(code string) int {
	if len(code) < 2 {
		return errorClasses
	}
	a, ok1 := classDigit(code[0])
	b, ok2 := classDigit(code[1])
	if !ok1 || !ok2 {
		return errorClasses
	}
	return a*36 + b
}

// errorClassName is the class of slot i ("??" for the slot of malformed
// codes).
func errorClassName(i int) string {
	if i >= errorClasses {
		return "??"
	}
	return string([]byte{classAlphabet[i/36], classAlphabet[i%36]})
}

// countStatement counts a client's statement as it starts (internal
// sessions, which replan streaming tables at start, are not clients).
func (s *Session) countStatement() {
	if s.backend != nil {
		s.eng.stats.statements.Add(1)
	}
}

// countRefused counts a statement that failed before it could run (at
// Parse: a syntax error, an unknown table), as a statement and as an
// error, so that the errors are always a part of the statements.
func (s *Session) countRefused(err error) {
	s.countStatement()
	s.countError(err)
}

// countError counts an error a client's statement ends with (nil: none).
func (s *Session) countError(err error) {
	if err == nil || s.backend == nil {
		return
	}
	s.eng.stats.errors[errorClassIndex(sqlerr.Code(err))].Add(1)
}

// latencyBounds are the upper bounds of the latency histograms' buckets:
// from a commit that only reached the page cache (tens of µs) to a disk
// that stalls for seconds.
var latencyBounds = [...]time.Duration{
	50 * time.Microsecond, 100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond, 10 * time.Millisecond,
	25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond,
	500 * time.Millisecond, time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second,
}

// latencyHistogram counts durations into latencyBounds' buckets (the last
// slot: above every bound) with atomic adds.
type latencyHistogram struct {
	buckets [len(latencyBounds) + 1]atomic.Uint64
	sum     atomic.Int64 // nanoseconds
}

func (h *latencyHistogram) observe(d time.Duration) {
	i := 0
	for i < len(latencyBounds) && d > latencyBounds[i] {
		i++
	}
	h.buckets[i].Add(1)
	h.sum.Add(int64(d))
}

// LatencyHistogram is a distribution of durations, as Prometheus' histogram
// has it: Cumulative[i] durations were at most Bounds[i] seconds; Count is
// all of them (the +Inf bucket) and Sum their total in seconds.
type LatencyHistogram struct {
	Bounds     []float64
	Cumulative []uint64
	Count      uint64
	Sum        float64
}

// snapshot reads h. The buckets are read one by one while commits go on,
// so Count is taken as the sum of what was read: the buckets and the
// count always agree, and Sum may lead or trail them by a commit or two.
func (h *latencyHistogram) snapshot() LatencyHistogram {
	out := LatencyHistogram{Bounds: make([]float64, len(latencyBounds)), Cumulative: make([]uint64, len(latencyBounds))}
	var n uint64
	for i, b := range latencyBounds {
		n += h.buckets[i].Load()
		out.Bounds[i] = b.Seconds()
		out.Cumulative[i] = n
	}
	out.Count = n + h.buckets[len(latencyBounds)].Load()
	out.Sum = time.Duration(h.sum.Load()).Seconds()
	return out
}

// serverStats are the server-wide figures as they are now.
func (e *Engine) serverStats() ServerStats {
	e.mu.Lock()
	conns := int64(len(e.sessions))
	e.mu.Unlock()
	st := ServerStats{
		Connections:       conns,
		ConnectionsOpened: e.stats.connsOpened.Load(),
		Queries:           e.stats.statements.Load(),
		Errors:            map[string]int64{},
		CommitLatency:     e.stats.commit.snapshot(),
		FsyncLatency:      e.stats.fsync.snapshot(),
	}
	for i := range e.stats.errors {
		if n := e.stats.errors[i].Load(); n > 0 {
			st.Errors[errorClassName(i)] = n
		}
	}
	st.StoreBytes = e.store.FileBytes()
	return st
}
