package expr

import (
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weir-sql/weir/sql/types"
)

// Conversions between weir's date/time representations and calendar
// fields. Dates are days since 1970-01-01, timestamps microseconds since
// 1970-01-01 00:00 (wall clock for timestamp, UTC instant for timestamptz),
// intervals (months, days, microseconds).

const (
	usPerSec  = int64(1_000_000)
	usPerMin  = 60 * usPerSec
	usPerHour = 60 * usPerMin
	usPerDay  = 24 * usPerHour

	// PostgreSQL's timestamp range: 4714-11-24 BC to 294276-12-31 AD.
	minTimestampUs = int64(-211813488000000000)
	endTimestampUs = int64(math.MaxInt64) // PostgreSQL's end (294277-01-01) lies past int64 here
)

func dateToTimestamp(days int64) int64 { return days * usPerDay }

// floorDiv divides rounding toward negative infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// civil returns year, month, day of a day number (proleptic Gregorian;
// year 0 is 1 BC); daysFromCivil is its inverse. Both are sql/types'.
func civil(days int64) (y, m, d int64) { return types.CivilFromDays(days) }

func daysFromCivil(y, m, d int64) int64 { return types.DaysFromCivil(y, m, d) }

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysInMonth(y, m int64) int64 {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// wallFields splits a wall-clock timestamp into date and time of day.
type wallFields struct {
	y, mon, d     int64
	h, min, s, us int64
}

func splitTimestamp(us int64) wallFields {
	days := floorDiv(us, usPerDay)
	tod := us - days*usPerDay
	y, m, d := civil(days)
	return wallFields{y: y, mon: m, d: d, h: tod / usPerHour, min: tod / usPerMin % 60, s: tod / usPerSec % 60, us: tod % usPerSec}
}

func (w wallFields) timestamp() int64 {
	return daysFromCivil(w.y, w.mon, w.d)*usPerDay + w.h*usPerHour + w.min*usPerMin + w.s*usPerSec + w.us
}

// toLocal converts a UTC instant to the wall clock of loc.
func toLocal(us int64, loc *time.Location) int64 {
	if loc == nil || loc == time.UTC {
		return us
	}
	sec := floorDiv(us, usPerSec)
	_, off := time.Unix(sec, 0).In(loc).Zone()
	return us + int64(off)*usPerSec
}

// fromLocal converts a wall clock of loc to a UTC instant; in a gap or an
// overlap it uses the offset in force just before, as PostgreSQL does.
func fromLocal(wall int64, loc *time.Location) int64 {
	if loc == nil || loc == time.UTC {
		return wall
	}
	sec := floorDiv(wall, usPerSec)
	// Try the offsets in force around that moment.
	_, off1 := time.Unix(sec-86400, 0).In(loc).Zone()
	_, off2 := time.Unix(sec+86400, 0).In(loc).Zone()
	cand := []int{off1, off2}
	for _, off := range cand {
		utc := sec - int64(off)
		if _, o := time.Unix(utc, 0).In(loc).Zone(); o == off {
			return wall - int64(off)*usPerSec
		}
	}
	return wall - int64(off1)*usPerSec
}

func ivUs(iv arrow.MonthDayNanoInterval) int64 { return iv.Nanoseconds / 1000 }

func makeIv(months, days int32, us int64) arrow.MonthDayNanoInterval {
	return arrow.MonthDayNanoInterval{Months: months, Days: days, Nanoseconds: us * 1000}
}

// cmpInterval orders intervals by their 30-day-month, 24-hour-day value.
func cmpInterval(a, b arrow.MonthDayNanoInterval) int {
	da, ra := intervalSpan(a)
	db, rb := intervalSpan(b)
	switch {
	case da < db:
		return -1
	case da > db:
		return 1
	case ra < rb:
		return -1
	case ra > rb:
		return 1
	}
	return 0
}

func intervalSpan(iv arrow.MonthDayNanoInterval) (int64, int64) {
	us := ivUs(iv)
	days := int64(iv.Months)*30 + int64(iv.Days) + floorDiv(us, usPerDay)
	return days, floorMod(us, usPerDay)
}

// addMonthsWall adds months to a wall-clock timestamp, clamping the day to
// the end of the month.
func addMonthsWall(us int64, months int64) int64 {
	if months == 0 {
		return us
	}
	w := splitTimestamp(us)
	total := w.y*12 + (w.mon - 1) + months
	w.y = floorDiv(total, 12)
	w.mon = total - w.y*12 + 1
	if dim := daysInMonth(w.y, w.mon); w.d > dim {
		w.d = dim
	}
	return w.timestamp()
}

// timestampPlusInterval is timestamp + interval on the wall clock.
func timestampPlusInterval(us int64, iv arrow.MonthDayNanoInterval) (int64, error) {
	us = addMonthsWall(us, int64(iv.Months))
	us += int64(iv.Days) * usPerDay
	us += ivUs(iv)
	if us < minTimestampUs || us >= endTimestampUs {
		return 0, errTimestampOutOfRange()
	}
	return us, nil
}

// timestamptzPlusInterval adds months and days in loc's wall clock, the
// time part as elapsed time.
func timestamptzPlusInterval(us int64, iv arrow.MonthDayNanoInterval, loc *time.Location) (int64, error) {
	if iv.Months != 0 || iv.Days != 0 {
		wall := toLocal(us, loc)
		wall = addMonthsWall(wall, int64(iv.Months))
		wall += int64(iv.Days) * usPerDay
		us = fromLocal(wall, loc)
	}
	us += ivUs(iv)
	if us < minTimestampUs || us >= endTimestampUs {
		return 0, errTimestampOutOfRange()
	}
	return us, nil
}

func negInterval(iv arrow.MonthDayNanoInterval) arrow.MonthDayNanoInterval {
	return arrow.MonthDayNanoInterval{Months: -iv.Months, Days: -iv.Days, Nanoseconds: -iv.Nanoseconds}
}

// justifyHours moves whole days out of the time part.
func justifyHours(iv arrow.MonthDayNanoInterval) arrow.MonthDayNanoInterval {
	us := ivUs(iv)
	days := int64(iv.Days) + us/usPerDay
	us %= usPerDay
	if days > 0 && us < 0 {
		us += usPerDay
		days--
	} else if days < 0 && us > 0 {
		us -= usPerDay
		days++
	}
	return makeIv(iv.Months, int32(days), us)
}

// justifyDays moves whole 30-day months out of the day part.
func justifyDays(iv arrow.MonthDayNanoInterval) arrow.MonthDayNanoInterval {
	months := int64(iv.Months) + int64(iv.Days)/30
	days := int64(iv.Days) % 30
	if months > 0 && days < 0 {
		days += 30
		months--
	} else if months < 0 && days > 0 {
		days -= 30
		months++
	}
	return makeIv(int32(months), int32(days), ivUs(iv))
}

func justifyInterval(iv arrow.MonthDayNanoInterval) arrow.MonthDayNanoInterval {
	us := ivUs(iv)
	days := int64(iv.Days) + us/usPerDay
	us %= usPerDay
	months := int64(iv.Months) + days/30
	days %= 30
	if months > 0 && (days < 0 || (days == 0 && us < 0)) {
		days += 30
		months--
	} else if months < 0 && (days > 0 || (days == 0 && us > 0)) {
		days -= 30
		months++
	}
	if days > 0 && us < 0 {
		us += usPerDay
		days--
	} else if days < 0 && us > 0 {
		us -= usPerDay
		days++
	}
	return makeIv(int32(months), int32(days), us)
}

func tsRound(x float64) float64 { return math.RoundToEven(x*1e6) / 1e6 }

// intervalScale is interval * factor (div=false) or interval / factor,
// following PostgreSQL's interval_mul and interval_div.
func intervalScale(iv arrow.MonthDayNanoInterval, f float64, div bool) (arrow.MonthDayNanoInterval, error) {
	if div && f == 0 {
		return iv, errDivisionByZero()
	}
	op := func(x float64) float64 {
		if div {
			return x / f
		}
		return x * f
	}
	monthD := op(float64(iv.Months))
	dayD := op(float64(iv.Days))
	if math.IsNaN(monthD) || math.IsNaN(dayD) || monthD > math.MaxInt32 || monthD < math.MinInt32 || dayD > math.MaxInt32 || dayD < math.MinInt32 {
		return iv, errIntervalOutOfRange()
	}
	months := int32(monthD)
	days := int32(dayD)
	monthRemDays := tsRound((monthD - float64(months)) * 30)
	secRem := tsRound((dayD - float64(days) + monthRemDays - float64(int64(monthRemDays))) * 86400)
	if math.Abs(secRem) >= 86400 {
		days += int32(secRem / 86400)
		secRem -= float64(int64(secRem/86400)) * 86400
	}
	days += int32(monthRemDays)
	t := math.RoundToEven(op(float64(ivUs(iv))) + secRem*1e6)
	if math.IsNaN(t) || t > math.MaxInt64/1000 || t < math.MinInt64/1000 {
		return iv, errIntervalOutOfRange()
	}
	return makeIv(months, days, int64(t)), nil
}

func addInterval(a, b arrow.MonthDayNanoInterval) (arrow.MonthDayNanoInterval, error) {
	m := int64(a.Months) + int64(b.Months)
	d := int64(a.Days) + int64(b.Days)
	us := ivUs(a) + ivUs(b)
	if m != int64(int32(m)) || d != int64(int32(d)) || (ivUs(a) > 0 && ivUs(b) > 0 && us < 0) || (ivUs(a) < 0 && ivUs(b) < 0 && us >= 0) {
		return a, errIntervalOutOfRange()
	}
	return makeIv(int32(m), int32(d), us), nil
}
