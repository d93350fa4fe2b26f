package types

import "time"

// FormatSettings are the session settings that change the text form of a
// value: timestamptz is shown in Location, floats with ExtraFloatDigits
// (PostgreSQL 12+: 1 and above means shortest exact representation).
type FormatSettings struct {
	Location         *time.Location
	ExtraFloatDigits int
	// ByteaEscape is bytea_output = escape (hex otherwise).
	ByteaEscape bool
	// IntervalStyle is how intervals are written.
	IntervalStyle IntervalStyle
	// DateStyle and DateOrder are the two halves of the DateStyle setting.
	DateStyle DateStyle
	DateOrder DateOrder
}

// DefaultFormat is the format of a new session: UTC, shortest floats.
var DefaultFormat = FormatSettings{Location: time.UTC, ExtraFloatDigits: 1}
