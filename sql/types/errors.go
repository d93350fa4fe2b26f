package types

import (
	"github.com/weir-sql/weir/sql/sqlerr"
)

// SQLSTATEs used only by value input and output that sqlerr does not name.
const (
	codeIntervalFieldOverflow    = "22015"
	codeInvalidTimeZoneDisplace  = "22009"
	codeUntranslatableCharacter  = "22P05"
	codeCharacterNotInRepertoire = "22021"
	codeInvalidBinaryRepr        = "22P03"
	codeStackDepth               = "54001"
)

// typeName is the spelling PostgreSQL uses in input error messages: the
// format_type name without the modifier.
func typeName(t T) string {
	switch t.OID {
	case OidTime:
		return "time"
	case OidTimestamp:
		return "timestamp"
	}
	return FormatType(t.OID, -1)
}

// errInvalidSyntax is PostgreSQL's "invalid input syntax for type X" with
// the SQLSTATE its input function uses for that type.
func errInvalidSyntax(t T, s []byte) *sqlerr.Error {
	code := sqlerr.InvalidTextRepresentation
	switch t.OID {
	case OidDate, OidTime, OidTimestamp, OidTimestampTZ, OidInterval:
		code = sqlerr.InvalidDatetimeFormat
	}
	return sqlerr.New(code, "invalid input syntax for type %s: \"%s\"", typeName(t), s)
}

func errOutOfRange(t T, s []byte) *sqlerr.Error {
	return sqlerr.New(sqlerr.NumericValueOutOfRange, "value \"%s\" is out of range for type %s", s, typeName(t))
}

func errFieldOverflow(s []byte) *sqlerr.Error {
	return sqlerr.New(sqlerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
}

func errInsufficientData() *sqlerr.Error {
	return sqlerr.New(sqlerr.ProtocolViolation, "insufficient data left in message")
}

func errBadBinary(format string, args ...any) *sqlerr.Error {
	return sqlerr.New(codeInvalidBinaryRepr, format, args...)
}
