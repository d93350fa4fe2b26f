package engine

import (
	"time"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/planner"
)

// Input retention is the table-log source's (connector/tablelog): a
// table's chunks form a log, retention removes a prefix of it once it is
// older than the table's retention option, and never past what a
// streaming table reading it may re-read after a restart (its resume
// offset, which the checkpoint's resume guard knows). This file runs it.

// retentionOf is a table's retention (0: keep forever).
func retentionOf(rel *catalog.Relation) time.Duration {
	if rel.Table == nil {
		return 0
	}
	return rel.Table.Retention
}

// noteCommitTime records, for a table with retention, that its chunks up
// to the current count existed at this time. It runs after the commit, so
// a crash in between only makes rows live longer.
func (e *Engine) noteCommitTime(rel uint32) {
	r, ok := e.cat.RelationByOID(rel)
	if !ok || retentionOf(r) == 0 {
		return
	}
	e.logs.NoteCommitTime(rel, time.Now())
}

// applyRetention removes, for every table with retention, the chunks
// older than it that no streaming table may need again.
func (e *Engine) applyRetention() {
	for _, rel := range e.cat.Relations() {
		if rel.Kind != catalog.KindTable {
			continue
		}
		if keep := retentionOf(rel); keep > 0 {
			e.trimTable(rel.OID, time.Now().Add(-keep))
		}
	}
}

func (e *Engine) trimTable(rel uint32, cutoff time.Time) {
	old, trimmed, err := e.logs.Expired(rel, cutoff)
	if err != nil {
		return
	}
	// Never past what a streaming table reading it may re-read. The lock is
	// held through the trim: a streaming table being replaced (REFRESH,
	// CREATE OR REFRESH) has no runner for a moment, and the trim must not
	// fall into that moment, when its resume offset is not known.
	streaming := e.streamingJobIDs() // flows.go: each table's job, or each flow's
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, oid := range streaming {
		r := e.runners[oid]
		if r == nil {
			return // starting or being replaced: try again next time
		}
		if r.plan == nil {
			continue
		}
		for i, input := range streamInputs(r.plan) {
			if input != rel {
				continue
			}
			if r.job == nil || r.guard == nil {
				return
			}
			old = min(old, r.guard.ResumeOffset(i))
		}
	}
	if e.logs.TrimTo(rel, old, trimmed) == nil && old > trimmed {
		e.inputTrimmed(rel, old-trimmed) // event_log_retention.go (takes no engine lock)
	}
}

// retentionLoop applies retention, and runs the schedules of scheduled
// streaming tables (schedule.go), every second until the engine closes.
func (e *Engine) retentionLoop() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-e.closing:
			return
		case <-t.C:
			e.applyRetention()
			e.runSchedules(time.Now())
			e.trimEventLog(time.Now()) // event_log_retention.go
		}
	}
}

// streamInputs is the OIDs of a plan's sources, in order.
func streamInputs(sp *planner.StreamPlan) []uint32 {
	if sp.Tree == nil {
		return []uint32{sp.Input.OID}
	}
	out := make([]uint32, len(sp.Tree.Sources))
	for i, s := range sp.Tree.Sources {
		out[i] = s.Input.OID
	}
	return out
}
