package checkpoint

import (
	"encoding/binary"
	"math"
	"reflect"
	"testing"
)

func TestEpochRecordRoundTrip(t *testing.T) {
	for _, e := range []Epoch{
		{Offsets: []int64{7}, Watermark: math.MinInt64, MinEpoch: 1, InputRows: 100, LateRows: 2, OutputRows: 9},
		{Offsets: []int64{7, 3, 12}, Watermark: 1e12, MinEpoch: 4, InputRows: 1, LateRows: 0, OutputRows: 0},
		{Offsets: []int64{7}, Watermark: 5, MinEpoch: 1, InputRows: 3, Now: 1764547200000000},
		{Offsets: []int64{0, 9}, Watermark: math.MinInt64, MinEpoch: 2, Now: -86400000000}, // before 1970
	} {
		got, ok := decodeEpoch(encodeEpoch(e))
		if !ok || !reflect.DeepEqual(got, e) {
			t.Errorf("round trip of %+v gave %+v (%v)", e, got, ok)
		}
	}
}

// A one-source record is the six int64s weir wrote before sources were
// counted: data directories written then read unchanged.
func TestEpochRecordOneSourceLayout(t *testing.T) {
	var v []byte
	for _, x := range []int64{42, -5, 3, 1000, 7, 11} {
		v = binary.BigEndian.AppendUint64(v, uint64(x))
	}
	want := Epoch{Offsets: []int64{42}, Watermark: -5, MinEpoch: 3, InputRows: 1000, LateRows: 7, OutputRows: 11}
	got, ok := decodeEpoch(v)
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("decode = %+v (%v), want %+v", got, ok, want)
	}
	if enc := encodeEpoch(want); string(enc) != string(v) {
		t.Errorf("encode of a one-source record changed its bytes")
	}
	for _, bad := range [][]byte{nil, v[:40], append(v, 1, 2, 3)} {
		if _, ok := decodeEpoch(bad); ok {
			t.Errorf("decodeEpoch accepted %d bytes", len(bad))
		}
	}
}

func TestResumeGuard(t *testing.T) {
	g := NewResumeGuard()
	if got := g.ResumeOffset(0); got != 0 {
		t.Fatalf("fresh guard: %d", got)
	}
	g.Committed(1, Epoch{Offsets: []int64{10}, MinEpoch: 1})
	g.Committed(2, Epoch{Offsets: []int64{20}, MinEpoch: 2})
	if got := g.ResumeOffset(0); got != 10 {
		t.Errorf("MinEpoch 2: resume at the end of epoch 1 = 10, got %d", got)
	}
	g.Committed(3, Epoch{Offsets: []int64{30}, MinEpoch: 4})
	if got := g.ResumeOffset(0); got != 30 {
		t.Errorf("MinEpoch 4: 30, got %d", got)
	}
	if len(g.ends) != 1 {
		t.Errorf("epochs before MinEpoch-1 are forgotten: %v", g.ends)
	}
	g.Recovered(epochs(5, 4), 4)
	if got := g.ResumeOffset(0); got != 30 {
		t.Errorf("recovered at epoch 4: 30, got %d", got)
	}
	if got := g.ResumeOffset(1); got != 0 {
		t.Errorf("a source the records do not hold: 0, got %d", got)
	}
	g.Recovered(nil, 1)
	if got := g.ResumeOffset(0); got != 0 {
		t.Errorf("recovered with nothing logged: 0, got %d", got)
	}
}

func TestIdentity(t *testing.T) {
	if err := CheckIdentity("t", "a", "a"); err != nil {
		t.Errorf("same fingerprint: %v", err)
	}
	if err := CheckIdentity("t", "a", "b"); err == nil {
		t.Errorf("different fingerprints accepted")
	}
	if err := CheckRerunnable("t", 0, 5); err != nil {
		t.Errorf("nothing committed: %v", err)
	}
	if err := CheckRerunnable("t", 3, 0); err != nil {
		t.Errorf("nothing trimmed: %v", err)
	}
	if err := CheckRerunnable("t", 3, 1); err == nil {
		t.Errorf("trimmed input accepted")
	}
}
