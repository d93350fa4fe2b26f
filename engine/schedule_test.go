package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/weir-sql/weir/catalog"
)

// A scheduled table is due at its schedule's times: EVERY counts from when
// the scheduler first saw it, CRON fires in its time zone, and a table
// whose trigger is its own (not available_now) is never kicked.
func TestScheduleDue(t *testing.T) {
	every := &catalog.Relation{OID: 1, Kind: catalog.KindStreamingTable, Streaming: &catalog.StreamingTable{
		Trigger: "available_now", Schedule: &catalog.Schedule{Kind: "every", Every: 2, Unit: "hour"}}}
	cron := &catalog.Relation{OID: 2, Kind: catalog.KindStreamingTable, Streaming: &catalog.StreamingTable{
		Trigger: "available_now", Schedule: &catalog.Schedule{Kind: "cron", Cron: "0 30 9 * * ?", TimeZone: "America/Los_Angeles"}}}
	own := &catalog.Relation{OID: 3, Kind: catalog.KindStreamingTable, Streaming: &catalog.StreamingTable{
		Trigger: "continuous", Schedule: &catalog.Schedule{Kind: "cron", Cron: "* * * * * ?"}}}
	onUpdate := &catalog.Relation{OID: 4, Kind: catalog.KindStreamingTable, Streaming: &catalog.StreamingTable{
		Trigger: "available_now", Schedule: &catalog.Schedule{Kind: "on update", AtMostEveryUS: 90 * 60 * 1e6}}}
	rels := []*catalog.Relation{every, cron, own, onUpdate}
	sch := &scheduler{next: map[uint32]time.Time{}}
	t0 := time.Date(2026, 12, 1, 17, 29, 58, 0, time.UTC) // 09:29:58 in Los Angeles
	for i, want := range [][]uint32{
		{},  // first sight: EVERY starts counting
		{},  // 09:29:59
		{2}, // 09:30:00 in Los Angeles
		{},
	} {
		got := sch.due(rels, t0.Add(time.Duration(i)*time.Second))
		if !slices.Equal(append([]uint32{}, got...), want) {
			t.Fatalf("second %d: due %v, want %v", i, got, want)
		}
	}
	if got := sch.due(rels, t0.Add(90*time.Minute)); !slices.Equal(got, []uint32{4}) {
		t.Fatalf("90 minutes on: due %v, want [4] (AT MOST EVERY 90 minutes)", got)
	}
	if got := sch.due(rels, t0.Add(2*time.Hour+time.Second)); !slices.Equal(got, []uint32{1}) {
		t.Fatalf("two hours on: due %v, want [1]", got)
	}
	if got := sch.due(rels, t0.Add(2*time.Hour+2*time.Second)); len(got) != 0 {
		t.Fatalf("right after: due %v", got)
	}
}
