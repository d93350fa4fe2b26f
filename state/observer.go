package state

import (
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Observer is told how long the store's durable steps take, for the
// server's latency histograms (/metrics). The store does not keep the
// figures itself, so that state imports no metrics library.
//
// Contract: both methods are called on the committing goroutine, after the
// step returned, and must not block or call back into the store; they may
// be called from many goroutines at once. CommitDone covers a successful
// update Txn.Commit as the caller waited for it (parts, the group sync
// under SyncGroup, Badger's own sync under SyncEachWrite); SyncDone covers
// one group fsync (SyncGroup only), successful or not, whichever committer
// ran it.
type Observer interface {
	CommitDone(d time.Duration)
	SyncDone(d time.Duration)
}

// observerBox holds an Observer behind an atomic pointer: commits read it
// without a lock.
type observerBox struct{ o Observer }

// SetObserver sets the store's observer (nil: none). It may be called while
// commits run; a commit in flight reports to the observer it read.
func (s *Store) SetObserver(o Observer) {
	if o == nil {
		s.observer.Store(nil)
		return
	}
	s.observer.Store(&observerBox{o: o})
}

func (s *Store) observeCommit(start time.Time) {
	if b := s.observer.Load(); b != nil {
		b.o.CommitDone(time.Since(start))
	}
}

// timedSync is the group syncer's fsync, timed for the observer.
func (s *Store) timedSync() error {
	start := time.Now()
	err := s.db.Sync()
	if b := s.observer.Load(); b != nil {
		b.o.SyncDone(time.Since(start))
	}
	return err
}

// storeObserver is the Store field SetObserver sets.
type storeObserver = atomic.Pointer[observerBox]

// FileBytes is the disk space the store's data takes in the data
// directory: its table files (.sst), value-log files (.vlog) and memtable
// logs (.mem, where the newest writes are until they are flushed to a
// table file), read from the directory listing (tens of files: cheap
// enough for every scrape). Badger's own DB.Size is not used: with its
// metrics off, as weir runs it, it reports nothing.
func (s *Store) FileBytes() int64 {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return 0
	}
	var total int64
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".sst") && !strings.HasSuffix(name, ".vlog") && !strings.HasSuffix(name, ".mem") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed by compaction since the listing
		}
		n := info.Size()
		// Badger creates value-log and memtable files sparse at their
		// largest size: what they take is their allocated blocks.
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			n = st.Blocks * 512
		}
		total += n
	}
	return total
}
