package expr

import (
	"math/rand"
	"testing"
	"time"
)

// TestZoneMemo: the zone-period memo gives what a lookup per instant
// gives, over sorted and shuffled instants across DST changes and LMT.
func TestZoneMemo(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for _, name := range []string{"America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Europe/London", "UTC"} {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Skip(err)
		}
		z := zoneMemo{loc: loc}
		sec := int64(-3_000_000_000)
		for i := 0; i < 20000; i++ {
			if i%3 == 0 {
				sec = r.Int63n(6_000_000_000) - 3_000_000_000
			} else {
				sec += r.Int63n(40 * 86400)
			}
			gotName, gotOff := z.at(sec)
			wantName, wantOff := time.Unix(sec, 0).In(loc).Zone()
			if gotName != wantName || gotOff != int64(wantOff) {
				t.Fatalf("%s at %d: memo %s %d, lookup %s %d", name, sec, gotName, gotOff, wantName, wantOff)
			}
			if us := sec*usPerSec + 123; z.toLocal(us) != toLocal(us, loc) {
				t.Fatalf("%s: toLocal(%d) differs", name, us)
			}
		}
	}
}
