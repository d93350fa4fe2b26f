package types

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// An interval's type modifier carries the SQL-standard fields it keeps
// (INTERVAL DAY TO MINUTE) and a fractional-second precision, packed as
// PostgreSQL's INTERVAL_TYPMOD(precision, range): range << 16 | precision.
// The fields decide both how a bare number in the input is read
// (interval '5' minute is five minutes) and which fields survive
// (AdjustIntervalForTypmod), so they must travel with the type.
const (
	IntervalMonth         = 1 << 1
	IntervalYear          = 1 << 2
	IntervalDay           = 1 << 3
	IntervalHour          = 1 << 10
	IntervalMinute        = 1 << 11
	IntervalSecond        = 1 << 12
	IntervalFullRange     = 0x7FFF
	IntervalFullPrecision = 0xFFFF
	maxIntervalPrecision  = 6
)

// intervalRangeNames lists the field combinations the grammar accepts and
// how intervaltypmodout prints them.
var intervalRangeNames = map[int32]string{
	IntervalYear:                 " year",
	IntervalMonth:                " month",
	IntervalDay:                  " day",
	IntervalHour:                 " hour",
	IntervalMinute:               " minute",
	IntervalSecond:               " second",
	IntervalYear | IntervalMonth: " year to month",
	IntervalDay | IntervalHour:   " day to hour",
	IntervalDay | IntervalHour | IntervalMinute:                  " day to minute",
	IntervalDay | IntervalHour | IntervalMinute | IntervalSecond: " day to second",
	IntervalHour | IntervalMinute:                                " hour to minute",
	IntervalHour | IntervalMinute | IntervalSecond:               " hour to second",
	IntervalMinute | IntervalSecond:                              " minute to second",
	IntervalFullRange:                                            "",
}

// IntervalTypmod is intervaltypmodin: mods are the grammar's (range) or
// (range, precision).
func IntervalTypmod(mods []int32) (int32, error) {
	invalid := sqlerr.New(sqlerr.InvalidParameterValue, "invalid INTERVAL type modifier")
	if len(mods) == 0 || len(mods) > 2 {
		return 0, invalid
	}
	if _, ok := intervalRangeNames[mods[0]]; !ok {
		return 0, invalid
	}
	prec := int32(IntervalFullPrecision)
	if len(mods) == 2 {
		prec = mods[1]
		if prec < 0 {
			return 0, sqlerr.New(sqlerr.InvalidParameterValue, "INTERVAL(%d) precision must not be negative", prec)
		}
		if prec > maxIntervalPrecision {
			prec = maxIntervalPrecision // PostgreSQL warns and reduces it
		}
	}
	return mods[0]<<16 | prec, nil
}

// intervalRange is INTERVAL_RANGE(typmod), the full range without a typmod.
func intervalRange(typmod int32) int32 {
	if typmod < 0 {
		return IntervalFullRange
	}
	return (typmod >> 16) & 0x7FFF
}

// formatIntervalTypmod is intervaltypmodout.
func formatIntervalTypmod(typmod int32) string {
	s := intervalRangeNames[intervalRange(typmod)]
	if p := typmod & 0xFFFF; p != IntervalFullPrecision {
		s += fmt.Sprintf("(%d)", p)
	}
	return s
}

// AdjustIntervalForTypmod drops the fields an interval type does not keep
// and rounds its seconds to the type's precision, as PostgreSQL's function
// of that name.
func AdjustIntervalForTypmod(v arrow.MonthDayNanoInterval, typmod int32) (arrow.MonthDayNanoInterval, error) {
	if typmod < 0 {
		return v, nil
	}
	us := v.Nanoseconds / 1000
	switch intervalRange(typmod) {
	case IntervalYear:
		v.Months = (v.Months / 12) * 12
		v.Days, us = 0, 0
	case IntervalMonth, IntervalYear | IntervalMonth:
		v.Days, us = 0, 0
	case IntervalDay:
		us = 0
	case IntervalHour, IntervalDay | IntervalHour:
		us = (us / MicrosPerHour) * MicrosPerHour
	case IntervalMinute, IntervalHour | IntervalMinute, IntervalDay | IntervalHour | IntervalMinute:
		us = (us / MicrosPerMinute) * MicrosPerMinute
	}
	if p := typmod & 0xFFFF; p != IntervalFullPrecision && p < maxIntervalPrecision {
		scale := int64(1)
		for i := p; i < maxIntervalPrecision; i++ {
			scale *= 10
		}
		off := scale / 2
		if us >= 0 {
			us = ((us + off) / scale) * scale
		} else {
			us = -(((-us + off) / scale) * scale)
		}
	}
	v.Nanoseconds = us * 1000
	return v, nil
}

// bareNumberUnit is the unit DecodeInterval gives a number with no unit
// after it: the last field of the type's range, seconds by default.
func bareNumberUnit(rng int32) int {
	switch rng {
	case IntervalYear:
		return uYear
	case IntervalMonth, IntervalYear | IntervalMonth:
		return uMonth
	case IntervalDay:
		return uDay
	case IntervalHour, IntervalDay | IntervalHour:
		return uHour
	case IntervalMinute, IntervalHour | IntervalMinute, IntervalDay | IntervalHour | IntervalMinute:
		return uMinute
	}
	return uSecond
}
