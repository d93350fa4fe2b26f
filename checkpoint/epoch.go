package checkpoint

import "encoding/binary"

// Epoch is the commit record of one epoch of a streaming table: what a
// restart needs to re-run it exactly (the same input, so late rows stay
// late and windows close at the same epochs) and what it reports.
type Epoch struct {
	// Offsets holds, for each source of the plan in its order, the offset
	// at the end of the epoch (what the source's Read returned as Next).
	Offsets   []int64
	Watermark int64 // after the epoch, microseconds; math.MinInt64: none yet
	// MinEpoch is the first epoch a restart must re-run to rebuild the
	// state after this one (1: all of them).
	MinEpoch   int64
	InputRows  int64 // cumulative
	LateRows   int64 // cumulative
	OutputRows int64 // cumulative rows appended (append mode)
	// Now is the epoch's processing time (microseconds since the Unix
	// epoch; 0: not recorded): what now() and current_timestamp return in
	// it, so that a re-run computes the same rows.
	Now int64
}

// Offset is the offset of source i at the end of the epoch (0 when the
// record has none for it).
func (e Epoch) Offset(i int) int64 {
	if i < len(e.Offsets) {
		return e.Offsets[i]
	}
	return 0
}

// encodeEpoch is the record's value: big-endian int64s, the first
// source's offset, the watermark, MinEpoch, the three counts, then the
// offsets of any further sources. A one-source record is the 48 bytes
// weir has always written, so existing data directories read unchanged.
// A record with a processing time starts with the marker nowMarker (an
// offset is never negative) and the time, followed by that layout.
func encodeEpoch(e Epoch) []byte {
	b := make([]byte, 0, 64+8*max(len(e.Offsets)-1, 0))
	if e.Now != 0 {
		marker := nowMarker
		b = binary.BigEndian.AppendUint64(b, uint64(marker))
		b = binary.BigEndian.AppendUint64(b, uint64(e.Now))
	}
	for _, v := range []int64{e.Offset(0), e.Watermark, e.MinEpoch, e.InputRows, e.LateRows, e.OutputRows} {
		b = binary.BigEndian.AppendUint64(b, uint64(v))
	}
	for i := 1; i < len(e.Offsets); i++ {
		b = binary.BigEndian.AppendUint64(b, uint64(e.Offsets[i]))
	}
	return b
}

// nowMarker opens a record that holds its epoch's processing time.
const nowMarker int64 = -2

func decodeEpoch(v []byte) (Epoch, bool) {
	if len(v)%8 != 0 {
		return Epoch{}, false
	}
	var now int64
	if len(v) >= 16 && int64(binary.BigEndian.Uint64(v)) == nowMarker {
		now = int64(binary.BigEndian.Uint64(v[8:]))
		v = v[16:]
	}
	if len(v) < 48 {
		return Epoch{}, false
	}
	f := func(i int) int64 { return int64(binary.BigEndian.Uint64(v[8*i:])) }
	e := Epoch{Offsets: []int64{f(0)}, Watermark: f(1), MinEpoch: f(2), InputRows: f(3), LateRows: f(4), OutputRows: f(5), Now: now}
	for i := 6; i < len(v)/8; i++ {
		e.Offsets = append(e.Offsets, f(i))
	}
	return e, true
}
