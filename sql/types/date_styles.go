package types

import (
	"strings"
	"time"
)

// DateStyle's two halves: how dates and timestamps are written, and the
// order of day, month and year fields in ambiguous input (and in the SQL
// and Postgres output styles).
type DateStyle uint8

const (
	DateISO      DateStyle = iota // 2024-01-02 03:04:05+00
	DateSQL                       // 01/02/2024 03:04:05 UTC
	DatePostgres                  // Tue Jan 02 03:04:05 2024 UTC
	DateGerman                    // 02.01.2024 03:04:05 UTC
)

// DateOrder is the field order of DateStyle.
type DateOrder uint8

const (
	OrderMDY DateOrder = iota
	OrderDMY
	OrderYMD
)

// ParseDateStyle reads a DateStyle value as PostgreSQL's check_datestyle:
// comma-separated keywords for the style and the order, each keeping
// cur's when not given (German implies DMY unless an order is given). It
// returns the canonical setting text ("ISO, MDY"), or false.
func ParseDateStyle(v string, curStyle DateStyle, curOrder DateOrder) (DateStyle, DateOrder, string, bool) {
	style, order := curStyle, curOrder
	haveStyle, haveOrder := false, false
	setStyle := func(s DateStyle) bool {
		ok := !haveStyle || style == s
		style, haveStyle = s, true
		return ok
	}
	setOrder := func(o DateOrder) bool {
		ok := !haveOrder || order == o
		order, haveOrder = o, true
		return ok
	}
	for _, tok := range strings.Split(v, ",") {
		ok := true
		switch strings.ToLower(strings.TrimSpace(tok)) {
		case "iso":
			ok = setStyle(DateISO)
		case "sql":
			ok = setStyle(DateSQL)
		case "postgres":
			ok = setStyle(DatePostgres)
		case "german":
			ok = setStyle(DateGerman)
			if !haveOrder {
				order = OrderDMY
			}
		case "ymd":
			ok = setOrder(OrderYMD)
		case "dmy", "euro", "european":
			ok = setOrder(OrderDMY)
		case "mdy", "us", "noneuro", "noneuropean":
			ok = setOrder(OrderMDY)
		case "default":
			if !haveStyle {
				style = DateISO
			}
			if !haveOrder {
				order = OrderMDY
			}
		default:
			ok = false
		}
		if !ok {
			return 0, 0, "", false
		}
	}
	names := [...]string{"ISO", "SQL", "Postgres", "German"}
	orders := [...]string{"MDY", "DMY", "YMD"}
	return style, order, names[style] + ", " + orders[order], true
}

var weekdays = [...]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
var monthAbbrevs = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// appendDateFields writes a date's fields in a non-ISO style (EncodeDateOnly).
func appendDateFields(buf []byte, y, m, d int64, style DateStyle, order DateOrder) []byte {
	first, second := m, d
	if order == OrderDMY || style == DateGerman {
		first, second = d, m
	}
	sep := byte('/')
	switch style {
	case DateGerman:
		sep = '.'
	case DatePostgres:
		sep = '-'
	}
	buf = appendPad(buf, first, 2)
	buf = append(buf, sep)
	buf = appendPad(buf, second, 2)
	buf = append(buf, sep)
	return appendPad(buf, y, 4)
}

// AppendDateStyled is date_out in a DateStyle.
func AppendDateStyled(buf []byte, days int32, fs *FormatSettings) []byte {
	if fs.DateStyle == DateISO || days == DateInfinity || days == DateNegInfinity {
		return AppendDate(buf, days)
	}
	y, m, d := CivilFromDays(int64(days))
	bc := y <= 0
	if bc {
		y = 1 - y
	}
	buf = appendDateFields(buf, y, m, d, fs.DateStyle, fs.DateOrder)
	if bc {
		buf = append(buf, " BC"...)
	}
	return buf
}

// AppendTimestampStyled is timestamp_out / timestamptz_out (zone) in a
// DateStyle; non-ISO styles name the zone by its abbreviation.
func AppendTimestampStyled(buf []byte, us int64, zone bool, fs *FormatSettings) []byte {
	if fs.DateStyle == DateISO || us == TimestampInfinity || us == TimestampNegInfinity {
		if zone {
			return AppendTimestampTZ(buf, us, fs.Location)
		}
		return AppendTimestamp(buf, us)
	}
	local := us
	var abbrev string
	if zone {
		loc := fs.Location
		if loc == nil {
			loc = time.UTC
		}
		name, off := time.Unix(floorDiv(us, MicrosPerSecond), 0).In(loc).Zone()
		local += int64(off) * MicrosPerSecond
		abbrev = name
	}
	days := floorDiv(local, MicrosPerDay)
	y, m, d := CivilFromDays(days)
	clock := local - days*MicrosPerDay
	bc := y <= 0
	if bc {
		y = 1 - y
	}
	if fs.DateStyle == DatePostgres {
		wd := (days%7 + 7 + 4) % 7 // 1970-01-01 was a Thursday
		buf = append(buf, weekdays[wd]...)
		buf = append(buf, ' ')
		if fs.DateOrder == OrderDMY {
			buf = appendPad(buf, d, 2)
			buf = append(buf, ' ')
			buf = append(buf, monthAbbrevs[m-1]...)
		} else {
			buf = append(buf, monthAbbrevs[m-1]...)
			buf = append(buf, ' ')
			buf = appendPad(buf, d, 2)
		}
		buf = append(buf, ' ')
		buf = appendClock(buf, clock)
		buf = append(buf, ' ')
		buf = appendPad(buf, y, 4)
	} else {
		buf = appendDateFields(buf, y, m, d, fs.DateStyle, fs.DateOrder)
		buf = append(buf, ' ')
		buf = appendClock(buf, clock)
	}
	if zone {
		buf = append(buf, ' ')
		buf = append(buf, abbrev...)
	}
	if bc {
		buf = append(buf, " BC"...)
	}
	return buf
}
