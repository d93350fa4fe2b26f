package checkpoint

import "sync"

// ResumeGuard knows, for one running streaming table, the offsets a
// restart would re-read from: the ends of the epoch before the oldest one
// its state depends on (the latest record's MinEpoch). Retention may
// remove a source's input only below that offset, so recovery stays exact.
// The runner feeds it each committed epoch and each recovery; retention
// reads it from another goroutine.
type ResumeGuard struct {
	mu sync.Mutex
	// ends holds the source offsets of each epoch a restart may still
	// re-run from (MinEpoch-1 and later), pruned as MinEpoch advances.
	ends     map[int64][]int64
	minEpoch int64
}

// NewResumeGuard returns the guard of a table that committed nothing: a
// restart would re-read from the start.
func NewResumeGuard() *ResumeGuard {
	return &ResumeGuard{ends: map[int64][]int64{}, minEpoch: 1}
}

// Committed notes a committed epoch's record.
func (g *ResumeGuard) Committed(epoch int64, rec Epoch) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ends[epoch] = rec.Offsets
	g.minEpoch = rec.MinEpoch
	for e := range g.ends {
		if e < rec.MinEpoch-1 {
			delete(g.ends, e)
		}
	}
}

// Recovered replaces what the guard knows by the logged records (epoch
// i+1 at index i), as of the restart's first re-run epoch (Decision.From;
// 1 when nothing is logged).
func (g *ResumeGuard) Recovered(epochs []Epoch, from int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ends = map[int64][]int64{}
	g.minEpoch = max(from, 1)
	for i, e := range epochs {
		if int64(i+1) >= g.minEpoch-1 {
			g.ends[int64(i+1)] = e.Offsets
		}
	}
}

// ResumeOffset is the offset of source i a restart would re-read from:
// retention may remove that source's input before it.
func (g *ResumeGuard) ResumeOffset(source int) int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.minEpoch <= 1 {
		return 0
	}
	if offs, ok := g.ends[g.minEpoch-1]; ok && source < len(offs) {
		return offs[source]
	}
	return 0
}
