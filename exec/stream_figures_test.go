package exec

import (
	"math"
	"testing"
	"time"
)

// TestArrivalRate: rows arrive at 1000 rows/s. A job that keeps up reads
// them as they come; one that is behind reads 5000 rows a read from a
// backlog that the arrivals keep topping up. Both measure 1000 rows/s;
// the first read of a job with no start time measures nothing, and of one
// with a start time its rows over the time since.
func TestArrivalRate(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var keepUp, behind arrivals
	if r := keepUp.read(t0, 100, 0); r != 0 {
		t.Fatalf("first read: rate %v, want 0", r)
	}
	backlog := int64(50000)
	behind.read(t0, 5000, backlog)
	for i := 1; i <= 5; i++ {
		at := t0.Add(time.Duration(i) * 100 * time.Millisecond)
		if r := keepUp.read(at, 100, 0); math.Abs(r-1000) > 1e-6 {
			t.Errorf("keeping up, read %d: %v rows/s, want 1000", i, r)
		}
		// 100 rows arrived since the previous read; 5000 were read.
		backlog += 100 - 5000
		if r := behind.read(at, 5000, backlog); math.Abs(r-1000) > 1e-6 {
			t.Errorf("behind, read %d: %v rows/s, want 1000 (not the 50000 read per second)", i, r)
		}
	}
	started := arrivals{start: t0}
	if r := started.read(t0.Add(2*time.Second), 500, 100000); math.Abs(r-250) > 1e-6 {
		t.Errorf("first read 2 s after the start: %v rows/s, want 250 (its rows, not the backlog)", r)
	}
	// Reads that find nothing change nothing; the next one with rows
	// measures over the whole interval since the previous one with rows.
	at := t0.Add(600 * time.Millisecond)
	keepUp.read(at, 0, 0)
	if r := keepUp.read(t0.Add(1500*time.Millisecond), 500, 0); math.Abs(r-500) > 1e-6 {
		t.Errorf("after an empty read: %v rows/s, want 500 (500 rows over a second)", r)
	}
}
