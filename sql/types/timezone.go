package types

import (
	"strings"
	"sync"
	"time"
)

// offsetAt returns loc's UTC offset in seconds (east positive) at the
// instant unixSec.
func offsetAt(loc *time.Location, unixSec int64) int {
	if loc == nil || loc == time.UTC {
		return 0
	}
	_, off := time.Unix(unixSec, 0).In(loc).Zone()
	return off
}

// localOffset returns the UTC offset that loc has for the wall-clock time
// wallSec (seconds since 1970 read as if UTC), resolving DST transitions as
// PostgreSQL's DetermineTimeZoneOffset does: a time skipped by a
// spring-forward uses the offset from before the transition, an ambiguous
// time in a fall-back uses the offset from after it.
func localOffset(loc *time.Location, wallSec int64) int {
	if loc == nil || loc == time.UTC {
		return 0
	}
	prev := time.Unix(wallSec-86400, 0).In(loc)
	_, before := prev.Zone()
	_, end := prev.ZoneBounds()
	if end.IsZero() {
		return before
	}
	boundary := end.Unix()
	_, after := end.In(loc).Zone()
	bt, at := wallSec-int64(before), wallSec-int64(after)
	switch {
	case bt < boundary && at < boundary:
		return before
	case bt >= boundary && at >= boundary:
		if _, end2 := end.ZoneBounds(); !end2.IsZero() && at >= end2.Unix() {
			// Past a second transition within the day: look it up directly.
			_, off := time.Unix(at, 0).In(loc).Zone()
			return off
		}
		return after
	case bt > at:
		return before
	}
	return after
}

// LocalToUTC converts a wall-clock timestamp (µs since 1970 read as if in
// UTC) in loc to the instant it names, as timestamp::timestamptz does.
func LocalToUTC(wallUs int64, loc *time.Location) int64 {
	if wallUs == TimestampInfinity || wallUs == TimestampNegInfinity {
		return wallUs
	}
	return wallUs - int64(localOffset(loc, floorDiv(wallUs, MicrosPerSecond)))*MicrosPerSecond
}

// UTCToLocal converts an instant to the wall-clock time in loc, as
// timestamptz::timestamp does.
func UTCToLocal(us int64, loc *time.Location) int64 {
	if us == TimestampInfinity || us == TimestampNegInfinity {
		return us
	}
	return us + int64(offsetAt(loc, floorDiv(us, MicrosPerSecond)))*MicrosPerSecond
}

var locCache sync.Map // name -> *time.Location

// LoadLocation resolves a time zone name as PostgreSQL's TimeZone setting
// and AT TIME ZONE do: IANA names case-insensitively, plus UTC/GMT
// spellings and the fixed abbreviations of zoneAbbrevs. ok is false for
// unknown names.
func LoadLocation(name string) (*time.Location, bool) {
	if l, ok := locCache.Load(name); ok {
		return l.(*time.Location), true
	}
	lname := strings.ToLower(name)
	if off, ok := zoneAbbrevs[lname]; ok {
		var loc *time.Location
		if off == 0 {
			loc = time.UTC
		} else {
			loc = time.FixedZone(strings.ToUpper(name), off)
		}
		locCache.Store(name, loc)
		return loc, true
	}
	if name == "" || strings.Contains(name, "..") || len(name) > 64 {
		return nil, false
	}
	for _, cand := range []string{name, titleZone(name), strings.ToUpper(name)} {
		if loc, err := time.LoadLocation(cand); err == nil && cand != "" && cand != "Local" {
			locCache.Store(name, loc)
			return loc, true
		}
	}
	return nil, false
}

// titleZone capitalises each part of a zone name ("america/st_johns" →
// "America/St_Johns"), the spelling of most IANA names.
func titleZone(s string) string {
	b := []byte(strings.ToLower(s))
	up := true
	for i, c := range b {
		if up && 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
		up = c == '/' || c == '_' || c == '-'
	}
	return string(b)
}

// zoneAbbrevs are the time zone abbreviations of PostgreSQL's Default set
// that weir accepts in date/time input, as seconds east of UTC.
var zoneAbbrevs = map[string]int{
	"utc": 0, "gmt": 0, "z": 0, "zulu": 0, "ut": 0, "wet": 0,
	"est": -5 * 3600, "edt": -4 * 3600, "cst": -6 * 3600, "cdt": -5 * 3600,
	"mst": -7 * 3600, "mdt": -6 * 3600, "pst": -8 * 3600, "pdt": -7 * 3600,
	"akst": -9 * 3600, "akdt": -8 * 3600, "hst": -10 * 3600, "ast": -4 * 3600, "adt": -3 * 3600,
	"nst": -(3*3600 + 1800), "ndt": -(2*3600 + 1800),
	"cet": 3600, "cest": 2 * 3600, "met": 3600, "mest": 2 * 3600, "bst": 3600, "west": 3600,
	"eet": 2 * 3600, "eest": 3 * 3600, "msk": 3 * 3600, "ist": 2 * 3600,
	"jst": 9 * 3600, "kst": 9 * 3600, "hkt": 8 * 3600, "sgt": 8 * 3600,
	"aest": 10 * 3600, "aedt": 11 * 3600, "acst": 9*3600 + 1800, "awst": 8 * 3600,
	"nzst": 12 * 3600, "nzdt": 13 * 3600,
}
