// Package sqlerr is the error value every layer returns to a client: a
// PostgreSQL SQLSTATE, a message, and for syntax errors a 1-based character
// position in the statement text. It has no dependencies so that wire, engine
// and the SQL front end can all share it.
package sqlerr

import (
	"errors"
	"fmt"
)

// SQLSTATE codes used across weir.
const (
	SuccessfulCompletion         = "00000"
	Warning                      = "01000"
	FeatureNotSupported          = "0A000"
	InvalidParameterValue        = "22023"
	DivisionByZero               = "22012"
	NumericValueOutOfRange       = "22003"
	InvalidTextRepresentation    = "22P02"
	InvalidDatetimeFormat        = "22007"
	DatetimeFieldOverflow        = "22008"
	StringDataRightTruncation    = "22001"
	NotNullViolation             = "23502"
	InvalidEscapeSequence        = "22025"
	InvalidRegularExpression     = "2201B"
	CardinalityViolation         = "21000"
	BadCopyFileFormat            = "22P04"
	DataException                = "22000"
	InvalidTransactionState      = "25000"
	InFailedTransaction          = "25P02"
	NoActiveTransaction          = "25P01"
	ActiveTransaction            = "25001"
	ReadOnlyTransaction          = "25006"
	InvalidAuthorization         = "28000"
	InvalidPassword              = "28P01"
	InvalidCatalogName           = "3D000"
	InvalidSchemaName            = "3F000"
	UndefinedSchema              = "3F000"
	InvalidCursorName            = "34000"
	InvalidSQLStatementName      = "26000"
	SyntaxError                  = "42601"
	InsufficientPrivilege        = "42501"
	UndefinedColumn              = "42703"
	UndefinedFunction            = "42883"
	UndefinedTable               = "42P01"
	UndefinedObject              = "42704"
	UndefinedParameter           = "42P02"
	DuplicateTable               = "42P07"
	DuplicateObject              = "42710"
	DuplicateSchema              = "42P06"
	DuplicateColumn              = "42701"
	AmbiguousColumn              = "42702"
	AmbiguousFunction            = "42725"
	DatatypeMismatch             = "42804"
	CannotCoerce                 = "42846"
	GroupingError                = "42803"
	WindowingError               = "42P20"
	InvalidColumnReference       = "42P10"
	WrongObjectType              = "42809"
	InvalidTableDefinition       = "42P16"
	IndeterminateDatatype        = "42P18"
	UndefinedPreparedStmt        = "26000"
	ProtocolViolation            = "08P01"
	ConnectionFailure            = "08006"
	TooManyConnections           = "53300"
	DiskFull                     = "53100"
	OutOfMemory                  = "53200"
	ProgramLimitExceeded         = "54000"
	QueryCanceled                = "57014"
	AdminShutdown                = "57P01"
	IOError                      = "58030"
	SystemError                  = "58000"
	InternalError                = "XX000"
	DataCorrupted                = "XX001"
	ObjectNotInPrerequisiteState = "55000"
)

// Error is an error a client sees as an ErrorResponse (or a NoticeResponse
// when Severity is NOTICE or WARNING).
type Error struct {
	Severity string // ERROR (default), FATAL, WARNING, NOTICE
	Code     string
	Message  string
	Detail   string
	Hint     string
	Position int // 1-based character offset into the statement; 0 if none
}

func (e *Error) Error() string {
	return e.Message
}

// New returns an Error with a formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// At returns an Error carrying a syntax position.
func At(code string, pos int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Position: pos}
}

// PositionIfNone returns err placed at pos when it is an *Error without a
// position (an error from a catalog lookup or a value parser, which knows
// nothing of the statement's text); any other error as it is.
func PositionIfNone(err error, pos int) error {
	if se, ok := err.(*Error); ok && se.Position == 0 {
		cp := *se
		cp.Position = pos
		return &cp
	}
	return err
}

// WithDetail returns a copy of e with Detail set.
func (e *Error) WithDetail(d string) *Error { c := *e; c.Detail = d; return &c }

// WithHint returns a copy of e with Hint set.
func (e *Error) WithHint(h string) *Error { c := *e; c.Hint = h; return &c }

// From turns any error into an *Error; errors that are not already one are
// internal errors (XX000) because a well-behaved layer returns *Error for
// anything a user caused.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: InternalError, Message: err.Error()}
}

// Code returns the SQLSTATE of err, or "" if err is nil.
func Code(err error) string {
	if err == nil {
		return ""
	}
	return From(err).Code
}
