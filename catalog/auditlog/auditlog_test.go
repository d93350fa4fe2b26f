package auditlog

import (
	"testing"
	"time"

	"github.com/weir-sql/weir/state"
)

func TestAppendReadTrim(t *testing.T) {
	dir := t.TempDir()
	st, err := state.Open(dir, state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := Open(st)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var evs []Event
	for i := 0; i < 10; i++ {
		evs = append(evs, Event{Time: base.Add(time.Duration(i) * time.Minute), Kind: "ddl", Role: "alice", Success: i%2 == 0})
	}
	if err := l.Append(evs[:4]); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(evs[4:]); err != nil {
		t.Fatal(err)
	}
	n, err := l.Trim(time.Time{}, 7)
	if err != nil || n != 3 {
		t.Fatalf("Trim to 7 events deleted %d (%v), want 3", n, err)
	}
	n, err = l.Trim(base.Add(5*time.Minute), 0)
	if err != nil || n != 2 {
		t.Fatalf("Trim before minute 5 deleted %d (%v), want 2 (minutes 3 and 4)", n, err)
	}
	// Durable: a new Log over the reopened store reads the same events,
	// and trims by count without having appended (it finds the newest).
	st.Close()
	st, err = state.Open(dir, state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l = Open(st)
	got, err := l.Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || !got[0].Time.Equal(base.Add(5*time.Minute)) || got[0].Role != "alice" || got[0].Success {
		t.Fatalf("read %d events, the first %+v", len(got), got[0])
	}
	for i := 1; i < len(got); i++ {
		if got[i].Seq <= got[i-1].Seq {
			t.Fatalf("events out of order: %+v", got)
		}
	}
	if n, err := l.Trim(time.Time{}, 2); err != nil || n != 3 {
		t.Fatalf("Trim to 2 after reopening deleted %d (%v), want 3", n, err)
	}
	if err := l.Append([]Event{{Kind: "connect", Success: true}}); err != nil {
		t.Fatal(err)
	}
	got, _ = l.Read()
	if len(got) != 3 || got[2].Kind != "connect" || got[2].Seq <= got[1].Seq || got[2].Time.IsZero() {
		t.Fatalf("after a restart an append reads %+v", got)
	}
}
