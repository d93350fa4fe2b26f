package eventlog

import (
	"testing"
	"time"

	"github.com/weir-sql/weir/state"
)

func TestTrimByCountAndAge(t *testing.T) {
	st, err := state.Open(t.TempDir(), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	defer Forget(st)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 10; i++ {
		if err := Append(st, Event{Time: base.Add(time.Duration(i) * time.Minute), Kind: KindStarted, Name: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := Trim(st, time.Time{}, 7)
	if err != nil || n != 3 {
		t.Fatalf("Trim to 7 events deleted %d (%v), want 3", n, err)
	}
	n, err = Trim(st, base.Add(5*time.Minute), 0)
	if err != nil || n != 2 {
		t.Fatalf("Trim before minute 5 deleted %d (%v), want 2 (minutes 3 and 4)", n, err)
	}
	// Staged in a transaction that is discarded: never there.
	tx := st.Begin(true)
	if err := Stage(st, tx, Event{Kind: KindFailed}); err != nil {
		t.Fatal(err)
	}
	tx.Discard()
	evs, err := Read(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 5 || !evs[0].Time.Equal(base.Add(5*time.Minute)) {
		t.Fatalf("left %d events, the first at %v", len(evs), evs[0].Time)
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Seq <= evs[i-1].Seq || evs[i].Kind != KindStarted {
			t.Fatalf("events out of order or a discarded one read: %+v", evs)
		}
	}
}
