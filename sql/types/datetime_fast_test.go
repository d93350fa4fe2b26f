package types

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestISOTimestampFastPathAgreesWithParser checks that the fast path gives
// the general parser's answer for generated ISO timestamps, in zones with
// and without daylight saving.
func TestISOTimestampFastPathAgreesWithParser(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	paris, _ := time.LoadLocation("Europe/Paris")
	for _, loc := range []*time.Location{time.UTC, paris} {
		fs := &FormatSettings{Location: loc}
		for i := 0; i < 5000; i++ {
			s := fmt.Sprintf("%04d-%02d-%02d%c%02d:%02d:%02d", 1+r.IntN(9999), 1+r.IntN(12), 1+r.IntN(31),
				" T"[r.IntN(2)], r.IntN(24), r.IntN(60), r.IntN(60))
			if r.IntN(2) == 0 {
				s += fmt.Sprintf(".%0*d", 1+r.IntN(6), r.IntN(100000))
			}
			switch r.IntN(4) {
			case 0:
				s += fmt.Sprintf("%+03d", r.IntN(27)-13)
			case 1:
				s += fmt.Sprintf("%+03d:%02d", r.IntN(27)-13, r.IntN(60))
			case 2:
				s += "Z"
			}
			civil, tz, hasTZ, ok := ParseISOTimestamp([]byte(s))
			for _, typ := range []T{Timestamp, TimestampTZ} {
				r, code := decodeDateTime([]byte(s), false, fs)
				if code != dtOK {
					if ok {
						t.Fatalf("%q: fast path accepted what the parser rejects", s)
					}
					continue
				}
				if !ok {
					continue
				}
				want, _ := r.civilMicros()
				if typ.OID == OidTimestampTZ {
					switch {
					case r.hasTZ:
						want -= int64(r.tz) * MicrosPerSecond
					default:
						want = LocalToUTC(want, loc)
					}
				}
				got := civil
				if typ.OID == OidTimestampTZ {
					if hasTZ {
						got = civil - int64(tz)*MicrosPerSecond
					} else {
						got = LocalToUTC(civil, loc)
					}
				}
				if got != want {
					t.Fatalf("%q as %s: fast %d, parser %d", s, typ, got, want)
				}
			}
		}
	}
}
