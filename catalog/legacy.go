package catalog

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/weir-sql/weir/sql/types"
)

// Catalogs written before relations had typed options kept them in one
// string map, "Options". A relation stored that way is read into the typed
// fields (TableOptions, StreamingTable) on load; it is written back in the
// typed form the next time it changes.

// UnmarshalJSON reads a stored relation in either form.
func (r *Relation) UnmarshalJSON(b []byte) error {
	type typed Relation // without this method
	var v struct {
		typed
		Options map[string]string
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = Relation(v.typed)
	if len(v.Options) > 0 {
		r.fromLegacyOptions(v.Options)
	}
	if r.Kind == KindStreamingTable && r.Streaming == nil {
		// Never nil for a streaming table: the engine reports one with
		// no definition as failed to plan.
		r.Streaming = &StreamingTable{}
	}
	return nil
}

// fromLegacyOptions fills the typed fields from an old "Options" map. The
// values were checked when the relation was created; one that no longer
// reads is dropped rather than making the catalog fail to open.
func (r *Relation) fromLegacyOptions(o map[string]string) {
	switch r.Kind {
	case KindStreamingTable:
		if r.Streaming == nil {
			r.Streaming = &StreamingTable{
				Definition:       o["definition"],
				OutputMode:       o["output_mode"],
				Trigger:          o["trigger"],
				StateFingerprint: o["state_fingerprint"],
				LateRows:         o["late_rows"],
			}
		}
	case KindTable:
		if r.Table != nil {
			return
		}
		var t TableOptions
		if v := o["retention"]; v != "" {
			t.Retention = legacyDuration(v)
		}
		if c := o["watermark_column"]; c != "" {
			t.WatermarkColumn = c
			t.WatermarkDelayUS, _ = strconv.ParseInt(o["watermark_delay_us"], 10, 64)
		}
		if t != (TableOptions{}) {
			r.Table = &t
		}
	}
}

// legacyDuration reads an interval of days or less ('1 day', '24 hours'),
// as the table-log source's retention option took it; 0 if it does not.
func legacyDuration(v string) time.Duration {
	iv, err := types.ParseInterval(v)
	if err != nil || iv.Months != 0 || iv.Days < 0 || iv.Nanoseconds < 0 {
		return 0
	}
	return time.Duration(int64(iv.Days)*types.MicrosPerDay+iv.Nanoseconds/1000) * time.Microsecond
}
