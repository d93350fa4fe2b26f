package wire

import (
	"fmt"
	"testing"
	"time"
)

func TestAuthFailuresCounting(t *testing.T) {
	f := newAuthFailures(AuthThrottle{Limit: 2, Window: time.Minute, Delay: time.Second, MaxDelay: 3 * time.Second, MaxAddresses: 3})
	now := time.Unix(1000, 0)
	var got []time.Duration
	for range 5 {
		got = append(got, f.failed("10.0.0.1", now))
	}
	if fmt.Sprint(got) != "[0s 0s 1s 2s 3s]" {
		t.Errorf("delays %v", got)
	}
	// Another address has its own count.
	if d := f.failed("10.0.0.2", now); d != 0 {
		t.Errorf("other address delayed %v", d)
	}
	// Past the window the count starts again.
	if d := f.failed("10.0.0.1", now.Add(2*time.Minute)); d != 0 {
		t.Errorf("after the window: %v", d)
	}
	// Memory is bounded: the least recently failing address is forgotten.
	f.failed("10.0.0.3", now)
	f.failed("10.0.0.4", now)
	if len(f.byAddr) != 3 || f.lru.Len() != 3 {
		t.Errorf("%d addresses kept", len(f.byAddr))
	}
	if _, ok := f.byAddr["10.0.0.2"]; ok {
		t.Error("10.0.0.2 still kept")
	}
	off := newAuthFailures(AuthThrottle{Limit: -1})
	for range 10 {
		if d := off.failed("x", now); d != 0 {
			t.Fatalf("disabled throttle delayed %v", d)
		}
	}
}
