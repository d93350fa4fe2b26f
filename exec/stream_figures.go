package exec

import (
	"sync/atomic"
	"time"
)

// What an epoch measures of itself, for weir_catalog.streaming_batches
// (engine/batches.go): when it started, how long it read, processed and
// committed, and how fast rows arrived at its inputs. None of it is part
// of the checkpoint (a re-run epoch measures nothing).

// EpochFigures are one epoch's figures, handed to CommitEpoch in
// EpochRecord.Figures.
type EpochFigures struct {
	// Job tells the jobs apart: every StreamJob has its own (a table's job
	// after REFRESH ... FULL or a restart is another), so that figures of
	// an earlier job are never taken for this one's.
	Job   uint64
	Start time.Time // the epoch's start (its read began)
	// Read is the wait for the inputs' rows (a prefetched read is ready
	// at once), Process the operators' work, up to the commit. The
	// commit's own duration is measured by whoever commits, from
	// CommitStart.
	Read, Process time.Duration
	CommitStart   time.Time
	InputRows     int64 // read in this epoch, every source's
	LateRows      int64
	OutputRows    int64 // appended to the table (append mode); changed rows otherwise
	StateRows     int64
	StateBytes    int64
	Watermark     int64 // microseconds; HasWatermark says whether it is set
	HasWatermark  bool
	// InputRowsPerSecond is the rate rows arrived at the inputs
	// (arrivals); for a job's first epoch with input, its rows over the
	// time since the job started.
	InputRowsPerSecond float64
}

// arrivals measures the rate rows arrive at a job's inputs, from what
// every read reports: the rows it returned and the rows it left (Backlog).
// Between two reads, the rows that arrived are those the second read
// returned plus the growth of the backlog:
//
//	arrived(k) = rows(k) + backlog(k) - backlog(k-1)
//
// over the time between the reads. When the job keeps up (backlogs 0)
// that is the rows of the epoch over the time since the previous read,
// Spark's inputRowsPerSecond; when it is behind, the backlog absorbs what
// it reads beyond the arrivals, so the figure stays the arrival rate
// instead of becoming the processing rate. A job's first read with rows
// has no previous one: as Spark's first inputRowsPerSecond, it is that
// read's rows over the time since the job started (what the inputs held
// then arrived before, at a rate nobody measured), and its backlog the
// baseline of the next.
type arrivals struct {
	start   time.Time // the job's (zero: the first read measures nothing)
	at      time.Time // the previous read with rows (zero: none yet)
	backlog int64
	rate    float64 // the latest epoch's
}

// read notes a read at time at that returned rows and left backlog, and
// returns the arrival rate since the previous read with rows (0 for the
// first; a read that returned nothing changes nothing).
func (a *arrivals) read(at time.Time, rows, backlog int64) float64 {
	if rows == 0 {
		// Nothing arrived since the previous read with rows, or what did
		// is counted by the next read with rows, over the whole interval
		// (a burst is not measured over the poll that found it).
		return a.rate
	}
	prev, prevBacklog := a.at, a.backlog
	a.at, a.backlog = at, backlog
	if prev.IsZero() {
		if a.start.IsZero() {
			return a.rate
		}
		prev, prevBacklog = a.start, backlog
	}
	secs := at.Sub(prev).Seconds()
	arrived := rows + backlog - prevBacklog
	if secs <= 0 || arrived < 0 {
		arrived = max(arrived, 0)
		if secs <= 0 {
			return a.rate
		}
	}
	a.rate = float64(arrived) / secs
	return a.rate
}

// jobIDs numbers the jobs (EpochFigures.Job).
var jobIDs atomic.Uint64

// changedRows counts the rows of an epoch's changes (update and complete
// mode: its output is the changed rows, not appended ones).
func changedRows(changes []ChangeBatch) int64 {
	var n int64
	for _, c := range changes {
		if c.Rows != nil {
			n += c.Rows.NumRows()
		}
	}
	return n
}
