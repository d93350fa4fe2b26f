package files

import (
	"testing"
	"time"
)

// A complete file never overtakes an older one still settling (after a
// restart, a file renamed in now is complete at once while one written
// just before the restart waits for its second look).
func TestReadyKeepsAgeOrder(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	s := &Source{cfg: config{settle: 500 * time.Millisecond}, cands: map[string]*candidate{}, unsettled: map[string]struct{}{}}
	older := FileInfo{Path: "/in/a.json", Name: "a.json", Size: 10, Modified: t0}
	newer := FileInfo{Path: "/in/b.json", Name: "b.json", Size: 10, Modified: t0.Add(100 * time.Millisecond)}
	now := t0.Add(200 * time.Millisecond)
	s.observe(older, now, false) // seen once, 200 ms after its write: settling
	s.observe(newer, now, true)  // renamed into place: complete
	if got := s.readyLocked(now); len(got) != 0 {
		t.Fatalf("ready while the older file settles: %v", got)
	}
	later := t0.Add(800 * time.Millisecond)
	s.observe(older, later, false)
	got := s.readyLocked(later)
	if len(got) != 2 || got[0].Path != older.Path || got[1].Path != newer.Path {
		t.Fatalf("ready = %v, want a.json then b.json", got)
	}
	// A file waiting for a retry holds back nothing.
	s.cands[older.Path].retryAt = later.Add(time.Minute)
	if got := s.readyLocked(later); len(got) != 1 || got[0].Path != newer.Path {
		t.Fatalf("ready with a.json retrying = %v, want b.json", got)
	}
}
