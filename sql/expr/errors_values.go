package expr

import (
	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

// Errors that value computations raise, with PostgreSQL's SQLSTATEs and texts.

func errDivisionByZero() error { return sqlerr.New(sqlerr.DivisionByZero, "division by zero") }

// errIntOutOfRange is the overflow error of an integer type.
func errIntOutOfRange(oid uint32) error {
	switch oid {
	case types.OidInt2:
		return sqlerr.New(sqlerr.NumericValueOutOfRange, "smallint out of range")
	case types.OidInt8:
		return sqlerr.New(sqlerr.NumericValueOutOfRange, "bigint out of range")
	case types.OidOid:
		return sqlerr.New(sqlerr.NumericValueOutOfRange, "OID out of range")
	}
	return sqlerr.New(sqlerr.NumericValueOutOfRange, "integer out of range")
}

func errTimestampOutOfRange() error {
	return sqlerr.New(sqlerr.DatetimeFieldOverflow, "timestamp out of range")
}

func errIntervalOutOfRange() error {
	return sqlerr.New(sqlerr.DatetimeFieldOverflow, "interval out of range")
}

func sqlErrDateOutOfRange() error {
	return sqlerr.New(sqlerr.DatetimeFieldOverflow, "date out of range")
}
