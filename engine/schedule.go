package engine

import (
	"sync"
	"time"

	"github.com/weir-sql/weir/catalog"
	"github.com/weir-sql/weir/sql/parse"
	"github.com/weir-sql/weir/sql/types"
)

// Schedules (SCHEDULE EVERY n HOURS | CRON '…' and TRIGGER ON UPDATE AT
// MOST EVERY interval of Databricks' DDL) run through the trigger
// machinery: a streaming table with a schedule and no trigger of its own
// runs available_now — it processes its input, then waits — and the
// scheduler refreshes it at the schedule's times, as REFRESH STREAMING
// TABLE does (AT MOST EVERY d: every d, taking what committed meanwhile).
// TRIGGER ON UPDATE alone is weir's default, continuous. EVERY counts from the table's start (or
// the server's); CRON fires in the schedule's time zone (the creating
// session's when none was given). A refresh missed while the server was
// down is not made up for; the first one after a restart comes at the
// next scheduled time.

// scheduler remembers when each scheduled table refreshes next.
type scheduler struct {
	mu   sync.Mutex
	next map[uint32]time.Time // EVERY: the next refresh of each table
	last time.Time            // CRON: the last second checked
}

// scheduledTrigger is the trigger a table of schedule sc runs with when
// its definition names none.
func scheduledTrigger(sc *catalog.Schedule, trig trigger) trigger {
	if sc == nil || sc.Kind == "on update" && sc.AtMostEveryUS == 0 {
		return trig // TRIGGER ON UPDATE: as the input commits, weir's default
	}
	return trigger{kind: "available_now", stateLimit: trig.stateLimit}
}

func (e *Engine) scheduler() *scheduler {
	e.sched.mu.Lock()
	if e.sched.next == nil {
		e.sched.next = map[uint32]time.Time{}
	}
	e.sched.mu.Unlock()
	return &e.sched
}

// runSchedules refreshes the scheduled tables that are due at now. It runs
// every second (retentionLoop).
func (e *Engine) runSchedules(now time.Time) {
	for _, oid := range e.scheduler().due(e.cat.Relations(), now) {
		for _, r := range e.jobsOfOID(oid) { // flows.go: a target's flows
			select {
			case r.kick <- struct{}{}:
			default:
			}
		}
	}
}

// due lists the scheduled tables among rels whose refresh time came by
// now, and notes when each refreshes next.
func (sch *scheduler) due(rels []*catalog.Relation, now time.Time) []uint32 {
	sch.mu.Lock()
	defer sch.mu.Unlock()
	from := sch.last
	if from.IsZero() || now.Sub(from) > time.Minute {
		from = now.Add(-time.Second)
	}
	sch.last = now.Truncate(time.Second)
	seen := map[uint32]bool{}
	var due []uint32
	for _, rel := range rels {
		st := rel.Streaming
		if rel.Kind != catalog.KindStreamingTable || st == nil || st.Schedule == nil || st.Trigger != "available_now" {
			continue
		}
		seen[rel.OID] = true
		switch sc := st.Schedule; sc.Kind {
		case "every", "on update":
			// TRIGGER ON UPDATE AT MOST EVERY d: a refresh every d takes
			// what committed meanwhile (nothing to do if nothing did).
			d := (&parse.Schedule{Kind: "every", Every: sc.Every, Unit: sc.Unit}).Interval()
			if sc.Kind == "on update" {
				d = time.Duration(sc.AtMostEveryUS) * time.Microsecond
			}
			if d <= 0 {
				continue
			}
			next, ok := sch.next[rel.OID]
			if !ok {
				sch.next[rel.OID] = now.Add(d)
				continue
			}
			if !now.Before(next) {
				due = append(due, rel.OID)
				sch.next[rel.OID] = now.Add(d)
			}
		case "cron":
			c, err := parse.ParseQuartzCron(sc.Cron)
			if err != nil {
				continue
			}
			loc := time.UTC
			if l, ok := types.LoadLocation(sc.TimeZone); ok && sc.TimeZone != "" {
				loc = l
			}
			for t := from.Truncate(time.Second).Add(time.Second); !t.After(now); t = t.Add(time.Second) {
				if c.Matches(t.In(loc)) {
					due = append(due, rel.OID)
					break
				}
			}
		}
	}
	for oid := range sch.next {
		if !seen[oid] {
			delete(sch.next, oid) // dropped, or its schedule was
		}
	}
	return due
}

// forgetSchedule makes the next EVERY refresh of oid count from now (after
// ALTER ... SCHEDULE).
func (e *Engine) forgetSchedule(oid uint32) {
	sch := e.scheduler()
	sch.mu.Lock()
	delete(sch.next, oid)
	sch.mu.Unlock()
}
