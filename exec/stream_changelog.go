package exec

import (
	"math"
	"sync"
	"sync/atomic"
)

// changeHistory keeps the root's changes of the latest epochs a job
// published, so that a reader that holds the table as of an earlier
// published epoch (a SUBSCRIBE client) can catch up by applying them
// instead of re-reading and diffing the whole table. It is bounded: a
// reader further behind than it holds, or from before a discontinuity
// (the job was reset, restored from a snapshot, or re-ran logged epochs,
// whose changes start from another state than the one readers saw), gets
// ok false and must re-read the table. Changes are kept only while some
// reader follows the table (Follow): a table nobody subscribes to holds
// no history.
type changeHistory struct {
	mu sync.Mutex
	// base is the epoch the history starts after: epochs[i] is epoch
	// base+1+i. math.MaxInt64: nothing is valid.
	base   int64
	epochs [][]ChangeBatch
	rows   int64
	// followers counts the readers that may ask for changes.
	followers atomic.Int64
}

// History bounds: the epochs and the changed rows kept (at least the
// latest epoch's, however many).
const (
	maxHistoryEpochs = 256
	maxHistoryRows   = 1 << 16
)

func newChangeHistory() *changeHistory { return &changeHistory{base: math.MaxInt64} }

// record adds the changes of epoch, which readers will see published next.
func (h *changeHistory) record(epoch int64, changes []ChangeBatch) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.followers.Load() == 0 || h.base == math.MaxInt64 || epoch != h.base+1+int64(len(h.epochs)) {
		// Not the continuation of what is kept: only readers of epoch-1 or
		// later can use it, and none holds epoch-1 from this history.
		h.restartLocked(epoch)
		return
	}
	h.epochs = append(h.epochs, changes)
	for _, c := range changes {
		h.rows += c.Rows.NumRows()
	}
	for len(h.epochs) > 1 && (len(h.epochs) > maxHistoryEpochs || h.rows > maxHistoryRows) {
		for _, c := range h.epochs[0] {
			h.rows -= c.Rows.NumRows()
		}
		h.epochs[0] = nil
		h.epochs = h.epochs[1:]
		h.base++
	}
}

// restart forgets everything: the changes after epoch are the first a
// reader of epoch may apply (math.MaxInt64: none yet).
func (h *changeHistory) restart(epoch int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.restartLocked(epoch)
}

func (h *changeHistory) restartLocked(epoch int64) {
	h.base, h.epochs, h.rows = epoch, nil, 0
}

// since returns the changes of epochs from+1 .. to, in order, if it holds
// them all.
func (h *changeHistory) since(from, to int64) ([]ChangeBatch, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.base == math.MaxInt64 || from < h.base || to > h.base+int64(len(h.epochs)) || from > to {
		return nil, false
	}
	var out []ChangeBatch
	for e := from + 1; e <= to; e++ {
		out = append(out, h.epochs[e-h.base-1]...)
	}
	return out, true
}

// Follow registers a reader that will ask for changes (ChangesSince);
// the returned function unregisters it. A reader's first read is of the
// whole table (ReadPublished); the changes of the epochs after it are
// kept from then on.
func (j *StreamJob) Follow() (unfollow func()) {
	j.history.followers.Add(1)
	var once sync.Once
	return func() { once.Do(func() { j.history.followers.Add(-1) }) }
}

// ChangesSince returns the table's changes (its root's changelog) of the
// published epochs from+1 .. to, for a reader holding the table as
// published at epoch from; ok is false when the job no longer holds them
// all (the reader must re-read the table). Any goroutine may call it.
func (j *StreamJob) ChangesSince(from, to int64) (changes []ChangeBatch, ok bool) {
	return j.history.since(from, to)
}

// ReadPublished calls read with the epoch of the latest publication while
// no epoch commits or publishes, so that what read reads of the table
// (its stored rows, or Snapshot) is exactly that epoch's.
func (j *StreamJob) ReadPublished(read func(epoch int64) error) error {
	j.commitMu.RLock()
	defer j.commitMu.RUnlock()
	j.pubMu.Lock()
	epoch := j.pubEpoch
	j.pubMu.Unlock()
	return read(epoch)
}
