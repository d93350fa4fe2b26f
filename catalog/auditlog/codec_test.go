package auditlog

import (
	"strings"
	"testing"
	"time"
)

func TestCodecRoundTrip(t *testing.T) {
	ev := Event{Time: time.Date(2026, 12, 2, 1, 2, 3, 456789000, time.UTC), Kind: "ddl", Role: "alice", SessionUser: "bob",
		Client: "127.0.0.1:5432", Object: "public.t", Statement: strings.Repeat("é", 300), Success: true, Detail: ""}
	b := encode(&ev)
	var got Event
	if err := decode(b, &got); err != nil {
		t.Fatal(err)
	}
	if !got.Time.Equal(ev.Time) || got.Kind != ev.Kind || got.Role != ev.Role || got.SessionUser != ev.SessionUser || got.Client != ev.Client ||
		got.Object != ev.Object || got.Statement != ev.Statement || got.Success != ev.Success || got.Detail != ev.Detail {
		t.Fatalf("decoded %+v, want %+v", got, ev)
	}
	// Every cut of the value is refused, never read past its end (the
	// last field too has its length byte).
	for i := 0; i < len(b); i++ {
		if decode(b[:i], &got) == nil {
			t.Fatalf("a value cut at %d of %d decoded", i, len(b))
		}
	}
	if decode(append([]byte{9}, b[1:]...), &got) == nil {
		t.Fatal("an unknown format decoded")
	}
}
